"""The adapters as verifiers loads them: by id, with their defaults, for the installed version
(tests for the other version skip). The v1 tool server module is started for real, since a
tool server that dies at start makes a v1 rollout hang for minutes before it fails."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("verifiers")

from memory_arena.environment import verifiers_api  # noqa: E402

pytestmark = pytest.mark.verifiers
v1_only = pytest.mark.skipif(verifiers_api() != "v1", reason="verifiers 0.4 (v1 API) only")
classic_only = pytest.mark.skipif(verifiers_api() != "classic", reason="verifiers 0.3 (classic API) only")
ROOT = Path(__file__).resolve().parent.parent


@v1_only
def test_v1_resolves_the_package_defaults():
    import verifiers.v1 as vf
    from verifiers.v1.harnesses.null.harness import NullHarness
    from verifiers.v1.utils.loaders import environment_class, harness_class, taskset_class

    import memory_arena

    exported = [getattr(memory_arena, name) for name in memory_arena.__all__]
    assert sum(isinstance(o, type) and issubclass(o, vf.Taskset) for o in exported) == 1
    assert sum(isinstance(o, type) and issubclass(o, vf.Env) for o in exported) == 1
    from memory_arena.envs.v1 import MemoryArenaEnv, MemoryArenaEnvConfig

    assert environment_class("memory-arena") is MemoryArenaEnv
    config = vf.resolve_env_config({"taskset": {"id": "memory-arena"}})
    assert isinstance(config, MemoryArenaEnvConfig)
    assert config.agent.runtime.type == "subprocess"  # local, no sandbox account needed
    harness = harness_class(config.agent.harness.id)
    assert issubclass(harness, NullHarness) and not harness.EXECUTES_CODE  # a tool-less chat loop
    assert taskset_class("memory-arena").__name__ == "MemoryArenaTaskset"


@v1_only
def test_v1_tasks_full_and_stream():
    from memory_arena import load_environment

    full = list(load_environment(num_examples=2).taskset)
    data = full[0].data
    assert [m.role for m in data.prompt][-1] == "user" and data.prompt[-1].content == data.question
    assert data.id == "recall-0000" and data.window == 0 and not full[0].toolsets(full[0].config)
    stream = list(load_environment(num_examples=2, delivery="stream", memory_tool=True, window=2).taskset)
    data = stream[1].data
    assert data.prompt is None and data.window == 2 and data.parts[0].startswith("[Conversation part 1 of")
    assert [type(t).__name__ for t in stream[1].toolsets(stream[1].config)] == ["MemoryToolset"]


@v1_only
def test_v1_gold_check():
    import asyncio

    from memory_arena import load_environment

    tasks = list(load_environment(num_examples=10).taskset)
    assert all(asyncio.run(t.validate()) for t in tasks)


@v1_only
def test_v1_bad_argument_names_the_field():
    from pydantic import ValidationError

    from memory_arena import load_environment

    with pytest.raises(ValueError, match="window"):
        load_environment(window=0)
    import verifiers.v1 as vf

    with pytest.raises(ValidationError, match="delivery"):
        vf.resolve_env_config({"taskset": {"id": "memory-arena", "delivery": "batch"}})


@v1_only
def test_v1_cli_takes_comma_separated_categories(monkeypatch):
    """`--env.taskset.categories recall,update` reaches the config as ["recall,update"]."""
    from verifiers.v1.cli.eval.main import EvalConfig, cli, narrow_config, with_positional_taskset

    from memory_arena.envs.v1 import MemoryArenaTaskset

    argv = with_positional_taskset(["memory-arena", "-m", "m", "--env.taskset.categories", "recall,update"])
    config_type = narrow_config(EvalConfig, argv)
    monkeypatch.setattr(sys, "argv", ["vf-eval", *argv])
    config = cli(config_type)
    assert config.env.taskset.settings().categories == ("recall", "update")
    config.env.taskset.num_examples = 4
    tasks = list(MemoryArenaTaskset(config.env.taskset).load())
    assert [t.data.category for t in tasks] == ["recall", "update", "recall", "update"]


@classic_only
def test_classic_load_by_id_with_tools():
    import verifiers as vf

    env = vf.load_environment("memory-arena", memory_tool=True, num_examples=5)
    assert type(env).__name__ == "MemoryArenaEnv"
    assert [t.name for t in env.tool_defs] == ["store_memory", "retrieve_memory", "list_memories"]
    rows = env.get_eval_dataset()
    assert len(rows) == 5 and rows[0]["info"]["task_id"] == "recall-0000"
    assert rows[0]["prompt"][0]["role"] == "system" and rows[0]["prompt"][-1]["content"].startswith("Question: ")
    stream = vf.load_environment("memory-arena", delivery="stream", num_examples=1)
    assert stream.get_eval_dataset()[0]["prompt"][-1]["content"].startswith("[Conversation part 1 of")
    assert stream.tool_defs in (None, [])


@classic_only
def test_classic_client_sends_no_null_fields():
    """verifiers 0.3.1 writes `"tool_calls": null` and `"reasoning_content": null` on every
    assistant message, which strict servers (llama.cpp) refuse; the environment's client copy
    leaves them out and keeps everything else, including a null content next to tool calls."""
    import asyncio

    from openai import AsyncOpenAI
    from verifiers.utils.message_utils import normalize_messages

    from memory_arena.envs.classic import _without_null_fields

    import verifiers as vf

    client = vf.OpenAIChatCompletionsClient(
        AsyncOpenAI(base_url="http://127.0.0.1:9/v1", api_key="unused"))
    messages = normalize_messages([
        {"role": "system", "content": "instructions"}, {"role": "user", "content": "part 1"},
        {"role": "assistant", "content": "OK"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "name": "list_memories", "arguments": "{}"}]},
        {"role": "tool", "tool_call_id": "c1", "content": "the memory is empty"},
    ], field_name="prompt")
    raw, _ = asyncio.run(client.to_native_prompt(messages))
    assert raw[2].get("tool_calls", "absent") is None or raw[2].get("reasoning_content", "absent") is None
    wrapped = _without_null_fields(client)
    assert _without_null_fields(wrapped) is wrapped and wrapped.client is client.client
    sent, _ = asyncio.run(wrapped.to_native_prompt(messages))
    assert sent[2] == {"role": "assistant", "content": "OK"}
    assert sent[3]["content"] is None and sent[3]["tool_calls"][0]["function"]["name"] == "list_memories"
    assert not [k for m in sent for k, v in m.items() if v is None and k != "content"]
    assert sent[4] == {"role": "tool", "tool_call_id": "c1", "content": "the memory is empty"}


@pytest.mark.slow
@v1_only
def test_v1_tool_server_starts_and_lists_the_tools(tmp_path):
    port_file = tmp_path / "port"
    env = dict(os.environ, MCP_PORT_FILE=str(port_file), VF_CONFIG="{}", VF_STATE_URL="")
    proc = subprocess.Popen([sys.executable, "-m", "memory_arena.envs.v1_tools"], cwd=tmp_path, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 90
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}).encode()
        answer = None
        while answer is None:
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            assert time.monotonic() < deadline, "tool server did not serve in 90 s"
            time.sleep(0.5)
            if not port_file.exists() or not port_file.read_text().strip():
                continue
            request = urllib.request.Request(
                f"http://127.0.0.1:{port_file.read_text().strip()}/mcp", data=body, method="POST",
                headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
            try:
                with urllib.request.urlopen(request, timeout=5) as response:
                    answer = json.loads(response.read())
            except OSError:
                continue
        tools = {t["name"]: t for t in answer["result"]["tools"]}
        assert set(tools) == {"store_memory", "retrieve_memory", "list_memories"}
        assert tools["store_memory"]["description"].startswith("Save one fact")
        assert set(tools["store_memory"]["inputSchema"]["required"]) == {"key", "value"}
    finally:
        proc.terminate()
        proc.wait(timeout=10)
