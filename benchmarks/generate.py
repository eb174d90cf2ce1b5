#!/usr/bin/env python3
"""Generator speed and memory against its targets (docs/design.md, "Performance targets"); prints a table.

    python3 benchmarks/generate.py              # both cases
    python3 benchmarks/generate.py --skip-large # the default 500 tasks only

(a) the default dataset, 5 categories x 100 tasks, built and written to a temporary folder:
    target < 0.5 s. Measured inside a fresh interpreter, excluding its start-up and imports,
    best of --repeat runs (the least disturbed by other load); the full `python3 generator.py`
    wall time, start-up included, is shown beside it for reference.
(b) 10,000 tasks at depth 1,000 (`--n 2000 --max-noise 1000`, 5 x 2,000) written to a
    temporary folder: target < 30 s and < 500 MB peak memory (the child process's peak
    resident set size, from getrusage). One run.

Each case runs in its own subprocess so that peak memory is that of the case alone. CPU time
is printed next to wall time: on a shared machine the two differ, and the load average at
the start is printed for the same reason. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Run in the child: build and write one dataset, report times and peak memory as JSON.
CHILD = r"""
import json, resource, sys, tempfile, time
from pathlib import Path
n, max_noise = int(sys.argv[1]), int(sys.argv[2])
from memory_arena.tasks import write_dataset
with tempfile.TemporaryDirectory() as folder:
    wall, cpu = time.perf_counter(), time.process_time()
    counts = write_dataset(Path(folder), n=n, max_noise=max_noise)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    size = sum(p.stat().st_size for p in Path(folder).iterdir())
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (1 << 20 if sys.platform == "darwin" else 1 << 10)
print(json.dumps({"wall": wall, "cpu": cpu, "peak_mb": peak, "tasks": sum(counts.values()), "mb": size / 1e6}))
"""


def measure(n: int, max_noise: int) -> dict:
    """One fresh interpreter builds and writes `n` tasks per category."""
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run([sys.executable, "-c", CHILD, str(n), str(max_noise)], env=env, cwd=ROOT,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def cli_wall() -> float:
    """`python3 generator.py` end to end (interpreter start-up included), default arguments."""
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        subprocess.run([sys.executable, str(ROOT / "generator.py"), "--out", folder], cwd=ROOT,
                       capture_output=True, check=True)
        return time.perf_counter() - start


def table(rows: list[tuple[str, str, str, bool | None]]) -> str:
    width = max(len(r[0]) for r in rows)
    lines = [f"{'measure':<{width}}  {'value':>10}  {'target':>8}  ok"]
    for name, value, target, ok in rows:
        verdict = "" if ok is None else ("yes" if ok else "NO")
        lines.append(f"{name:<{width}}  {value:>10}  {target:>8}  {verdict}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of the default case; the best counts (default 3)")
    parser.add_argument("--skip-large", action="store_true", help="skip the 10,000-task case")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average at start "
          f"{os.getloadavg()[0]:.2f}\n")

    small = [measure(100, 100) for _ in range(args.repeat)]
    wall = min(r["wall"] for r in small)
    rows = [
        (f"(a) 500 tasks, build + write (s, best of {args.repeat})", f"{wall:.3f}", "< 0.5", wall < 0.5),
        (f"    CPU time (s, best of {args.repeat})", f"{min(r['cpu'] for r in small):.3f}", "", None),
        (f"    python3 generator.py wall, start-up included (s, best of {args.repeat})",
         f"{min(cli_wall() for _ in range(args.repeat)):.3f}", "", None),
        ("    peak memory (MB)", f"{max(r['peak_mb'] for r in small):.0f}", "", None),
    ]
    if not args.skip_large:
        large = measure(2000, 1000)
        assert large["tasks"] == 10_000, large
        rows += [
            ("(b) 10,000 tasks at depth 1,000, build + write (s)", f"{large['wall']:.1f}", "< 30", large["wall"] < 30),
            ("    CPU time (s)", f"{large['cpu']:.1f}", "", None),
            ("    peak memory (MB)", f"{large['peak_mb']:.0f}", "< 500", large["peak_mb"] < 500),
            ("    output size (MB)", f"{large['mb']:.0f}", "", None),
        ]
    print(table(rows))
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}; with other work on the machine, wall time "
          "exceeds CPU time and the CPU figure is the better estimate of an idle run")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
