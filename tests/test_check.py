"""check_task catches each invariant it guards (each test breaks one thing in a real task)."""

from __future__ import annotations

import dataclasses

import pytest

from memory_arena.tasks.check import check_task


def first(shipped_tasks, category):
    return next(t for t in shipped_tasks if t.category == category)


def test_real_tasks_pass(shipped_tasks):
    assert all(check_task(t, t.category) == [] for t in shipped_tasks)


def test_alternation(shipped_tasks):
    task = first(shipped_tasks, "recall")
    broken = dataclasses.replace(task, turns=task.turns[:-1])
    assert any("alternate" in p for p in check_task(broken, "recall"))


def test_stale_completeness(shipped_tasks):
    task = first(shipped_tasks, "update")
    broken = dataclasses.replace(task, meta={**task.meta, "stale": task.meta["stale"][1:]})
    assert any("stale lacks" in p for p in check_task(broken, "update"))


def test_temporal_weekday(shipped_tasks):
    task = first(shipped_tasks, "temporal")
    last = task.turns[-1]
    moved = last._replace(timestamp=last.timestamp + 86_400_000)  # the last turn slips to the next day
    broken = dataclasses.replace(task, turns=task.turns[:-1] + (moved,))
    assert any("weekday" in p for p in check_task(broken, "temporal"))


@pytest.mark.parametrize("field, value, message", [
    ("question", "Is it {answer}?", "leaks"),
    ("answer", "Nowhere-in-the-conversation", "not in its evidence"),
])
def test_leaks_and_evidence(shipped_tasks, field, value, message):
    task = first(shipped_tasks, "recall")
    broken = dataclasses.replace(task, **{field: value.format(answer=task.answer)})
    assert any(message in p for p in check_task(broken, "recall"))
