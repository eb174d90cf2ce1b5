"""What Python's garbage collector costs a server worker as its cache grows (docs/contract.md, "Load").

Stores the users of `load_server.py`'s Add phase (the shipped tasks' sessions, one user per task
and pass) in a SQLite file, then runs each user's first Search through the server's
`MemoryService` in this process, with no HTTP around it, in two modes, each in a process of its
own: `library` (the collector left as Python sets it, as for a service embedded in a larger
program) and `worker` (as `memory-arena serve` runs it: after each load of new messages the heap
is settled, `contract/heap.py`). Prints per mode: CPU per first Search, the collections that ran
during the searches, the longest and the total pause, and how many objects a full collection
scans once every user is cached.

A full collection stops the event loop of a worker for its whole duration, so the longest pause
is added to the latency of every request in flight at that moment.

    python benchmarks/server_heap.py [--passes 3] [--backend bm25]
"""

from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # runs from a checkout, installed or not

from load_server import add_jobs, search_jobs  # noqa: E402  (benchmarks/ is this script's folder)

from memory_arena.contract.server import MemoryService  # noqa: E402
from memory_arena.contract.store import SQLiteStore  # noqa: E402
from memory_arena.contract.validation import validate_add  # noqa: E402

MODES = ("library", "worker")


def fill(db: Path, passes: int) -> None:
    store = SQLiteStore(db)
    requests = [validate_add(job.body) for job in add_jobs(passes, "")]
    for start in range(0, len(requests), 512):
        store.commit_batch(requests[start:start + 512])
    store.close()


def measure(db: Path, passes: int, backend: str, mode: str) -> dict[str, float]:
    """One mode, in this process: the first Search of every stored user."""
    from memory_arena.contract import heap

    settling = [False]
    real_settle = heap.settle

    def settle() -> None:  # tells the collections a settle runs from the automatic ones
        settling[0] = True
        try:
            real_settle()
        finally:
            settling[0] = False

    heap.settle = settle
    service = MemoryService(SQLiteStore(db), backend, settle_heap=mode == "worker")
    searches = [job.body for job in search_jobs(passes, "", repeat=False)]
    if mode == "worker":  # what `serve` does at start-up, after the warm-up
        heap.settle()
    pauses: list[tuple[int, bool, float]] = []
    started = [0.0]

    def timed(phase: str, info: dict) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            pauses.append((info["generation"], settling[0], time.perf_counter() - started[0]))

    gc.callbacks.append(timed)
    cpu = time.process_time()
    for body in searches:
        service.search(body["user_id"], body["query"], 10)
    cpu = time.process_time() - cpu
    gc.callbacks.remove(timed)
    automatic = [gen for gen, by_settle, _ in pauses if not by_settle]
    return {"searches": len(searches), "cpu_ms": 1000 * cpu / len(searches), "automatic": len(automatic),
            "full": automatic.count(2), "settles": len(pauses) - len(automatic),
            "longest_ms": 1000 * max((s for *_, s in pauses), default=0.0),
            "total_ms": 1000 * sum(s for *_, s in pauses), "scanned": len(gc.get_objects())}


def main() -> int:
    parser = argparse.ArgumentParser(description="What the garbage collector costs a server worker as its cache grows.")
    parser.add_argument("--passes", type=int, default=3, help="passes over the 500 tasks, one user per task and pass "
                                                               "(default 3: the 1,500 users of load_server.py)")
    parser.add_argument("--backend", default="bm25", help="the worker's backend (default bm25)")
    parser.add_argument("--mode", choices=MODES, help=argparse.SUPPRESS)  # one mode, in a child process
    parser.add_argument("--db", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not 1 <= args.passes <= 20:
        parser.error("--passes must be 1..20")
    if args.mode:
        print(json.dumps(measure(Path(args.db), args.passes, args.backend, args.mode)))
        return 0
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "heap.sqlite3"
        print(f"storing {args.passes} x 500 users...", file=sys.stderr, flush=True)
        fill(db, args.passes)
        for mode in MODES:
            print(f"{mode}: first searches...", file=sys.stderr, flush=True)
            out = subprocess.run([sys.executable, __file__, "--mode", mode, "--db", str(db), "--passes", str(args.passes),
                                  "--backend", args.backend], capture_output=True, text=True, check=True)
            rows[mode] = json.loads(out.stdout)
    print(f"server_heap: backend {args.backend}, {args.passes * 500} users, Python {sys.version.split()[0]}")
    print("| mode | first searches | CPU ms/search | automatic collections | of which full | settles "
          "| longest pause ms | all collections ms | objects a full collection scans at the end |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for mode, r in rows.items():
        print(f"| {mode} | {r['searches']} | {r['cpu_ms']:.2f} | {r['automatic']} | {r['full']} | {r['settles']} | "
              f"{r['longest_ms']:.1f} | {r['total_ms']:.0f} | {r['scanned']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
