#!/usr/bin/env python3
"""What the verifiers environment itself costs, under the installed verifiers; prints a table.

    .venvs/v04/bin/python benchmarks/env_overhead.py            # verifiers 0.4 (v1 API)
    .venvs/v03/bin/python benchmarks/env_overhead.py            # verifiers 0.3 (classic API)
    ... env_overhead.py --rollouts 0                            # skip the vf-eval part

1. Cold start, each in a fresh interpreter (best of --repeat): `import memory_arena`, the
   verifiers import alone (for comparison), and `load_environment()` on all 500 shipped tasks
   (for v1 including building every task).
2. The environment's own work per rollout, in process (median of many): building one task's
   messages (full delivery) or parts (stream), one eviction pass over a streamed transcript,
   scoring one reply, one memory tool call.
3. End to end: `vf-eval` against the scripted model server (tests/scripted_server.py, which
   answers instantly) on --rollouts tasks, full delivery, one at a time (-c 1). The eval's own
   timing fields give the time per rollout spent outside the model: for 0.3 the env and
   scoring spans and the framework overhead; for 0.4 setup (runtime, chat program), the
   harness (chat program processes) and scoring.
Figures depend on the machine's load; the load average at the start is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from memory_arena.environment import verifiers_api  # noqa: E402
from memory_arena.envs import core  # noqa: E402
from memory_arena.memory_tools import MemoryStore  # noqa: E402
from memory_arena.tasks.schema import load_tasks  # noqa: E402

COLD = {
    "import memory_arena": "import memory_arena",
    "import verifiers (for comparison)": (
        "import verifiers.v1" if verifiers_api() == "v1" else "import verifiers as vf; vf.MultiTurnEnv; import datasets"
    ),
    "load_environment() (500 tasks)": (
        "from memory_arena import load_environment\n"
        "env = load_environment()\n"
        "n = len(list(env.taskset)) if hasattr(env, 'taskset') else len(env.get_eval_dataset())\n"
        "assert n == 500, n"
    ),
}


def cold(code: str, repeat: int) -> float:
    timer = "import time; _t = time.perf_counter()\n" + code + "\nprint(time.perf_counter() - _t)"
    runs = []
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", timer], cwd=ROOT, capture_output=True, text=True, check=True)
        runs.append(float(out.stdout.strip().splitlines()[-1]))
    return min(runs)


def per_call(fn, n: int) -> float:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def in_process() -> list[tuple[str, float]]:
    tasks = load_tasks()
    task = max(tasks, key=lambda t: len(t.turns))
    parts = core.chunk_texts(task, core.DEFAULT_CHUNK_TURNS)
    transcript = [{"role": "system", "content": "instructions"}]
    for part in parts:
        transcript += [{"role": "user", "content": part}, {"role": "assistant", "content": "OK"}]
    store = MemoryStore({})
    for i in range(50):
        store.store(f"key_{i}", "value " * 20)
    return [
        (f"build full-delivery messages ({len(task.turns)} turns)", per_call(lambda: core.full_messages(task), 2000)),
        (f"build streamed parts ({len(parts)} parts)", per_call(lambda: core.chunk_texts(task, core.DEFAULT_CHUNK_TURNS), 2000)),
        (f"evict one request ({len(transcript)} messages)", per_call(lambda: core.evict(transcript, core.DEFAULT_WINDOW), 2000)),
        ("score one reply", per_call(lambda: core.score_reply(task, f"It is {task.answer}."), 5000)),
        ("memory tool call (retrieve, 50 keys)", per_call(lambda: store.call("retrieve_memory", '{"key": "key_7"}'), 20000)),
    ]


def end_to_end(rollouts: int) -> list[tuple[str, float]]:
    from vf_eval_runner import ScriptedServer, run_vf_eval, script_entry

    from memory_arena.envs.vf_eval import output_files

    tasks = core.select_tasks(core.make_settings(num_examples=rollouts))
    with tempfile.TemporaryDirectory() as tmp:
        with ScriptedServer(Path(tmp) / "server", [script_entry(t, "right") for t in tasks]) as server:
            start = time.perf_counter()
            run_vf_eval(server, Path(tmp) / "out", rollouts, {}, concurrency=1)
            wall = time.perf_counter() - start
        rows = [json.loads(line) for line in output_files(Path(tmp) / "out")[0].read_text().splitlines()]
    out = [(f"vf-eval wall time, {rollouts} rollouts, -c 1 (incl. start-up)", wall)]
    if verifiers_api() == "v1":
        timing = [r["traces"][0]["timing"] for r in rows]
        setup = statistics.median(t["setup"]["end"] - t["setup"]["start"] for t in timing)
        harness = statistics.median(t["agent"]["harness"]["duration"] for t in timing)
        model = statistics.median(t["agent"]["model"]["duration"] for t in timing)
        scoring = statistics.median(t["scoring"]["end"] - t["scoring"]["start"] for t in timing)
        out += [("per rollout: setup (runtime, chat program)", setup), ("per rollout: harness (chat program)", harness),
                ("per rollout: model (scripted, instant)", model), ("per rollout: scoring", scoring)]
    else:
        timing = [r["timing"] for r in rows]
        out += [(f"per rollout: {name}", statistics.median(t[key]["duration"] if isinstance(t[key], dict) else t[key]
                                                           for t in timing))
                for name, key in (("env", "env"), ("scoring", "scoring"), ("framework overhead", "overhead"),
                                  ("model (scripted, instant)", "model"), ("total", "total"))]
    return out


def fmt(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds * 1e6:.1f} µs"


def main() -> int:
    parser = argparse.ArgumentParser(description="environment overhead table")
    parser.add_argument("--repeat", type=int, default=3, help="cold-start runs per row (best kept)")
    parser.add_argument("--rollouts", type=int, default=5, help="vf-eval rollouts (0 to skip)")
    args = parser.parse_args()
    if args.repeat < 1 or args.rollouts < 0:
        parser.error("--repeat must be >= 1 and --rollouts >= 0")
    from importlib.metadata import version

    print(f"verifiers {version('verifiers')} ({verifiers_api()} API), load average {os.getloadavg()[0]:.2f}")
    rows = [(f"cold: {name}", cold(code, args.repeat)) for name, code in COLD.items()]
    rows += in_process()
    if args.rollouts:
        rows += end_to_end(args.rollouts)
    width = max(len(name) for name, _ in rows)
    print(f"| {'measure'.ljust(width)} | time |")
    print(f"| {'-' * width} | ---: |")
    for name, seconds in rows:
        print(f"| {name.ljust(width)} | {fmt(seconds)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
