"""Memory-system delivery (docs/design.md, memory systems) end to end through the real `vf-eval` CLI of the installed
verifiers (0.4 v1 or 0.3 classic) against the scripted server, which records every request.

The scripted model answers only from what it is shown (`visible` mode: the answer if its text
is in the request before the question, else "I don't know"), so each reward says whether the
retrieval contained the answer. The test recomputes the retrieval itself, then checks that
each request showed exactly those memories and no other conversation turn, and that each
reward and retrieval metric in the eval's output files is what that retrieval implies.
The same run with the URL of the real reference server (`--backend bm25`) scores the same.
Fast tests check what each adapter builds when loaded directly.
"""

from __future__ import annotations

import pytest

pytest.importorskip("verifiers")

from system_deps import require  # noqa: E402
from vf_eval_runner import ScriptedServer, by_task, run_vf_eval  # noqa: E402

from memory_arena.environment import load_environment, verifiers_api  # noqa: E402
from memory_arena.envs import core  # noqa: E402
from memory_arena.systems import build_system, retrieve_for_task  # noqa: E402
from memory_arena.verifier.scoring import score  # noqa: E402

pytestmark = pytest.mark.verifiers

NUM, TOP_K = 10, 3  # two tasks per category


def _tasks():
    return core.select_tasks(core.make_settings(num_examples=NUM))


def _entries(tasks, system) -> list[dict]:
    """The script: each task's question and, as its marker, the text of its best memory, so
    that tasks sharing a question are told apart by what is shown."""
    entries = []
    for task in tasks:
        memories = retrieve_for_task(system, task, TOP_K)
        marker = memories[0]["content"] if memories else ""
        entries.append({"question": task.question, "marker": marker, "answer": task.answer, "stale": "",
                        "mode": "visible"})
    keys = [(e["question"], e["marker"]) for e in entries]
    assert len(set(keys)) == len(keys), "two tasks the script cannot tell apart"
    return entries


def _reply(task, memories) -> str:
    """What a model that reads only the memories can answer."""
    return task.answer if task.answer.casefold() in core.memories_text(memories).casefold() else "I don't know"


def _run(tmp_path, memory_system: str):
    tasks = _tasks()
    entries = _entries(tasks, build_system("bm25"))
    args = {"memory_system": memory_system, "top_k": TOP_K, "num_examples": NUM}
    with ScriptedServer(tmp_path / "server", entries) as server:
        rollouts = by_task(run_vf_eval(server, tmp_path / "out", NUM, args))
        requests = server.requests()
    return tasks, rollouts, requests


def _check(tasks, rollouts, requests) -> dict[str, float]:
    """Check requests and rewards against in-process bm25 retrieval; return the rewards."""
    system = build_system("bm25")
    instructions = core.system_prompt(core.make_settings(memory_system="bm25"))
    assert sorted(rollouts) == sorted(t.id for t in tasks)
    assert len(requests) == NUM, "one request per task: memories and question, nothing else"
    outcomes, unsent = set(), 0
    for task in tasks:
        memories = retrieve_for_task(system, task, TOP_K)
        expected_messages = core.memory_messages(task, memories)
        matching = [r["messages"] for r in requests if r["messages"][1:] == expected_messages]
        assert len(matching) == 1, (task.id, "the model was not sent exactly the memories bm25 retrieves")
        sent = matching[0]
        assert [m["role"] for m in sent] == ["system", "user", "user"]
        assert sent[0]["content"].startswith(instructions)
        # No conversation turn outside the retrieved memories reached the model (short turns
        # that also occur inside what may be shown cannot be told apart, so are skipped).
        shown_ok = " ".join([m["content"] for m in memories] + [instructions, core.question_text(task)])
        text = " ".join(m["content"] for m in sent)
        shown = {m["content"] for m in memories}
        for turn in task.turns:
            if turn.content not in shown and turn.content not in shown_ok:
                assert turn.content not in text, (task.id, turn.content)
                unsent += 1
        assert task.answer.casefold() not in instructions.casefold()
        rollout = rollouts[task.id]
        assert rollout.errors == [], rollout.errors
        expected = score(task, _reply(task, memories))
        assert rollout.reward == expected.value, (task.id, rollout, expected)
        assert rollout.metrics[f"reason_{expected.reason}"] == 1.0
        metrics = core.retrieval_metrics(task, memories)
        for name in ("evidence_retrieved", "memories_shown", "turns_delivered"):
            assert rollout.metrics[name] == metrics[name], (task.id, name, rollout.metrics)
        assert rollout.metrics["memories_shown"] <= TOP_K
        outcomes.add(expected.value)
    assert outcomes == {0.0, 1.0}, "the selection must contain a hit and a miss of the retrieval"
    assert unsent > 100
    return {task_id: r.reward for task_id, r in rollouts.items()}


@pytest.mark.slow
def test_bm25_memories_replace_the_conversation(tmp_path):
    require("bm25")
    _check(*_run(tmp_path, "bm25"))


@pytest.mark.slow
def test_reference_server_url_scores_as_in_process_bm25(tmp_path):
    require("bm25")
    pytest.importorskip("starlette", reason="the reference server needs the server extra")
    from contract_procs import start_reference

    server = start_reference(tmp_path, "--backend", "bm25")
    try:
        tasks, rollouts, requests = _run(tmp_path, server.url)
    finally:
        server.stop()
    # The same requests and rewards as in-process bm25: _check compares with it directly.
    rewards = _check(tasks, rollouts, requests)
    assert set(rewards.values()) == {0.0, 1.0}


def _prompts_and_infos(env) -> list[tuple[list[dict], dict[str, float]]]:
    """(messages after the system message, retrieval metrics) of each task an adapter built."""
    if verifiers_api() == "v1":
        out = []
        for task in env.taskset:
            assert task.data.system_prompt == core.system_prompt(core.make_settings(memory_system="grep"))
            out.append(([m.model_dump(include={"role", "content"}) for m in task.data.prompt], task.data.retrieval))
        return out
    rows = env.get_eval_dataset()
    assert all(r["prompt"][0]["content"] == core.system_prompt(core.make_settings(memory_system="grep")) for r in rows)
    return [([{"role": m["role"], "content": m["content"]} for m in r["prompt"][1:]], r["info"]["retrieval"])
            for r in rows]


def test_adapter_builds_the_system_once_and_shows_its_memories(monkeypatch):
    built = []
    monkeypatch.setattr(core, "build_system", lambda name: built.append(name) or build_system(name))
    env = load_environment(memory_system="grep", top_k=2, num_examples=4)
    got = _prompts_and_infos(env)
    assert built == ["grep"]
    system = build_system("grep")
    expected = []
    for task in _tasks()[:4]:
        memories = retrieve_for_task(system, task, 2)
        expected.append((core.memory_messages(task, memories), core.retrieval_metrics(task, memories)))
    assert got == expected


@pytest.mark.parametrize("kwargs, message", [
    ({"memory_system": "nope"}, "unknown memory system 'nope'"),
    ({"memory_system": "bm25", "delivery": "stream"}, "delivery='stream'"),
    ({"memory_system": "bm25", "memory_tool": True}, "memory_tool"),
    ({"memory_system": "bm25", "top_k": 0}, "top_k"),
])
def test_bad_memory_arguments_fail_at_load(kwargs, message):
    with pytest.raises(ValueError, match=message):
        load_environment(**kwargs)


@pytest.mark.skipif(verifiers_api() != "v1", reason="verifiers 0.4 (v1 API) only")
def test_v1_flags_are_checked_at_config_time():
    import verifiers.v1 as vf

    config = vf.resolve_env_config({"taskset": {"id": "memory-arena", "memory_system": "bm25", "top_k": 4}})
    assert config.taskset.settings() == core.make_settings(memory_system="bm25", top_k=4)
    with pytest.raises(ValueError, match="unknown memory system 'bm2'"):
        vf.resolve_env_config({"taskset": {"id": "memory-arena", "memory_system": "bm2"}})
