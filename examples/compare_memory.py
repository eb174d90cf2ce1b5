#!/usr/bin/env python3
"""No Memory Tool vs Memory Tool (docs/design.md, "Delivery modes") on any OpenAI-compatible endpoint.

Runs `vf-eval memory-arena` twice with the installed verifiers (0.4 or 0.3), once without and
once with the memory tools, on the same tasks and delivery (streamed with the default window
unless told otherwise), then prints one table: Memory Score and accuracy per category (from
the eval's own outputs, re-scored by the verifier through `memory_arena.results`), the stale
rate, the errored rollouts, and the agent's tool use.

    python examples/compare_memory.py --base-url http://127.0.0.1:8000/v1 --model my-model -n 50
    OPENAI_API_KEY=... python examples/compare_memory.py --base-url https://api.openai.com/v1 \\
        --model gpt-4.1-mini --delivery stream --chunk-turns 8 --window 1 -n 100

The two eval output folders stay under --out for `memory-arena report`.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run from a checkout without installing the package
    sys.path.insert(0, str(ROOT))

from memory_arena.cli import UsageParser, positive_int  # noqa: E402
from memory_arena.envs import core, vf_eval  # noqa: E402
from memory_arena.results import load_results  # noqa: E402
from memory_arena.tasks.schema import CATEGORIES  # noqa: E402

ARMS = (("No Memory Tool", False), ("Memory Tool", True))


def _pct(value) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _vf_eval_executable() -> str:
    """The vf-eval next to this interpreter (a venv), else the one on PATH."""
    local = Path(sys.executable).parent / "vf-eval"
    found = str(local) if local.exists() else shutil.which("vf-eval")
    if found is None:
        raise SystemExit("compare_memory: vf-eval not found; install verifiers (pip install 'verifiers>=0.3.1,<0.5')")
    return found


def main() -> int:
    parser = UsageParser(prog="compare_memory.py", description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", required=True, help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--model", required=True, help="model name the endpoint serves")
    parser.add_argument("--api-key-var", default="OPENAI_API_KEY", help="environment variable holding the API key")
    parser.add_argument("-n", "--num-examples", type=positive_int, default=20, help="tasks (categories interleaved)")
    parser.add_argument("--delivery", choices=core.DELIVERIES, default="stream")
    parser.add_argument("--chunk-turns", type=positive_int, default=core.DEFAULT_CHUNK_TURNS)
    parser.add_argument("--window", type=positive_int, default=core.DEFAULT_WINDOW)
    parser.add_argument("-c", "--concurrency", type=int, default=None, help="rollouts in flight")
    parser.add_argument("--out", default="outputs/compare_memory", help="folder for the two eval outputs")
    args = parser.parse_args()
    try:
        core.make_settings(delivery=args.delivery, num_examples=args.num_examples, chunk_turns=args.chunk_turns,
                           window=args.window)
    except ValueError as exc:
        parser.error(str(exc))
    if args.api_key_var not in os.environ:
        os.environ[args.api_key_var] = "unused"  # local servers often need no key; vf-eval wants the variable

    executable = _vf_eval_executable()
    rows = []
    for label, memory_tool in ARMS:
        out = Path(args.out) / label.lower().replace(" ", "_")
        if out.exists():
            shutil.rmtree(out)
        env_args = {"memory_tool": memory_tool, "delivery": args.delivery}
        if args.delivery == "stream":
            env_args.update(chunk_turns=args.chunk_turns, window=args.window)
        cmd = vf_eval.command(args.base_url, args.model, args.api_key_var, args.num_examples, env_args, out,
                              concurrency=args.concurrency, vf_eval=executable)
        print(f"== {label}: {' '.join(cmd)}", file=sys.stderr)
        if subprocess.run(cmd, stdout=sys.stderr).returncode != 0:  # keep stdout for the table
            print(f"compare_memory: vf-eval failed for {label}", file=sys.stderr)
            return 1
        (run,) = load_results(out)
        rollouts = vf_eval.read_rollouts(out)
        calls = [r.metrics.get("memory_tool_calls") or 0.0 for r in rollouts if not r.errors]
        keys = [r.metrics.get("memory_keys_stored") or 0.0 for r in rollouts if not r.errors]
        evicted = [r.metrics.get("evidence_evicted") or 0.0 for r in rollouts if not r.errors]
        rows.append((label, run, statistics.fmean(calls or [0.0]), statistics.fmean(keys or [0.0]),
                     statistics.fmean(evicted or [0.0])))

    head = ["run", "n", "err", "Memory Score", *CATEGORIES, "stale %", "evicted %", "tool calls", "keys"]
    print(f"\n{args.model}, {args.delivery} delivery"
          + (f" (chunk_turns={args.chunk_turns}, window={args.window})" if args.delivery == "stream" else ""))
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
    for label, run, calls, keys, evicted in rows:
        report = run.report
        cells = [label, str(report["n"]), str(run.errored), _pct(report["memory_score"]["value"])]
        cells += [_pct(report["categories"][c]["accuracy"]) for c in CATEGORIES]
        cells += [_pct(report["stale_rate"]["value"]), _pct(evicted), f"{calls:.1f}", f"{keys:.1f}"]
        print("| " + " | ".join(cells) + " |")
    for label, run, *_ in rows:
        for caveat in run.caveats():
            print(f"note ({label}): {caveat}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
