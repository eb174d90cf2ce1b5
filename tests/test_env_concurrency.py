"""Concurrent rollouts with memory tools stay isolated (docs/design.md, the environment), through the real `vf-eval`.

Four rollouts run at once; each stores its own answer under the same key, "answer", then
reads it back. The scripted server holds every reply to a store result until all four stores
have happened (a barrier), so every read comes after every write: one shared memory would
hand at least three rollouts another task's answer. A barrier that times out (the rollouts
did not really run together) also fails the test.
"""

from __future__ import annotations

import pytest

pytest.importorskip("verifiers")

from vf_eval_runner import ScriptedServer, by_task, run_vf_eval, script_entry  # noqa: E402

from memory_arena.envs import core  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.verifiers]

K = 4


def test_concurrent_tool_rollouts_are_isolated(tmp_path):
    tasks = core.select_tasks(core.make_settings(num_examples=K))
    assert len({t.answer for t in tasks}) == K
    entries = [script_entry(t, "store_retrieve") for t in tasks]
    with ScriptedServer(tmp_path / "server", entries, "--barrier", str(K)) as server:
        rollouts = by_task(run_vf_eval(server, tmp_path / "out", K, {"memory_tool": True}, concurrency=K))
        requests = server.requests()
    for task in tasks:
        rollout = rollouts[task.id]
        assert rollout.errors == [], rollout.errors
        assert rollout.reward == 1.0, (task.id, rollout)
        assert rollout.metrics["memory_keys_stored"] == 1.0
    # Interleaving really happened: all K stores were answered before the first read was asked.
    order = [m["content"] for r in requests for m in r["messages"][-1:] if m["role"] == "tool"]
    first_read = next(i for i, content in enumerate(order) if not str(content).startswith("stored"))
    assert sum(str(c).startswith("stored") for c in order[:first_read]) == K
