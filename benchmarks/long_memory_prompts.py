#!/usr/bin/env python3
"""What a shared ingest saves under `memory_system` delivery on the `long` suite
(docs/suites.md, "long"); prints a table.

    python3 benchmarks/long_memory_prompts.py                    # bm25, the first history of the default suite
    python3 benchmarks/long_memory_prompts.py --system grep --histories 2

Builds the prompt of every question of the first `--histories` histories (10 x 128k default
suite, 50 questions each) twice with a fresh system each time: once ingesting the history for
each question (`systems.retrieve_for_task`, what every task got before), once through
`suites.shared` (one ingest per history, as the environment does now), and checks that both
show the same memories. Wall times on whatever else the machine runs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory_arena.envs import core  # noqa: E402
from memory_arena.suites import generate_suite, shared  # noqa: E402
from memory_arena.systems import build_system, retrieve_for_task  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--system", default="bm25", help="a built-in memory system (default bm25)")
    parser.add_argument("--histories", type=int, default=1, help="histories of the default long suite (default 1)")
    parser.add_argument("--k", type=int, default=10, help="memories shown per question (default 10)")
    args = parser.parse_args(argv)
    tasks = generate_suite("long", histories=args.histories)
    rows = []
    shown = {}
    for label, retrieve in (("ingest per question", retrieve_for_task), ("shared ingest", shared.retrieve)):
        system = build_system(args.system)
        start = time.perf_counter()
        shown[label] = [core.memory_messages(t, retrieve(system, t, args.k)) for t in tasks]
        rows.append((label, time.perf_counter() - start))
    same = shown["ingest per question"] == shown["shared ingest"]
    head = f"{'prompts of ' + str(len(tasks)) + ' questions (' + args.system + ')':<44}{'wall s':>9}{'per question ms':>17}"
    print(head)
    print("-" * len(head))
    for label, seconds in rows:
        print(f"{label:<44}{seconds:>9.2f}{1000 * seconds / len(tasks):>17.1f}")
    print(f"same memories shown: {'yes' if same else 'NO'}; speed-up {rows[0][1] / rows[1][1]:.1f}x")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
