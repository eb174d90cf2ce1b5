#!/usr/bin/env python3
"""LongMemEval-S-sized import through `memory-arena bench` (docs/datasets.md, "Scale": each
system under 5 minutes on 2 cores, in bounded memory).

Writes a synthetic file in the exact `longmemeval_s` format, as large as the real one by
default: 500 questions, each with its own haystack of about 50 sessions of about 10 turns
(drawn from 40 to 60 and 8 to 12), turns of about `--words` words (user turns shorter,
assistant turns longer, as in LongMemEval), one to three gold sessions each with one
`has_answer` turn, every tenth question an `_abs` abstention one. The text is drawn from a
seeded local RNG over the words of the shipped dataset, so the same arguments give the same
file.
The file is written one question at a time, never held whole.

Then, for each system, the real command `memory-arena bench --system NAME --dataset
longmemeval:FILE` runs as a child process (its progress bar on stderr); the table gives its
wall time and CPU time (user + system: on a machine shared with other work the CPU time is
the steadier figure), its peak resident memory (the child's own, from wait4) and the session
recall it reports. The figures only show that the run completes in time and memory: on random words,
recall measures nothing about the systems.

    python benchmarks/import_scale.py [--systems bm25,hybrid] [--questions 500] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memory_arena.importers.longmemeval import QUESTION_TYPES  # noqa: E402
from memory_arena.tasks.schema import load_tasks  # noqa: E402

START = datetime(2023, 1, 2, 9, 0)


def vocabulary() -> list[str]:
    """The distinct words of the shipped dataset's conversations, sorted: English words, so that
    tokenisers and embedding models see text of the usual shape (random letter strings split
    into several sub-word tokens each and would make the dense half look several times slower)."""
    words = {w for task in load_tasks() for turn in task.turns for w in turn.content.split() if w.isalpha()}
    return sorted(words)


def question_record(rng: random.Random, words: list[str], index: int, sessions: int, turns: int,
                    turn_words: int) -> dict:
    """One synthetic question in LongMemEval's format (see the module docstring)."""
    n_sessions = rng.randint(int(sessions * 0.8), int(sessions * 1.2))
    gold = set(rng.sample(range(n_sessions), rng.randint(1, 3)))
    fact = " ".join(rng.choices(words, k=6))
    day = START + timedelta(days=rng.randint(0, 300))
    ids, dates, haystack = [], [], []
    for s in range(n_sessions):
        sid = f"answer_{index:04d}_{s}" if s in gold else f"noise_{index:04d}_{s}"
        when = day + timedelta(hours=7 * s, minutes=rng.randint(0, 59))
        session = []
        for t in range(rng.randint(int(turns * 0.8), int(turns * 1.2))):
            role = "user" if t % 2 == 0 else "assistant"
            length = max(3, int(rng.gauss(turn_words * (0.5 if role == "user" else 1.5), turn_words / 4)))
            turn = {"role": role, "content": " ".join(rng.choices(words, k=length))}
            if s in gold and t == 0:
                turn = {"role": "user", "content": f"{turn['content']} {fact}", "has_answer": True}
            session.append(turn)
        ids.append(sid)
        dates.append(when.strftime("%Y/%m/%d (%a) %H:%M"))
        haystack.append(session)
    asked = day + timedelta(hours=7 * n_sessions + 1)
    return {
        "question_id": f"synth{index:04d}" + ("_abs" if index % 10 == 9 else ""),
        "question_type": QUESTION_TYPES[index % len(QUESTION_TYPES)],
        "question": f"What did I say about {' '.join(fact.split()[:3])}?",
        "answer": fact,
        "question_date": asked.strftime("%Y/%m/%d (%a) %H:%M"),
        "haystack_session_ids": ids,
        "haystack_dates": dates,
        "haystack_sessions": haystack,
        "answer_session_ids": [ids[s] for s in sorted(gold)],
    }


def write_file(path: Path, questions: int, sessions: int, turns: int, turn_words: int, seed: int) -> None:
    rng = random.Random(seed)
    words = vocabulary()
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("[\n")
        for q in range(questions):
            record = question_record(rng, words, q, sessions, turns, turn_words)
            fh.write(("," if q else "") + json.dumps(record, ensure_ascii=False) + "\n")
            if (q + 1) % max(1, questions // 10) == 0 or q + 1 == questions:
                sys.stderr.write(f"writing {path.name}: {q + 1}/{questions} questions\n")
        fh.write("]\n")


def run_bench(system: str, data: Path, out: Path, k: int) -> tuple[float, float, float, dict]:
    """(wall seconds, CPU seconds, peak RSS in MB, summary.json) of one `memory-arena bench` child."""
    cmd = [sys.executable, "-m", "memory_arena.cli", "bench", "--system", system, "--dataset",
           f"longmemeval:{data}", "--k", str(k), "--out", str(out)]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"import_scale: memory-arena bench --system {system} failed (exit "
                         f"{os.waitstatus_to_exitcode(status)})")
    # ru_maxrss is in kilobytes on Linux, bytes on macOS.
    peak_mb = usage.ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)
    summary = json.loads((out / system / "summary.json").read_text(encoding="utf-8"))
    return wall, usage.ru_utime + usage.ru_stime, peak_mb, summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", default="bm25,hybrid", help="comma-separated built-in systems (default bm25,hybrid)")
    parser.add_argument("--questions", type=int, default=500)
    parser.add_argument("--sessions", type=int, default=50, help="mean sessions per haystack")
    parser.add_argument("--turns", type=int, default=10, help="mean turns per session")
    parser.add_argument("--words", type=int, default=100, help="mean words per turn")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--out", help="folder for the file and the bench results (default: a temporary folder)")
    args = parser.parse_args()
    if min(args.questions, args.sessions, args.turns, args.words, args.k) < 1:
        parser.error("--questions, --sessions, --turns, --words and --k must be at least 1")
    with tempfile.TemporaryDirectory(prefix="import-scale-") as scratch:
        out = Path(args.out) if args.out else Path(scratch)
        out.mkdir(parents=True, exist_ok=True)
        data = out / "longmemeval_s_synthetic.json"
        start = time.perf_counter()
        write_file(data, args.questions, args.sessions, args.turns, args.words, args.seed)
        written = time.perf_counter() - start
        print(f"synthetic LongMemEval-S file: {args.questions} questions, {data.stat().st_size / 1e6:.0f} MB, "
              f"written in {written:.1f} s")
        print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}\n")
        print("| system | questions | wall s | CPU s | peak RSS MB | R_any@5 | R_all@5 | NDCG@10 | wall < 300 s |")
        print("|---|---|---|---|---|---|---|---|---|")
        for system in [s.strip() for s in args.systems.split(",") if s.strip()]:
            wall, cpu, peak, summary = run_bench(system, data, out / "bench", args.k)
            sessions = summary["sessions"]["overall"]
            print(f"| {system} | {summary['metrics']['overall']['tasks']} | {wall:.1f} | {cpu:.1f} | {peak:.0f} | "
                  f"{sessions.get('recall_any@5', 0):.3f} | {sessions.get('recall_all@5', 0):.3f} | "
                  f"{sessions.get('ndcg@10', 0):.3f} | {'met' if wall < 300 else 'MISSED'} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
