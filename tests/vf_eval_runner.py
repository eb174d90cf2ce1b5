"""Test support: run the real `vf-eval` CLI of the active verifiers against the scripted
server (`scripted_server.py`) and read the eval's own output files back.

Both verifiers versions are driven through their own CLI flags; `read_rollouts` turns either
output format into one `Rollout` per task so the tests can check every reward. v1 `vf-eval`
exits 0 even when rollouts fail, so `Rollout.errors` carries the errors of the output.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from memory_arena.envs import core
from memory_arena.environment import verifiers_api
from memory_arena.tasks.schema import Task

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
KEY_VAR = "MEMORY_ARENA_TEST_KEY"
MODEL = "scripted"


@dataclass
class Rollout:
    task_id: str
    reward: float | None
    metrics: dict[str, float | None] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


class ScriptedServer:
    """The scripted OpenAI-compatible server as a subprocess on 127.0.0.1."""

    def __init__(self, workdir: Path, entries: list[dict[str, Any]], *flags: str) -> None:
        self.workdir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self.script = workdir / "script.json"
        self.record = workdir / "requests.jsonl"
        self.port_file = workdir / "port"
        self.script.write_text(json.dumps(entries), encoding="utf-8")
        self.flags = flags
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


def vf_eval_command(url: str, out: Path, num_examples: int, args: dict[str, Any], concurrency: int | None) -> list[str]:
    """The vf-eval command line of the active verifiers version for these env arguments."""
    if verifiers_api() == "v1":
        cmd = [str(BIN / "vf-eval"), "memory-arena", "-m", MODEL, "--client.base-url", url,
               "--client.api-key-var", KEY_VAR, "-n", str(num_examples), "-r", "1", "--no-push", "-o", str(out)]
        for key, value in args.items():
            cmd += [f"--env.taskset.{key.replace('_', '-')}", json.dumps(value) if not isinstance(value, str) else value]
        if concurrency is not None:
            cmd += ["-c", str(concurrency)]
        return cmd
    cmd = [str(BIN / "vf-eval"), "memory-arena", "-m", MODEL, "-b", url, "-k", KEY_VAR, "-n", str(num_examples),
           "-r", "1", "-s", "-d", "-o", str(out), "-a", json.dumps(args)]
    if concurrency is not None:
        cmd += ["-c", str(concurrency)]
    return cmd


def run_vf_eval(server: ScriptedServer, out: Path, num_examples: int, args: dict[str, Any],
                concurrency: int | None = None, timeout: float = 900) -> list[Rollout]:
    """Run vf-eval as a subprocess, fail on a non-zero exit, return the rollouts it wrote."""
    env = dict(os.environ, **{KEY_VAR: "scripted-key"})
    # The v1 chat harness and tool servers are started through this venv's tools (uv, python).
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    cmd = vf_eval_command(server.url, out, num_examples, args, concurrency)
    proc = subprocess.run(cmd, cwd=server.workdir, env=env, capture_output=True, text=True, timeout=timeout)
    log = f"$ {' '.join(cmd)}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    (server.workdir / "vf-eval.log").write_text(log, encoding="utf-8")
    if proc.returncode != 0:
        raise AssertionError(f"vf-eval exited {proc.returncode}:\n{log}")
    return read_rollouts(out)


def output_files(out: Path) -> list[Path]:
    """The per-run result files vf-eval wrote under `out` (v1: traces.jsonl, classic: results.jsonl)."""
    name = "traces.jsonl" if verifiers_api() == "v1" else "results.jsonl"
    return sorted(out.rglob(name))


def read_rollouts(out: Path) -> list[Rollout]:
    files = output_files(out)
    if len(files) != 1:
        raise AssertionError(f"expected one result file under {out}, found {files}")
    lines = [json.loads(line) for line in files[0].read_text(encoding="utf-8").splitlines() if line.strip()]
    return [_v1_rollout(line) if verifiers_api() == "v1" else _classic_rollout(line) for line in lines]


def _v1_rollout(episode: dict[str, Any]) -> Rollout:
    errors = [e.get("message", "") for e in episode.get("errors") or []]
    traces = episode.get("traces") or []
    if not traces:
        return Rollout(episode["task"]["data"]["id"], None, {}, errors or ["no trace"])
    trace = traces[0]
    errors += [e.get("message", "") for e in trace.get("errors") or []]
    rewards = [r for r in (trace.get("rewards") or {}).values()]
    reward = None if not rewards or any(r is None for r in rewards) else sum(r["score"] * r["weight"] for r in rewards)
    return Rollout(episode["task"]["data"]["id"], reward, dict(trace.get("metrics") or {}), errors)


def _classic_rollout(row: dict[str, Any]) -> Rollout:
    info = row["info"] if isinstance(row["info"], dict) else json.loads(row["info"])
    error = row.get("error")
    return Rollout(info["task_id"], row.get("reward"), dict(row.get("metrics") or {}), [str(error)] if error else [])


def by_task(rollouts: Iterable[Rollout]) -> dict[str, Rollout]:
    out: dict[str, Rollout] = {}
    for rollout in rollouts:
        assert rollout.task_id not in out, f"two rollouts for {rollout.task_id}"
        out[rollout.task_id] = rollout
    return out


def visible_texts(task: Task, chunk_turns: int, window: int) -> str:
    """What stays in view of a streamed task at its question (the last `window` parts)."""
    return "\n".join(core.chunk_texts(task, chunk_turns)[-window:])
