"""The environment's `suite` argument (docs/suites.md): suite tasks through the shared core in
every delivery mode, and end to end through the real `vf-eval` CLI of the installed verifiers
(0.4 or 0.3.1) against the scripted OpenAI-compatible server: an abstention is rewarded on a
retraction, a superseded value is not, and forgetting-pressure tasks score like any other."""

from __future__ import annotations

import pytest

from memory_arena.envs import core
from memory_arena.suites.long import session_date
from memory_arena.verifier.scoring import score


def test_suite_tasks_in_every_delivery_mode():
    settings = core.make_settings(suite="forget", num_examples=6)
    tasks = core.select_tasks(settings)
    assert [t.category for t in tasks[:3]] == ["retraction", "twin", "pressure"]
    task = tasks[0]
    full = core.full_messages(task)
    assert full[-1]["content"] == f"Question: {task.question}" and len(full) == len(task.turns) + 1
    stream = core.make_settings(suite="forget", delivery="stream", memory_tool=True)
    parts = core.stream_parts(task, stream)
    assert len(parts) == len(core.chunk_bounds(len(task.turns), stream.chunk_turns))
    memory = core.make_settings(suite="forget", memory_system="grep")
    messages, metrics = core.retrieved_prompt(task, core.open_memory_system(memory), memory.top_k)
    assert messages[-1]["content"] == f"Question: {task.question}" and 1 <= metrics["memories_shown"] <= 10
    assert core.score_reply(task, "Answer: none") == (1.0, "exact")
    assert core.score_reply(tasks[1], "Answer: none") == (0.0, "abstained")


def test_long_sessions_are_headed_with_their_date():
    settings = core.make_settings(suite="long", n=1, categories=["temporal"], num_examples=1)
    task = core.select_tasks(settings)[0]
    texts = core.turn_texts(task)
    assert texts[0].startswith(f"[Session 1, {session_date(task.turns[0].timestamp)}]\n")
    # The question's date is one a reader can find among the session headers' calendar.
    assert task.meta["question_kind"] == "as_of_date" and task.meta["as_of_date"][:4] in task.question


def _counting(name):
    """A built-in system whose Adds are recorded by user."""
    from memory_arena.systems import build_system

    system, adds = build_system(name), []
    add = system.add
    system.add = lambda user, session, messages: (adds.append(user), add(user, session, messages))[1]
    return system, adds


def test_memory_system_ingests_each_long_history_once():
    """Under memory-system delivery the questions of one long history share one ingest (per
    system and process), and each is shown exactly what an ingest of its own would retrieve."""
    from memory_arena.suites import generate_suite
    from memory_arena.systems import build_system, retrieve_for_task
    from memory_arena.systems.ingest import task_sessions

    tasks = generate_suite("long", n=2, histories=2, turns=300)
    system, adds = _counting("grep")
    shown = [core.retrieved_prompt(task, system, 5)[0] for task in tasks]
    first = {t.meta["history"]: t for t in tasks}
    assert len(adds) == sum(len(task_sessions(t)) for t in first.values()) and len(set(adds)) == 2
    assert shown == [core.memory_messages(t, retrieve_for_task(build_system("grep"), t, 5)) for t in tasks]
    # Another system ingests the history afresh.
    other, other_adds = _counting("grep")
    core.retrieved_prompt(tasks[0], other, 5)
    assert len(other_adds) == len(task_sessions(tasks[0]))


def test_memory_system_shared_history_under_concurrent_rollouts():
    from concurrent.futures import ThreadPoolExecutor

    from memory_arena.suites import generate_suite
    from memory_arena.systems.ingest import task_sessions

    tasks = [t for t in generate_suite("long", n=3, histories=1, turns=300)]
    system, adds = _counting("grep")
    with ThreadPoolExecutor(8) as pool:
        shown = list(pool.map(lambda t: core.retrieved_prompt(t, system, 5)[0], tasks * 3))
    assert len(adds) == len(task_sessions(tasks[0]))  # one ingest, whatever the interleaving
    assert shown == [core.retrieved_prompt(t, system, 5)[0] for t in tasks * 3]


def test_bad_suite_arguments_name_the_field():
    with pytest.raises(ValueError, match="suite must be one of"):
        core.make_settings(suite="huge")
    with pytest.raises(ValueError, match="categories must be a non-empty subset of retraction, twin, pressure"):
        core.make_settings(suite="forget", categories="recall")


@pytest.mark.slow
@pytest.mark.verifiers
def test_vf_eval_forget_suite(tmp_path):
    pytest.importorskip("verifiers")
    from vf_eval_runner import ScriptedServer, by_task, run_vf_eval, script_entry, scripted_reply

    args = {"suite": "forget", "categories": ["retraction", "pressure"]}
    settings = core.make_settings(**args, num_examples=4)
    tasks = core.select_tasks(settings)
    assert [t.category for t in tasks] == ["retraction", "pressure"] * 2
    modes = ["right", "right", "stale", "stale"]
    entries = [script_entry(t, mode) for t, mode in zip(tasks, modes)]
    with ScriptedServer(tmp_path / "server", entries) as server:
        rollouts = by_task(run_vf_eval(server, tmp_path / "out", 4, args))
    for task, entry in zip(tasks, entries):
        rollout = rollouts[task.id]
        assert rollout.errors == [], rollout.errors
        said = entry["answer"] if entry["mode"] == "right" else entry["stale"]
        expected = score(task, scripted_reply(said, settings))
        assert expected.value == (1.0 if entry["mode"] == "right" else 0.0), (task.id, expected)
        assert rollout.reward == expected.value
        assert rollout.metrics[f"reason_{expected.reason}"] == 1.0
    # `memory-arena score` finds the suite's tasks (0.3 rebuilds them from the run's arguments)
    # and reports them apart from the Memory Score.
    from memory_arena.results import load_results

    (run,) = load_results(tmp_path / "out")
    suite = run.report["suites"]["forget"]
    assert suite["files"]["retraction"]["accuracy"] == 0.5 and suite["files"]["pressure"]["accuracy"] == 0.5
    assert run.report["memory_score"]["value"] is None
