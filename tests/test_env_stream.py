"""Streamed delivery with a bounded window (docs/design.md, the environment), end to end through the real `vf-eval`
CLI of the installed verifiers against the scripted server, which records every request.

The scripted agent follows its instructions as written: with tools, the built-in instructions
tell it to store before acknowledging, so it stores each part under a key and lists its memory
at the question; without tools it acknowledges each part. It answers only from what the
request shows it, so:
- without tools it scores 0.0 on every task whose evidence was evicted;
- with tools it scores 1.0 on those same tasks;
- no evicted part's text is in any later request (the placeholder replaced it together with
  the agent's replies and tool calls made while it was shown); with tools, only the agent's
  own memory (tool results) may bring it back.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("verifiers")

from vf_eval_runner import ScriptedServer, by_task, run_vf_eval, script_entry, visible_texts  # noqa: E402

from memory_arena.envs import core  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.verifiers]

NUM = 5  # one task per category
WINDOW = 1


def _tasks():
    return core.select_tasks(core.make_settings(num_examples=NUM))


def _hidden(task, chunk: int) -> bool:
    """Evidence out of view at the question and the answer nowhere in the visible parts."""
    settings = core.make_settings(delivery="stream", chunk_turns=chunk, window=WINDOW)
    return (core.evidence_evicted(task, chunk, WINDOW)
            and task.answer.casefold() not in visible_texts(task, settings).casefold())


def _part_size() -> int:
    """The largest part size, from 16 down to the default 8, that hides 3 of the 5 tasks: fewer
    parts keep the run short (each is a harness segment), and it follows the data, not a
    figure of one dataset."""
    tasks = _tasks()
    return next((chunk for chunk in range(16, 7, -1) if sum(_hidden(t, chunk) for t in tasks) >= 3), 8)


CHUNK = _part_size()
ARGS = {"delivery": "stream", "chunk_turns": CHUNK, "window": WINDOW}


def _strings(value: Any) -> list[str]:
    """Every string inside a message, tool-call arguments decoded."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _check_no_evicted_text(requests: list[dict], tasks, settings: core.Settings, include_tool_results: bool) -> int:
    """Assert that no request shows the text of a part that is out of its window; return how
    many (request, evicted part) pairs were checked."""
    import json

    parts = {t.id: core.stream_parts(t, settings) for t in tasks}
    checked = 0
    for body in requests:
        messages = body["messages"]
        users = [m["content"] for m in messages if m["role"] == "user" and isinstance(m["content"], str)]
        owner = [tid for tid, texts in parts.items() if any(t in users for t in texts)]
        assert len(owner) == 1, "each request shows exactly one task's current part"
        numbers = [p[0] for c in users if (p := core.part_number("user", c))]
        delivered = max(numbers)
        scope = messages if include_tool_results else [m for m in messages if m["role"] != "tool"]
        shown = "\n".join(s for m in scope for s in _strings(
            {**m, "tool_calls": [json.loads(c["function"]["arguments"]) for c in m.get("tool_calls") or []]}))
        for text in parts[owner[0]][: max(0, delivered - WINDOW)]:
            turns = text.split("\n", 1)[1].removesuffix("\n" + core.PART_REMINDER)  # the turns alone
            assert turns not in shown, f"evicted part of {owner[0]} still sent"
            checked += 1
    return checked


@pytest.mark.parametrize("memory_tool", [False, True], ids=["no-memory-tool", "memory-tool"])
def test_stream_eviction_and_memory(tmp_path, memory_tool):
    tasks = _tasks()
    hidden = [t for t in tasks if _hidden(t, CHUNK)]
    assert len(hidden) >= 3, "the default window must hide the evidence of most tasks"
    entries = [script_entry(t, "visible") for t in tasks]
    settings = core.make_settings(**ARGS, memory_tool=memory_tool)
    with ScriptedServer(tmp_path / "server", entries) as server:
        rollouts = by_task(run_vf_eval(server, tmp_path / "out", NUM, {**ARGS, "memory_tool": memory_tool}))
        requests = server.requests()
    assert sorted(rollouts) == sorted(t.id for t in tasks)
    for task in tasks:
        rollout = rollouts[task.id]
        assert rollout.errors == [], rollout.errors
        num_parts = len(core.chunk_bounds(len(task.turns), CHUNK))
        assert rollout.metrics["turns_delivered"] == len(task.turns)
        assert rollout.metrics["evidence_evicted"] == float(core.evidence_evicted(task, CHUNK, WINDOW))
        if memory_tool:  # one store per part, one list at the question
            assert rollout.metrics["memory_tool_calls"] == num_parts + 1
            assert rollout.metrics["memory_keys_stored"] == num_parts
            assert rollout.reward == 1.0, task.id
        else:
            assert rollout.metrics["memory_tool_calls"] == 0.0
        if task in hidden and not memory_tool:
            assert rollout.reward == 0.0, task.id
    # Eviction really happened, and nothing evicted came back except through the memory.
    assert any(core.part_number("user", m["content"]) and "removed from view" in m["content"]
               for r in requests for m in r["messages"])
    assert _check_no_evicted_text(requests, tasks, settings, include_tool_results=not memory_tool) > 10
    # The question is the last message of the final request of each task, after every part.
    finals = [r for r in requests if r["messages"][-1]["content"] in {core.question_text(t) for t in tasks}]
    assert len(finals) == NUM
    # The instructions explain the delivery and, with tools, lead with the memory duty; every
    # part the model saw carried the reminder line exactly when the tools were on.
    system = requests[0]["messages"][0]["content"]
    assert system == core.system_prompt(settings)
    assert "Conversation part" in system and ("store_memory" in system) == memory_tool
    shown_parts = [m["content"] for r in requests for m in r["messages"]
                   if m["role"] == "user" and core.part_number("user", m["content"]) and "removed" not in m["content"]]
    assert shown_parts and all(p.endswith(core.PART_REMINDER) == memory_tool for p in shown_parts)


# The streamed instructions of the first release: acknowledgement first, storing after. Small
# models replied "OK" to every part and never stored (issue #16); so does the scripted agent.
ACK_FIRST = (
    "A conversation between a user and an assistant will be delivered to you in parts. Reply to each part with a "
    "short acknowledgement such as 'OK'. Only the 1 most recent part(s) stay visible. You have a persistent memory "
    "that survives when messages disappear: store_memory(key, value), retrieve_memory(key) and list_memories(). "
    "Before acknowledging a part, store the facts you may need later."
)


def _script():
    import scripted_server

    return scripted_server.Script([], double_encode=False, barrier=None)


def _part_request(settings: core.Settings, task) -> dict:
    from memory_arena.memory_tools import tool_schemas

    return {"messages": [{"role": "system", "content": core.system_prompt(settings)},
                         {"role": "user", "content": core.stream_parts(task, settings)[0]}],
            "tools": [{"type": "function", "function": s} for s in tool_schemas()] if settings.memory_tool else []}


def test_scripted_agent_stores_only_when_its_instructions_say_so_first():
    task = _tasks()[1]
    script = _script()
    built_in = core.make_settings(**ARGS, memory_tool=True)
    assert [c["function"]["name"] for c in script.reply(_part_request(built_in, task))["tool_calls"]] == ["store_memory"]
    ack_first = core.make_settings(**ARGS, memory_tool=True, system_prompt=ACK_FIRST)
    assert script.reply(_part_request(ack_first, task)) == {"content": "OK"}
    assert script.reply(_part_request(core.make_settings(**ARGS), task)) == {"content": "OK"}  # no tools offered
