#!/usr/bin/env python3
"""Suite generation speed and memory against its targets (docs/suites.md); prints a table.

    python3 benchmarks/generate_suites.py                 # forget, long 32k, long 128k (the default)
    python3 benchmarks/generate_suites.py --with-512k     # and long 512k

Each case builds a suite and writes it to a temporary folder (`suites.write_suite`, what
`generator.py --suite` runs) in a fresh interpreter, so that its peak resident set size
(getrusage) is the case's alone. Target for the default long suite (10 histories of about 128k
tokens): < 30 s and < 500 MB peak. Wall and CPU time are both printed (on a shared machine they
differ), with the load average at the start. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, resource, sys, tempfile, time
from pathlib import Path
name, options = sys.argv[1], json.loads(sys.argv[2])
from memory_arena.suites import write_suite
with tempfile.TemporaryDirectory() as folder:
    wall, cpu = time.perf_counter(), time.process_time()
    counts = write_suite(Path(folder), name, **options)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    size = sum(p.stat().st_size for p in Path(folder).iterdir())
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (1 << 20 if sys.platform == "darwin" else 1 << 10)
print(json.dumps({"wall": wall, "cpu": cpu, "peak_mb": peak, "tasks": sum(counts.values()), "mb": size / 1e6}))
"""

CASES = [("forget, 3 x 100 tasks (default)", "forget", {}, None),
         ("long, 10 x 32k tokens", "long", {"tokens": 32_000}, None),
         ("long, 10 x 128k tokens (default)", "long", {}, (30.0, 500.0)),
         ("long, 10 x 512k tokens", "long", {"tokens": 512_000}, None)]


def measure(name: str, options: dict) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run([sys.executable, "-c", CHILD, name, json.dumps(options)], env=env, cwd=ROOT,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--with-512k", action="store_true", help="also the 512k-token long suite (about 2 GB written)")
    args = parser.parse_args(argv)
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    head = f"{'case':<36}{'tasks':>7}{'written MB':>12}{'wall s':>9}{'CPU s':>8}{'peak MB':>9}  target"
    print(head)
    print("-" * len(head))
    for label, name, options, target in CASES:
        if options.get("tokens") == 512_000 and not args.with_512k:
            continue
        r = measure(name, options)
        verdict = ""
        if target:
            ok = r["wall"] < target[0] and r["peak_mb"] < target[1]
            verdict = f"< {target[0]:.0f} s, < {target[1]:.0f} MB: {'met' if ok else 'MISSED'}"
        print(f"{label:<36}{r['tasks']:>7}{r['mb']:>12.1f}{r['wall']:>9.2f}{r['cpu']:>8.2f}{r['peak_mb']:>9.0f}  {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
