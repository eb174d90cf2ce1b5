"""Memory-system delivery without verifiers: the settings checks, the prompt the model is
shown (memories in the system's order, each with its time, then the question) and the
zero-weight retrieval metrics."""

from __future__ import annotations

import pytest

from memory_arena.envs import core
from memory_arena.systems import build_system, retrieve_for_task
from memory_arena.tasks.schema import Task, Turn

# 2025-06-27 is a Friday; 1751022000000 ms is 11:00:00 UTC that day.
FRIDAY_11 = 1751022000000


def _task() -> Task:
    turns = (
        Turn("user", "I moved to Lisbon last spring.", FRIDAY_11, 0),
        Turn("assistant", "Lisbon is lovely.", FRIDAY_11 + 1000, 0),
        Turn("user", "Actually I moved to Porto, not Lisbon.", FRIDAY_11 + 86_400_000, 1),
        Turn("assistant", "Noted.", FRIDAY_11 + 86_401_000, 1),
    )
    return Task(id="update-9999", category="update", noise_turns=2, turns=turns,
                question="Which city do I live in?", answer="Porto", aliases=(),
                meta={"slot": "city", "evidence": [2], "stale": ["Lisbon"], "distractors": [], "depth": 4,
                      "events": [], "generator_version": "test"})


@pytest.mark.parametrize("kwargs, message", [
    ({"memory_system": "nope"}, "unknown memory system 'nope'; choose from full-context, grep, bm25"),
    ({"memory_system": 3}, "unknown memory system 3"),
    ({"memory_system": "bm25", "delivery": "stream"}, "cannot be combined with delivery='stream'"),
    ({"memory_system": "grep", "memory_tool": True}, "memory_tool=True"),
    ({"top_k": 0}, "top_k must be an integer >= 1"),
    ({"top_k": True}, "top_k"),
    ({"top_k": "5"}, "top_k"),
])
def test_bad_memory_settings(kwargs, message):
    with pytest.raises(ValueError, match=message):
        core.make_settings(**kwargs)


def test_memory_settings_accept_names_and_urls():
    assert core.make_settings(memory_system="grep", top_k=3).top_k == 3
    assert core.make_settings(memory_system="http://127.0.0.1:9/").memory_system == "http://127.0.0.1:9/"
    assert core.make_settings().memory_system is None and core.make_settings().top_k == core.DEFAULT_TOP_K


def test_prompt_shows_memories_in_the_given_order_with_times():
    task = _task()
    memories = [
        {"id": "b", "content": task.turns[2].content, "score": 2.0, "created_at": task.turns[2].timestamp},
        {"id": "a", "content": task.turns[0].content, "score": 1.0, "created_at": task.turns[0].timestamp},
        {"id": "x", "content": "A note the service wrote itself.", "score": 0.5, "created_at": None},
    ]
    messages = core.memory_messages(task, memories)
    assert messages == [
        {"role": "user", "content": "[Retrieved memories: 3]\n"
                                    "1. [2025-06-28T11:00:00Z (Saturday)] Actually I moved to Porto, not Lisbon.\n"
                                    "2. [2025-06-27T11:00:00Z (Friday)] I moved to Lisbon last spring.\n"
                                    "3. [time unknown] A note the service wrote itself."},
        {"role": "user", "content": "Question: Which city do I live in?"},
    ]
    assert core.retrieval_metrics(task, memories) == {
        "evidence_retrieved": 1.0, "memories_shown": 3.0, "turns_delivered": 2.0}
    # Without the evidence turn: nothing of the gold is shown.
    assert core.retrieval_metrics(task, memories[1:])["evidence_retrieved"] == 0.0
    assert core.memory_messages(task, [])[0]["content"] == "[Retrieved memories: 0]"
    # A service that drops timestamps is still mapped back by content.
    undated = [{**memories[0], "created_at": None}]
    assert core.retrieval_metrics(task, undated)["evidence_retrieved"] == 1.0


def test_instructions_say_what_is_shown():
    text = core.system_prompt(core.make_settings(memory_system="grep"))
    assert "memories" in text and "system's own order" in text and "time unknown" in text
    assert core.system_prompt(core.make_settings(memory_system="grep", system_prompt="Mine.")) == "Mine."


def test_retrieved_prompt_is_a_function_of_task_system_and_top_k(shipped_tasks):
    """An in-process system gives the same prompt on every call (a scratch user each time),
    and shows at most top_k memories, the ones `retrieve_for_task` returns, in its order."""
    settings = core.make_settings(memory_system="grep", top_k=4)
    system = core.open_memory_system(settings)
    for task in shipped_tasks[::100]:
        first = core.retrieved_prompt(task, system, settings.top_k)
        assert core.retrieved_prompt(task, system, settings.top_k) == first
        memories = retrieve_for_task(build_system("grep"), task, 4)
        assert first == (core.memory_messages(task, memories), core.retrieval_metrics(task, memories))
        assert first[1]["memories_shown"] == len(memories) <= 4
        assert first[0][-1]["content"] == core.question_text(task)
