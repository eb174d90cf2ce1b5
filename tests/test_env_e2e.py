"""End to end through the real `vf-eval` CLI of the installed verifiers (0.4 v1 or 0.3 classic)
against the scripted OpenAI-compatible server in strict mode (it refuses null fields, unknown
content parts and roles, as llama.cpp does): full delivery, the memory-tool mode, and
repeated rollouts (`-r 3`) read back by `memory-arena score`.

The scripted model answers some tasks right, some with a superseded value, some with a
hedge, and one task through a store-then-retrieve tool transcript, always with the final
`Answer:` line its instructions ask for; every reward the eval wrote is checked against what
the verifier says of that reply.
"""

from __future__ import annotations

import pytest

pytest.importorskip("verifiers")

from vf_eval_runner import ScriptedServer, by_task, run_vf_eval, script_entry, scripted_reply  # noqa: E402

from memory_arena.environment import verifiers_api  # noqa: E402
from memory_arena.envs import core  # noqa: E402
from memory_arena.verifier.scoring import score  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.verifiers]

FULL_MODES = {"recall": "right", "update": "stale", "contradiction": "hedge", "temporal": "right", "relational": "stale"}
EXPECTED = {"right": 1.0, "stale": 0.0, "hedge": 0.0, "store_retrieve": 1.0}


def _reply(entry: dict, settings: core.Settings) -> str:
    """The text the scripted model gives at the question in this entry's mode."""
    return scripted_reply({"right": entry["answer"], "stale": entry["stale"], "hedge": f"{entry['answer']} or {entry['stale']}",
                           "store_retrieve": entry["answer"]}[entry["mode"]], settings)


def _check_labels(rollout, task, reason: str) -> None:
    for category in core.CATEGORIES:
        assert rollout.metrics[f"category_{category}"] == float(task.category == category)
    for name in core.REASONS:
        assert rollout.metrics[f"reason_{name}"] == float(reason == name), (task.id, name, rollout.metrics)


def test_full_delivery_scores_every_reply(tmp_path):
    tasks = core.select_tasks(core.make_settings(num_examples=5))
    assert [t.category for t in tasks] == list(core.CATEGORIES)
    entries = [script_entry(t, FULL_MODES[t.category]) for t in tasks]
    with ScriptedServer(tmp_path / "server", entries) as server:
        rollouts = by_task(run_vf_eval(server, tmp_path / "out", 5, {}))
        requests = server.requests()
    assert sorted(rollouts) == sorted(t.id for t in tasks)
    for task, entry in zip(tasks, entries):
        rollout = rollouts[task.id]
        assert rollout.errors == [], rollout.errors
        expected = score(task, _reply(entry, core.make_settings()))
        assert expected.value == EXPECTED[entry["mode"]], (task.id, entry["mode"], expected)
        assert rollout.reward == expected.value, (task.id, rollout)
        _check_labels(rollout, task, expected.reason)
        assert rollout.metrics["turns_delivered"] == len(task.turns)
        assert rollout.metrics["memory_tool_calls"] == 0.0
    # Full delivery: the turns as chat messages with their roles, then the question; no tools.
    first = next(r for r in requests if r["messages"][-1]["content"] == core.question_text(tasks[0]))
    sent = first["messages"]
    assert sent[0]["role"] == "system" and sent[0]["content"].startswith(core.system_prompt(core.make_settings()))
    assert [m["role"] for m in sent[1:-1]] == [t.role for t in tasks[0].turns]
    assert [m["content"] for m in sent[1:-1]] == core.turn_texts(tasks[0])
    assert not first.get("tools")
    if verifiers_api() == "v1":  # the 0.4 chat harness always streams (SSE)
        assert all(r.get("stream") for r in requests)


def test_memory_tool_mode_store_then_retrieve(tmp_path):
    tasks = core.select_tasks(core.make_settings(num_examples=2))
    entries = [script_entry(tasks[0], "store_retrieve"), script_entry(tasks[1], "right")]
    # The classic API sees the raw tool-call arguments, so there they arrive double-encoded and
    # must still work; the v1 chat harness parses arguments itself before any tool sees them.
    flags = ("--double-encode",) if verifiers_api() == "classic" else ()
    with ScriptedServer(tmp_path / "server", entries, *flags) as server:
        rollouts = by_task(run_vf_eval(server, tmp_path / "out", 2, {"memory_tool": True}))
        requests = server.requests()
    stored, other = rollouts[tasks[0].id], rollouts[tasks[1].id]
    for rollout in (stored, other):
        assert rollout.errors == [], rollout.errors
        assert rollout.reward == 1.0, rollout
    assert stored.metrics["memory_tool_calls"] == 2.0 and stored.metrics["memory_keys_stored"] == 1.0
    assert other.metrics["memory_tool_calls"] == 0.0 and other.metrics["memory_keys_stored"] == 0.0
    _check_labels(stored, tasks[0], "exact")
    offered = {t["function"]["name"] for t in requests[0]["tools"]}
    assert offered == {"store_memory", "retrieve_memory", "list_memories"}
    # The retrieve result the model saw is the stored value: state went through the tool.
    tool_results = [m["content"] for r in requests for m in r["messages"] if m["role"] == "tool"]
    assert f"stored 'answer'" in " ".join(map(str, tool_results))
    assert any(str(c).strip() == tasks[0].answer for c in tool_results), tool_results


def test_repeated_rollouts_through_score(tmp_path):
    """`-r 3` on three tasks: one answered right every time, one wrong every time, one whose
    rollouts disagree (2 right, 1 wrong). `memory-arena score` reads the eval's own output as
    3 tasks x 3 rollouts, each task's accuracy the mean of its rollouts."""
    from memory_arena.results import load_results
    from memory_arena.verifier.metrics import format_report

    tasks = core.select_tasks(core.make_settings(num_examples=3))
    modes = ["right", "stale", "flip"]
    entries = [script_entry(t, mode) for t, mode in zip(tasks, modes)]
    with ScriptedServer(tmp_path / "server", entries) as server:
        rollouts = run_vf_eval(server, tmp_path / "out", 3, {}, rollouts=3)
    assert len(rollouts) == 9 and all(r.errors == [] for r in rollouts)
    rewards = {t.id: sorted(r.reward for r in rollouts if r.task_id == t.id) for t in tasks}
    assert rewards == {tasks[0].id: [1.0] * 3, tasks[1].id: [0.0] * 3, tasks[2].id: [0.0, 1.0, 1.0]}
    [run] = load_results(tmp_path / "out")
    report = run.report
    assert (run.rollouts, report["n"], report["tasks"], report["rollouts_per_task"]) == (9, 9, 3, [3, 3])
    by_category = {t.category: report["categories"][t.category] for t in tasks}
    assert [by_category[t.category]["accuracy"] for t in tasks] == [1.0, 0.0, 0.6667]
    assert all(cell["n"] == 1 and cell["rollouts"] == 3 for cell in by_category.values())
    repeated = report["repeated"]
    assert repeated["k"] == 3
    assert [repeated["categories"][t.category]["pass_at_k"] for t in tasks] == [1.0, 0.0, 1.0]
    assert [repeated["categories"][t.category]["all_k"] for t in tasks] == [1.0, 0.0, 0.0]
    assert repeated["all"]["disagree"] == round(1 / 3, 4) and repeated["all"]["disagree_count"] == 1
    assert "over 3 tasks x 3 rollouts" in format_report(report)
