#!/usr/bin/env python3
"""Search latency of the in-process memory systems on one user's 200-turn history
(docs/design.md, "Performance targets": BM25 p50 < 2 ms, hybrid and timeline p50 < 20 ms; timeline's
first search after an Add within 2x of a repeated one, docs/timeline.md).

The history is the shipped tasks' turns, one task after another (each category in turn),
cut at `--turns` and sent as sessions of 20 messages; the queries are those tasks'
questions. Three figures per system: a search on the built index (`--searches` of them,
p50 and p95: the target applies here); the first search after the last 20 messages were
added to the other 180 (it pays the lazy index update; p50 over `--rebuilds` fresh users);
and that Add of 20 messages itself, with its `flush`.

    python benchmarks/search_latency.py [--systems bm25,hybrid,timeline] [--turns 200] [--searches 2000]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory_arena.systems import MissingExtra, build_system, check_name  # noqa: E402
from memory_arena.systems.base import Message  # noqa: E402
from memory_arena.systems.retrieval import percentile  # noqa: E402
from memory_arena.tasks.schema import CATEGORIES, load_tasks  # noqa: E402

TARGETS_MS = {"bm25": 2.0, "hybrid": 20.0, "timeline": 20.0}
FIRST_RATIO_TARGETS = {"timeline": 2.0}
"""Most the first search after an Add may take, as a multiple of a search on the built index."""
SESSION = 20


def history(turns: int) -> tuple[list[tuple[str, list[Message]]], list[str]]:
    """Sessions of one long conversation and the questions of the tasks it is made of."""
    by_category = {c: [t for t in load_tasks() if t.category == c] for c in CATEGORIES}
    messages: list[Message] = []
    questions: list[str] = []
    for i in range(max(len(v) for v in by_category.values())):
        for category in CATEGORIES:
            if len(messages) >= turns or i >= len(by_category[category]):
                continue
            task = by_category[category][i]
            questions.append(task.question)
            messages += [{"role": t.role, "content": t.content} for t in task.turns]
    messages = [{**m, "timestamp": 1_700_000_000_000 + 60_000 * n} for n, m in enumerate(messages[:turns])]
    sessions = [(str(s // SESSION), messages[s:s + SESSION]) for s in range(0, len(messages), SESSION)]
    return sessions, questions


def measure(name: str, sessions: list[tuple[str, list[Message]]], questions: list[str],
            searches: int, rebuilds: int, k: int) -> dict[str, float | None]:
    system = build_system(name)
    adds, firsts = [], []
    for r in range(rebuilds):
        user = f"user-{r}"
        for session_id, messages in sessions[:-1]:
            system.add(user, session_id, messages)
        system.flush(user)
        system.search(user, questions[r % len(questions)], k)  # builds the index of the first 180
        start = time.perf_counter()
        system.add(user, *sessions[-1])
        system.flush(user)  # as every caller does after an ingestion (MemorySystem.flush)
        adds.append(time.perf_counter() - start)
        start = time.perf_counter()
        system.search(user, questions[(r + 1) % len(questions)], k)
        firsts.append(time.perf_counter() - start)
    warm = []
    for i in range(searches):
        start = time.perf_counter()
        system.search("user-0", questions[i % len(questions)], k)
        warm.append(time.perf_counter() - start)
    system.close()

    def ms(values: list[float], q: float) -> float | None:
        p = percentile(values, q)
        return None if p is None else p * 1000

    return {"warm_p50": ms(warm, 50), "warm_p95": ms(warm, 95), "first_p50": ms(firsts, 50), "add_p50": ms(adds, 50)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", default="bm25,hybrid,timeline",
                        help="comma-separated built-in systems (default bm25,hybrid,timeline)")
    parser.add_argument("--turns", type=int, default=200, help="history length (default 200)")
    parser.add_argument("--searches", type=int, default=2000, help="searches on the built index (default 2000)")
    parser.add_argument("--rebuilds", type=int, default=30, help="fresh ingestions for the first-search figure (default 30)")
    parser.add_argument("--k", type=int, default=10, help="top_k (default 10)")
    args = parser.parse_args()
    if min(args.turns, args.searches, args.rebuilds, args.k) < 1:
        parser.error("--turns, --searches, --rebuilds and --k must be positive")
    names = [n.strip() for n in args.systems.split(",") if n.strip()]
    for name in names:
        try:
            check_name(name)
        except ValueError as exc:
            parser.error(str(exc))
    sessions, questions = history(args.turns)
    turns = sum(len(m) for _, m in sessions)
    print(f"Python {platform.python_version()}, {os.cpu_count()} cores; one user, {turns} turns "
          f"in {len(sessions)} sessions, top_k {args.k}")
    header = f"{'system':<14}{'search p50 ms':>15}{'search p95 ms':>15}{'search after Add p50':>22}" \
             f"{'Add+flush p50':>16}{'first/warm':>12}{'target':>18}{'met':>5}"
    print(header)
    print("-" * len(header))
    for name in names:
        try:
            r = measure(name, sessions, questions, args.searches, args.rebuilds, args.k)
        except (MissingExtra, RuntimeError) as exc:  # an extra not installed, a model that cannot be built
            sys.stderr.write(f"search_latency.py: error: {exc}\n")
            return 1
        target, ratio_target = TARGETS_MS.get(name), FIRST_RATIO_TARGETS.get(name)
        ratio = r["first_p50"] / r["warm_p50"]
        met = "" if target is None else ("yes" if r["warm_p50"] < target and ratio <= (ratio_target or ratio) else "NO")
        goal = "" if target is None else f"< {target:g} ms" + ("" if ratio_target is None else f", {ratio_target:g}x")
        print(f"{name:<14}{r['warm_p50']:>15.3f}{r['warm_p95']:>15.3f}{r['first_p50']:>22.3f}"
              f"{r['add_p50']:>16.3f}{ratio:>11.1f}x{goal:>18}{met:>5}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
