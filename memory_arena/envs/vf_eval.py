"""The `vf-eval` command line for this environment under the installed verifiers, where that
command writes its results, and `read_rollouts`, which reads either format back as one
`Rollout` per rollout (task id, reward, metrics, errors). Used by `examples/compare_memory.py`
and the end-to-end tests. v1 `vf-eval` exits 0 even when rollouts fail: look at `errors`.

The two versions spell the same run differently: 0.4 (v1) takes the endpoint as
`--client.base-url` / `--client.api-key-var`, the environment arguments as
`--env.taskset.<field> <value>` flags and pushes results unless `--no-push`; it writes
`<output_dir>/<run>/traces.jsonl`. 0.3 (classic) takes `-b` / `-k`, the arguments as one JSON
object after `-a`, saves only with `-s`, and writes
`<output_dir>/evals/memory-arena--<model>/<run>/results.jsonl` (+ `metadata.json`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory_arena.environment import verifiers_api

ENV_ID = "memory-arena"


@dataclass
class Rollout:
    """One rollout as the eval recorded it; `reward` is None when scoring did not run."""

    task_id: str | None
    reward: float | None
    metrics: dict[str, float | None] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def command(base_url: str, model: str, api_key_var: str, num_examples: int, env_args: dict[str, Any],
            output_dir: str | Path, rollouts: int = 1, concurrency: int | None = None,
            vf_eval: str = "vf-eval") -> list[str]:
    """argv of one `vf-eval` run; `vf_eval` is the executable to call."""
    if verifiers_api() == "v1":
        cmd = [vf_eval, ENV_ID, "-m", model, "--client.base-url", base_url, "--client.api-key-var", api_key_var,
               "-n", str(num_examples), "-r", str(rollouts), "--no-push", "-o", str(output_dir)]
        for key, value in env_args.items():
            cmd += [f"--env.taskset.{key.replace('_', '-')}", value if isinstance(value, str) else json.dumps(value)]
    else:
        cmd = [vf_eval, ENV_ID, "-m", model, "-b", base_url, "-k", api_key_var, "-n", str(num_examples),
               "-r", str(rollouts), "-s", "-d", "-o", str(output_dir), "-a", json.dumps(env_args)]
    if concurrency is not None:
        cmd += ["-c", str(concurrency)]
    return cmd


def output_files(output_dir: str | Path) -> list[Path]:
    """The result files of every run under `output_dir` (v1: traces.jsonl, classic: results.jsonl)."""
    name = "traces.jsonl" if verifiers_api() == "v1" else "results.jsonl"
    return sorted(Path(output_dir).rglob(name))


def read_rollouts(out: str | Path) -> list[Rollout]:
    """The rollouts of the one run under `out`."""
    files = output_files(out)
    if len(files) != 1:
        raise ValueError(f"expected one vf-eval result file under {out}, found {len(files)}")
    lines = [json.loads(line) for line in files[0].read_text(encoding="utf-8").splitlines() if line.strip()]
    return [v1_rollout(line) if verifiers_api() == "v1" else classic_rollout(line) for line in lines]


# One reading of each on-disk format, shared with `memory_arena.results`.
def v1_rollout(episode: dict[str, Any]) -> Rollout:
    """One line of a verifiers 0.4 `traces.jsonl`: `{ok, errors, task: {data}, traces: [...]}`.
    The reward is the weighted sum of the trace's rewards; None when there is no trace or a
    reward did not run. An episode marked not ok always carries at least one error."""
    data = (episode.get("task") or {}).get("data") or {}
    traces = episode.get("traces") or []
    trace = traces[-1] if traces else {}
    errors = [str(e.get("message", e)) for e in [*(episode.get("errors") or []), *(trace.get("errors") or [])]]
    if not traces:
        errors = errors or ["no trace"]
    elif episode.get("ok") is False and not errors:
        errors = ["episode not ok"]
    rewards = list((trace.get("rewards") or {}).values())
    complete = rewards and all(isinstance(r, dict) and r.get("score") is not None for r in rewards)
    reward = sum(r["score"] * r.get("weight", 1.0) for r in rewards) if complete else None
    task_id = data.get("id") or (trace.get("info") or {}).get("task_id")
    return Rollout(task_id, reward, dict(trace.get("metrics") or {}), errors)


def classic_info(row: dict[str, Any]) -> dict[str, Any]:
    """A 0.3 row's `info`: `datasets` stores it as a JSON string when rows differ in shape."""
    info = row.get("info") or {}
    if isinstance(info, str):
        info = json.loads(info) if info.strip().startswith("{") else {}
    return info


def classic_rollout(row: dict[str, Any]) -> Rollout:
    """One line of a verifiers 0.3 `results.jsonl`: `{info, reward, metrics, error, ...}`."""
    error = row.get("error")
    return Rollout(classic_info(row).get("task_id"), row.get("reward"), dict(row.get("metrics") or {}),
                   [str(error)] if error else [])
