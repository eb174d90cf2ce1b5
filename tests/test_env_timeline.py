"""`timeline` as the environment's memory system, end to end through the real `vf-eval` CLI of
the installed verifiers (0.4 v1 or 0.3 classic) against the scripted server.

The scripted model answers with the first value of the asked fact that it reads in the
retrieved memories (`first_candidate` mode, candidates: the answer, its aliases and the
superseded values): it tells the asked fact from other people's and other things' (it reads
meaning) but not which of its values is current, so it trusts the system's order. With
`hybrid` a superseded value often comes first; with `timeline` the current one does more
often, so the same model scores higher on each of update, contradiction and temporal. The
test recomputes each retrieval in process, checks that every request showed exactly those
memories (older versions marked as such) and that every reward is the scorer's
value of the reply those memories imply. A fast test checks, under either verifiers version
without the dense extra, that both adapters show the older-version marks of any system.
"""

from __future__ import annotations

import pytest

pytest.importorskip("verifiers")

from scripted_server import first_candidate  # noqa: E402
from system_deps import require  # noqa: E402
from vf_eval_runner import ScriptedServer, by_task, run_vf_eval, scripted_reply  # noqa: E402

from memory_arena.environment import load_environment, verifiers_api  # noqa: E402
from memory_arena.envs import core  # noqa: E402
from memory_arena.systems import build_system, retrieve_for_task  # noqa: E402
from memory_arena.systems.grep import GrepSystem  # noqa: E402
from memory_arena.verifier.scoring import score  # noqa: E402

pytestmark = pytest.mark.verifiers

CATEGORIES = "update,contradiction,temporal"
NUM, TOP_K = 15, 10  # five tasks per category


def _tasks():
    return core.select_tasks(core.make_settings(categories=CATEGORIES, num_examples=NUM))


def _candidates(task) -> list[str]:
    return [task.answer, *task.aliases, *task.stale]


def _run(tmp_path, name: str, tasks, memories: dict[str, list]) -> dict:
    entries = [{"question": t.question, "marker": memories[t.id][0]["content"], "answer": t.answer,
                "candidates": _candidates(t), "mode": "first_candidate"} for t in tasks]
    keys = [(e["question"], e["marker"]) for e in entries]
    assert len(set(keys)) == len(keys), "two tasks the script cannot tell apart"
    args = {"memory_system": name, "top_k": TOP_K, "num_examples": NUM, "categories": CATEGORIES}
    with ScriptedServer(tmp_path / name, entries) as server:
        rollouts = by_task(run_vf_eval(server, tmp_path / name / "out", NUM, args))
        requests = server.requests()
    assert sorted(rollouts) == sorted(t.id for t in tasks)
    settings = core.make_settings(memory_system=name)
    rewards = {}
    for task in tasks:
        expected_messages = core.memory_messages(task, memories[task.id])
        assert sum(r["messages"][1:] == expected_messages for r in requests) == 1, (name, task.id)
        reply = scripted_reply(first_candidate(core.memories_text(memories[task.id]), _candidates(task)), settings)
        rollout = rollouts[task.id]
        assert rollout.errors == [], rollout.errors
        assert rollout.reward == score(task, reply).value, (name, task.id, reply)
        rewards[task.id] = rollout.reward
    return rewards


@pytest.mark.slow
def test_timeline_puts_the_current_value_first_for_a_model_that_trusts_the_order(tmp_path):
    require("dense")
    tasks = _tasks()
    assert {t.category for t in tasks} == set(CATEGORIES.split(","))
    shown = {name: {t.id: retrieve_for_task(build_system(name), t, TOP_K) for t in tasks}
             for name in ("hybrid", "timeline")}
    marked = [m for ms in shown["timeline"].values() for m in ms if m.get("superseded_by")]
    assert marked, "timeline marked no memory as an older version on these tasks"
    assert all("older version" in core.memories_text(ms) for ms in shown["timeline"].values()
               if any(m.get("superseded_by") for m in ms))
    hybrid = _run(tmp_path, "hybrid", tasks, shown["hybrid"])
    timeline = _run(tmp_path, "timeline", tasks, shown["timeline"])
    for category in CATEGORIES.split(","):
        ids = [t.id for t in tasks if t.category == category]
        assert sum(timeline[i] for i in ids) > sum(hybrid[i] for i in ids), category


class _MarkingGrep(GrepSystem):
    """grep, with every memory after the first marked as superseded by the first."""

    def search(self, user_id, query, top_k):
        found = super().search(user_id, query, top_k)
        return found[:1] + [{**m, "superseded_by": found[0]["id"]} for m in found[1:]]


def _user_messages(env) -> list[str]:
    if verifiers_api() == "v1":
        return [m.content for task in env.taskset for m in task.data.prompt if m.role == "user"]
    return [m["content"] for row in env.get_eval_dataset() for m in row["prompt"] if m["role"] == "user"]


def test_both_adapters_show_which_memories_are_older_versions(monkeypatch):
    monkeypatch.setattr(core, "build_system", lambda name, *options: _MarkingGrep())
    env = load_environment(memory_system="grep", top_k=3, num_examples=5)
    shown = [text for text in _user_messages(env) if text.startswith("[Retrieved memories")]
    assert len(shown) == 5
    for text in shown:
        lines = text.splitlines()
        assert ("older version" in lines[0]) == (len(lines) > 2), text
        assert all("(older version of 1) " in line for line in lines[2:]), text
