"""Test support: the scripted server as a subprocess (in strict mode unless asked otherwise:
it refuses what llama.cpp and other strict OpenAI-compatible servers refuse, so nothing the
environment sends can trip one), and the real `vf-eval` CLI of the active verifiers run
against it, its own output files read back through `memory_arena.envs.vf_eval` (one `Rollout`
per rollout, errors included: v1 `vf-eval` exits 0 even when rollouts fail).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterable

from memory_arena.envs import core, vf_eval
from memory_arena.tasks.schema import Task
from scripted_server import answer_text

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
KEY_VAR = "MEMORY_ARENA_TEST_KEY"
MODEL = "scripted"


class ScriptedServer:
    """The scripted OpenAI-compatible server as a subprocess on 127.0.0.1."""

    def __init__(self, workdir: Path, entries: list[dict[str, Any]], *flags: str, strict: bool = True) -> None:
        self.workdir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self.script = workdir / "script.json"
        self.record = workdir / "requests.jsonl"
        self.port_file = workdir / "port"
        self.script.write_text(json.dumps(entries), encoding="utf-8")
        self.flags = (*flags, "--strict") if strict else flags
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> "ScriptedServer":
        self.proc = subprocess.Popen(
            [sys.executable, str(HERE / "scripted_server.py"), "--script", str(self.script),
             "--record", str(self.record), "--port-file", str(self.port_file), *self.flags],
        )
        deadline = time.monotonic() + 30
        while not self.port_file.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("scripted server did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: Any) -> None:
        assert self.proc is not None
        self.proc.terminate()
        self.proc.wait(timeout=10)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port_file.read_text().strip()}/v1"

    def records(self) -> list[dict[str, Any]]:
        """Every request received, in arrival order: {"path", "body"} (body None for GET)."""
        if not self.record.exists():
            return []
        return [json.loads(line) for line in self.record.read_text(encoding="utf-8").splitlines()]

    def requests(self) -> list[dict[str, Any]]:
        """The bodies of the chat completion requests."""
        return [r["body"] for r in self.records() if r["path"].endswith("/chat/completions")]


def script_entry(task: Task, mode: str, stale: str | None = None) -> dict[str, Any]:
    """The script line for one task: its question, a marker that stays in view (its last
    long user turn) and what to answer in `mode`."""
    marker = next(t.content for t in reversed(task.turns) if t.role == "user" and len(t.content) > 20)
    wrong = stale if stale is not None else (task.stale or task.distractors)[-1]
    return {"question": task.question, "marker": marker, "answer": task.answer, "stale": wrong, "mode": mode}


def run_vf_eval(server: ScriptedServer, out: Path, num_examples: int, args: dict[str, Any],
                concurrency: int | None = None, timeout: float = 900, rollouts: int = 1) -> list[vf_eval.Rollout]:
    """Run vf-eval as a subprocess, fail on a non-zero exit, return the rollouts it wrote."""
    env = dict(os.environ, **{KEY_VAR: "scripted-key"})
    # The v1 chat harness and tool servers are started through this venv's tools (uv, python).
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    cmd = vf_eval.command(server.url, MODEL, KEY_VAR, num_examples, args, out, rollouts=rollouts,
                          concurrency=concurrency, vf_eval=str(BIN / "vf-eval"))
    proc = subprocess.run(cmd, cwd=server.workdir, env=env, capture_output=True, text=True, timeout=timeout)
    log = f"$ {' '.join(cmd)}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    (server.workdir / "vf-eval.log").write_text(log, encoding="utf-8")
    if proc.returncode != 0:
        raise AssertionError(f"vf-eval exited {proc.returncode}:\n{log}")
    return vf_eval.read_rollouts(out)


def by_task(rollouts: Iterable[vf_eval.Rollout]) -> dict[str, vf_eval.Rollout]:
    out: dict[str, vf_eval.Rollout] = {}
    for rollout in rollouts:
        assert rollout.task_id not in out, f"two rollouts for {rollout.task_id}"
        out[rollout.task_id] = rollout
    return out


def visible_texts(task: Task, settings: core.Settings) -> str:
    """What stays in view of a streamed task at its question (the last `window` parts)."""
    return "\n".join(core.stream_parts(task, settings)[-settings.window:])


def scripted_reply(text: str, settings: core.Settings) -> str:
    """What the scripted model says at the question when it means `text` under these settings."""
    return answer_text(text, core.system_prompt(settings))
