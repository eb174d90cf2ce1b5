#!/usr/bin/env python3
"""Run the offline baselines over a MemoryArena dataset and print their reports.

    python3 examples/run_offline.py                      # all baselines, shipped 500 tasks
    python3 examples/run_offline.py --baselines latest-fact,hedge --json results.json
    python3 examples/run_offline.py --suite forget       # an optional suite, generated in memory

No network, no keys, standard library only. Each baseline reads the tasks' event logs (never
the answers), replies in plain text, and goes through the real scorer and metrics.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

try:
    import memory_arena  # noqa: F401  (installed, or run from anywhere with the repo on the path)
except ImportError:  # running from a fresh clone: the package sits next to this folder
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory_arena.baselines import BASELINE_NAMES, make_baseline
from memory_arena.suites import SUITE_NAMES, generate_suite
from memory_arena.cli import UsageParser, comma_list, file_in_the_way
from memory_arena.tasks.schema import DatasetError, load_tasks
from memory_arena.verifier.metrics import build_report, format_report


def main(argv: list[str] | None = None) -> int:
    parser = UsageParser(prog="run_offline.py", description="Offline baselines through the real MemoryArena scorer.")
    parser.add_argument("--baselines", type=comma_list(BASELINE_NAMES, "baseline"), default=list(BASELINE_NAMES), metavar="A,B",
                        help="comma-separated subset of " + ",".join(BASELINE_NAMES))
    parser.add_argument("--data", type=Path, default=None, help="dataset folder (default: the shipped dataset)")
    parser.add_argument("--json", type=Path, default=None, metavar="PATH", help="also write {baseline: report} as JSON")
    parser.add_argument("--seed", type=int, default=0, help="seed of random-candidate (default %(default)s)")
    parser.add_argument("--suite", choices=SUITE_NAMES, default=None,
                        help="generate this suite in memory with its defaults (docs/suites.md) instead of reading --data")
    args = parser.parse_args(argv)
    if args.suite is not None and args.data is not None:
        parser.error("give --suite or --data, not both")
    if args.json is not None:
        problem = _unwritable(args.json)  # fail before the run, not after it
        if problem:
            return _error(f"cannot write {args.json}: {problem}")
    try:
        tasks = load_tasks(args.data) if args.suite in (None, "canonical") else _suite_tasks(args.suite)
    except DatasetError as exc:
        return _error(str(exc))
    reports = {}
    for name in args.baselines:
        baseline = make_baseline(name, tasks, seed=args.seed)
        reports[name] = build_report((task, baseline(task)) for task in tasks)
        print(format_report(reports[name], title=f"== {name} =="))
        print()
    print(summary_table(reports) if any(r["memory_score"]["categories"] for r in reports.values())
          else suite_table(reports))
    if args.json is not None:
        try:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(reports, indent=2) + "\n", encoding="utf-8")
        except OSError as exc:
            return _error(f"cannot write {args.json}: {exc.strerror or exc}")
        print(f"\nwrote {args.json}")
    return 0


def _error(message: str) -> int:
    sys.stderr.write(f"run_offline.py: error: {message}\n")
    return 2


def _unwritable(path: Path) -> str | None:
    """Why `path` cannot become a file, or None: it is a folder, or a parent is a file."""
    if path.is_dir():
        return "it is a folder"
    blocker = file_in_the_way(path.parent)
    return None if blocker is None else f"{blocker} is a file, not a folder"


def summary_table(reports: dict) -> str:
    """One row per baseline: Memory Score, then accuracy per category and the stale rate."""
    cats = ("recall", "update", "contradiction", "temporal", "relational")
    head = f"{'baseline':<18}{'Memory':>8}" + "".join(f"{c[:7]:>9}" for c in cats) + f"{'stale':>8}"
    rows = [head, "-" * len(head)]
    for name, report in reports.items():
        cells = "".join(f"{_pct(report['categories'][c]['accuracy']):>9}" for c in cats)
        rows.append(f"{name:<18}{_pct(report['memory_score']['value']):>8}{cells}{_pct(report['stale_rate']['value']):>8}")
    return "\n".join(rows)


def _suite_tasks(name: str) -> list:
    print(f"generating the {name} suite in memory ...", file=sys.stderr, flush=True)
    return generate_suite(name)


def suite_table(reports: dict) -> str:
    """One row per baseline over a suite: accuracy over all its tasks, per file, and the paired
    score (forget) or the accuracy by token distance (long)."""
    first = next(iter(reports.values()))["suites"]
    name, sample = next(iter(first.items()))
    files = list(sample["files"])
    extra = ["paired"] if "paired" in sample else [k for k, c in sample.get("distance", {}).items() if c["n"]]
    head = f"{'baseline':<18}{'all':>8}" + "".join(f"{f[:9]:>11}" for f in files) + "".join(f"{e:>9}" for e in extra)
    rows = [f"suite {name} (apart from the Memory Score)", head, "-" * len(head)]
    for baseline, report in reports.items():
        suite = report["suites"][name]
        cells = "".join(f"{_pct(suite['files'][f]['accuracy']):>11}" for f in files)
        if "paired" in suite:
            cells += f"{_pct(suite['paired']['score']):>9}"
        else:
            cells += "".join(f"{_pct(suite['distance'][e]['accuracy']):>9}" for e in extra)
        rows.append(f"{baseline:<18}{_pct(suite['all']['accuracy']):>8}{cells}")
    return "\n".join(rows)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


if __name__ == "__main__":
    raise SystemExit(main())
