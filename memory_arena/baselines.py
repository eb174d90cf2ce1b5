"""Offline baselines: scripted agents that read a task's event log (`meta.events`, what the
conversation stated and when) and the structured question in `meta`, never `answer`, and
reply in plain text that goes through the real scorer. Standard library only.

- `latest-fact` applies every change and correction, answers as-of-day questions and follows
  reporting chains: it must score 1.0 everywhere (a pipeline check of generator and scorer).
- `stale-fact` keeps the first value it saw: 1.0 on recall and relational, 0.0 on update and
  contradiction; it is what a memory that never overwrites would score.
- `always-abstain` says there is none, whatever is asked: right on every retraction of the
  `forget` suite and wrong on its twins, so 0.5 paired there and 0 on every answerable task.
- `hedge`, `hedge-short`, `most-common` and `random-candidate` try to game the scorer and must
  score low; `hedge` and `hedge-short` (every candidate by its shortest accepted form, so that a
  scorer that knew values only by their full names would miss the hedge) must score 0.
"""

from __future__ import annotations

import random
from collections import Counter
from datetime import date
from typing import Callable, Iterable

from .suites.retractions import ABSTAIN_REPLY, BY_SLOT
from .tasks.common import DAY_MS
from .tasks.forms import value_forms
from .tasks.schema import Task, user_statements
from .tasks.vocab import WEEKDAYS


Baseline = Callable[[Task], str]
_EPOCH = date(1970, 1, 1)


def _managers(task: Task, first: bool) -> dict[str, str]:
    """employee -> manager from the `reports_to` events (the first or the last statement)."""
    managers: dict[str, str] = {}
    for event in task.meta["events"]:
        if event["op"] == "reports_to" and not (first and event["employee"] in managers):
            managers[event["employee"]] = event["manager"]
    return managers


def _follow_chain(task: Task, managers: dict[str, str]) -> str | None:
    person = task.meta["subject"]
    steps = None if task.meta["question_kind"] == "top" else task.meta["hops"]
    while person in managers and (steps is None or steps > 0):
        person = managers[person]
        steps = None if steps is None else steps - 1
    return None if person == task.meta["subject"] else person


def _value(task: Task, first: bool) -> str | None:
    if task.category == "relational":
        return _follow_chain(task, _managers(task, first))
    events = user_statements(task)
    if not events:
        return None
    if first:
        return events[0]["value"]
    if task.meta.get("question_kind") == "as_of_day":
        day = WEEKDAYS.index(task.meta["as_of_day"])
        events = [e for e in events if e.get("day", 0) <= day] or events[:1]
    elif task.meta.get("question_kind") == "as_of_date":
        # A long-horizon question about a named date: what was said before that day ended, by the
        # turns' own timestamps (the sessions a model sees are dated).
        end_ms = ((date.fromisoformat(task.meta["as_of_date"]) - _EPOCH).days + 1) * DAY_MS
        events = [e for e in events if task.turns[e["turn"]].timestamp < end_ms] or events[:1]
    return events[-1]["value"]


def _reply(value: str | None) -> str:
    return f"It's {value}." if value else "I don't know."


def _withdrawn(task: Task) -> bool:
    """Whether the user's last word on the asked slot took it back (a `retract` event after every
    statement of it): the event log says the fact is gone, as the conversation did."""
    slot = task.meta["slot"]
    retracted = [e["turn"] for e in task.meta["events"]
                 if e["op"] == "retract" and e.get("slot") == slot and e.get("subject") == "user"]
    return bool(retracted) and max(retracted) > max((e["turn"] for e in user_statements(task)), default=-1)


def latest_fact(task: Task) -> str:
    if task.category != "relational" and _withdrawn(task):
        return BY_SLOT[task.meta["slot"]].abstain if task.meta["slot"] in BY_SLOT else ABSTAIN_REPLY
    return _reply(_value(task, first=False))


def always_abstain(task: Task) -> str:
    return ABSTAIN_REPLY


def stale_fact(task: Task) -> str:
    return _reply(_value(task, first=True))


def candidates(task: Task) -> list[str]:
    """Every value in the conversation of the kind the question asks for, in order of appearance."""
    events = task.meta["events"]
    if task.category == "relational":
        names = [n for e in events for n in ((e["employee"], e["manager"]) if e["op"] == "reports_to"
                                              else (e["value"],) if e.get("kind") == "person" else ())]
        return [n for n in dict.fromkeys(names) if n != task.meta["subject"]]
    kind = next((e["kind"] for e in user_statements(task)), None)
    return list(dict.fromkeys(e["value"] for e in events if e.get("kind") == kind and "value" in e))


def hedge(task: Task) -> str:
    return _one_of(candidates(task))


def hedge_short(task: Task) -> str:
    return _one_of([min(value_forms(v), key=len) for v in candidates(task)])


def _one_of(values: list[str]) -> str:
    return "It's one of these: " + ", ".join(values) + "." if values else "I don't know."


def make_most_common(tasks: Iterable[Task]) -> Baseline:
    """Replies with the value stated most often for the task's slot across the whole dataset."""
    counts: dict[str, Counter] = {}
    for task in tasks:
        if task.category == "relational":
            values = [e["manager"] for e in task.meta["events"] if e["op"] == "reports_to"]
        else:
            values = [e["value"] for e in user_statements(task)]
        counts.setdefault(task.meta["slot"], Counter()).update(values)

    def most_common(task: Task) -> str:
        ranked = counts.get(task.meta["slot"])
        # Ties break by the value itself, so the reply does not depend on task order.
        return _reply(min(ranked.items(), key=lambda kv: (-kv[1], kv[0]))[0] if ranked else None)

    return most_common


def make_random_candidate(seed: int = 0) -> Baseline:
    """Picks one candidate value uniformly, with an RNG seeded per task (deterministic)."""

    def random_candidate(task: Task) -> str:
        values = candidates(task)
        return _reply(random.Random(f"{seed}:{task.id}").choice(values) if values else None)

    return random_candidate


BASELINE_NAMES = ("latest-fact", "stale-fact", "hedge", "hedge-short", "most-common", "random-candidate", "always-abstain")


def make_baseline(name: str, tasks: list[Task], seed: int = 0) -> Baseline:
    """The baseline called `name`; `tasks` is the whole set (most-common needs it)."""
    if name == "latest-fact":
        return latest_fact
    if name == "stale-fact":
        return stale_fact
    if name == "hedge":
        return hedge
    if name == "hedge-short":
        return hedge_short
    if name == "most-common":
        return make_most_common(tasks)
    if name == "random-candidate":
        return make_random_candidate(seed)
    if name == "always-abstain":
        return always_abstain
    raise ValueError(f"unknown baseline {name!r}; choose from {', '.join(BASELINE_NAMES)}")
