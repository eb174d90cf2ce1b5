"""Load test of the reference Add/Search server on loopback (docs/contract.md, "Load").

Starts `memory-arena serve` on 127.0.0.1 (or targets `--url`, which must be a loopback address)
in one or more configurations, each over a fresh database: `--db sqlite` (a new file),
`--db postgresql` (a throwaway cluster, `initdb` in a temporary folder; see
tests/postgres_cluster.py) or `--db postgresql://...` (an existing database: the run's users
carry a fresh tag), with `--workers 1` or more; `--matrix` runs all four of sqlite/postgresql x
1/2 workers. Each configuration runs five phases with `--clients` concurrent keep-alive
connections:
1. Add: the shipped tasks' sessions in contract chunks of at most 20 messages, one user per
   task and pass over the dataset.
2. Search, first after Add: each ingested user's question once (top_k 10); a worker loads the
   user's messages and builds its index here.
3. Search, repeated: the questions round after round (with several workers, a worker that has
   not served a user yet builds its index on its first search of it).
4. Add, one more message: one short Add per user, as the conversation goes on.
5. Search, first after that Add: each user's question again; the answering worker already
   holds the user (if phase 3 reached it there), so it loads and indexes only the new message.
The clients are `--clients` keep-alive connections opened once, one after the other, each
served a `/health` before the first clock starts, and kept for every phase (it prints how they
spread over the workers): 64 clients of a service keep their
connections, and a connection opened at a phase's start adds its taking-up by a server busy
with the burst to its first request (up to 1.2 s in one run on a busy machine). Each phase's
requests are built before its clock starts, and the client's heap is frozen out of its own
garbage collector, so that no pause of the client is counted as the server's. Every response
is checked with the client's own well-formedness rules; anything else, a non-200 or a dropped
connection counts as an error. Prints per phase: throughput, p50/p95/p99 latency, errors, CPU
time per request of the server's processes (all workers) and of the throwaway PostgreSQL
cluster (from /proc), and the machine's load average at its end. On a machine shared with
other work, the CPU columns are the figures that do not depend on the neighbours. Bounded:
`--adds` and `--searches` requests at most per phase, and `--max-seconds` per phase.

The load generator is a minimal asyncio HTTP/1.1 client rather than httpx so that, on a
2-core machine shared with the server, it takes as little CPU as possible from what is
being measured.

    python benchmarks/load_server.py [--clients 64] [--adds 6000] [--searches 6000] [--backend bm25]
                                     [--db sqlite|postgresql|postgresql://...] [--workers 1] [--matrix]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import itertools
import json
import os
import platform
import socket
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # runs from a checkout, installed or not

from memory_arena.contract.client import (check_add_response, check_search_response, chunk_messages,  # noqa: E402
                                          request_id_for)
from memory_arena.contract.server import spawn  # noqa: E402
from memory_arena.systems.ingest import task_sessions  # noqa: E402
from memory_arena.systems.retrieval import percentile  # noqa: E402
from memory_arena.tasks.schema import load_tasks  # noqa: E402

LOOPBACK = ("127.0.0.1", "localhost", "::1")
TOP_K = 10


@dataclass(frozen=True)
class Job:
    path: str
    body: dict[str, Any]
    check: Callable[[Any], str | None]


@dataclass
class Phase:
    name: str
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    first_error: str = ""
    seconds: float = 0.0
    server_cpu: float | None = None
    """CPU seconds the server's processes used during the phase (None if they are not ours to read)."""
    db_cpu: float | None = None
    """CPU seconds of the throwaway PostgreSQL cluster's processes (None for SQLite or an outside one)."""
    load_average: float = 0.0
    """The machine's 1-minute load average at the end of the phase: how much else was running."""


def add_jobs(passes: int, tag: str) -> Iterator[Job]:
    """Every task's sessions as contract chunks; pass p uses users `load<tag>-p<p>-<task id>`."""
    tasks = load_tasks()
    for p in range(passes):
        for task in tasks:
            user = f"load{tag}-p{p}-{task.id}"
            for session_id, messages in task_sessions(task):
                for index, chunk in enumerate(chunk_messages(messages)):
                    body = {"request_id": request_id_for(user, session_id, index, chunk), "user_id": user,
                            "session_id": session_id, "messages": chunk}
                    yield Job("/add", body, lambda payload, sent=body: check_add_response(sent, payload))


def follow_up_jobs(passes: int, tag: str) -> Iterator[Job]:
    """One more Add per ingested user: a short new session, as a conversation that goes on."""
    tasks = load_tasks()
    for p in range(passes):
        for task in tasks:
            user = f"load{tag}-p{p}-{task.id}"
            chunk = [{"role": "user", "content": f"One more thing to keep in mind: {task.question}"}]
            body = {"request_id": request_id_for(user, "follow-up", 0, chunk), "user_id": user,
                    "session_id": "follow-up", "messages": chunk}
            yield Job("/add", body, lambda payload, sent=body: check_add_response(sent, payload))


def search_jobs(passes: int, tag: str, repeat: bool) -> Iterator[Job]:
    """Each ingested user's question once (`repeat=False`), or over and over."""
    tasks = load_tasks()
    for p in itertools.count() if repeat else range(passes):
        for task in tasks:
            body = {"user_id": f"load{tag}-p{p % passes}-{task.id}", "query": task.question, "top_k": TOP_K}
            yield Job("/search", body, lambda payload: check_search_response(payload, TOP_K))


class Connection:
    """One client's keep-alive HTTP/1.1 connection, opened once and kept for every phase (opened
    again after an error), as the 64 clients of a service keep theirs."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        self.close()
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        self.writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    async def exchange(self, method: str, path: str, body: bytes = b"") -> tuple[int, bytes]:
        """Send one request, return the status and the body of its response."""
        assert self.reader is not None and self.writer is not None, "open() not called"
        self.writer.write((f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                           f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length:"))
        return status, await self.reader.readexactly(length)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.reader = self.writer = None


async def worker(conn: Connection, jobs: Iterator[Job], phase: Phase, deadline: float) -> None:
    # One shared iterator: the event loop is single-threaded, so `next` needs no lock.
    for job in jobs:
        if time.monotonic() > deadline:
            return
        body = json.dumps(job.body).encode()
        start = time.perf_counter()
        try:
            status, payload = await conn.exchange("POST", job.path, body)
        except (OSError, asyncio.IncompleteReadError, ValueError, StopIteration) as exc:
            phase.errors += 1
            phase.first_error = phase.first_error or f"{type(exc).__name__}: {exc}"
            await conn.open()
            continue
        phase.latencies.append(time.perf_counter() - start)
        problem = f"HTTP {status}" if status != 200 else job.check(json.loads(payload))
        if problem:
            phase.errors += 1
            phase.first_error = phase.first_error or f"{job.path}: {problem}"


async def connect(host: str, port: int, clients: int) -> list[Connection]:
    """`clients` connections, each one already served once (`/health`), so that no phase's clock
    counts a connection's taking-up by the server. They connect one after the other, as clients
    of a service arrive: the workers of `serve --workers N` share one listening socket, and the
    first to wake takes most of a burst of simultaneous connections (39/25 to 55/9 of 64 in four
    runs with two workers), where one by one they spread 29-35 per worker."""
    connections = [Connection(host, port) for _ in range(clients)]
    workers: dict[Any, int] = {}
    for conn in connections:
        await conn.open()
        status, payload = await conn.exchange("GET", "/health")
        if status != 200:
            raise SystemExit(f"load_server.py: error: /health answered HTTP {status}")
        worker_id = json.loads(payload).get("worker")
        workers[worker_id] = workers.get(worker_id, 0) + 1
    # Each connection stays with the worker that accepted it: say how they were spread.
    print(f"  {clients} connections over {len(workers)} worker(s): "
          f"{', '.join(str(n) for n in sorted(workers.values(), reverse=True))}", file=sys.stderr, flush=True)
    return connections


async def run_phase(name: str, connections: list[Connection], jobs: Iterator[Job], max_seconds: float) -> Phase:
    phase = Phase(name)
    start = time.perf_counter()
    await asyncio.gather(*(worker(conn, jobs, phase, time.monotonic() + max_seconds) for conn in connections))
    phase.seconds = time.perf_counter() - start
    return phase


def _stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def tree_cpu_seconds(root: int | None) -> float | None:
    """User + system CPU time of a process and of its live descendants (Linux /proc); None elsewhere.

    Workers are children of the server's process, PostgreSQL's backends children of its
    postmaster: summing the tree counts them all."""
    if root is None or _stat(root) is None:
        return None
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat(int(entry.name))) is not None:
            parents[int(entry.name)] = int(fields[1])
            times[int(entry.name)] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    tree, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent and pid not in tree]
        tree.update(children)
        frontier += children
    return sum(times.get(pid, 0.0) for pid in tree)


def _per_request(seconds: float | None, n: int) -> str:
    return "n/a" if seconds is None or not n else f"{1000 * seconds / n:.2f}"


def table(rows: list[tuple[str, Phase]]) -> str:
    lines = ["| configuration | phase | requests | errors | seconds | req/s | p50 ms | p95 ms | p99 ms "
             "| server CPU ms/req | PostgreSQL CPU ms/req | load average |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for config, ph in rows:
        n = len(ph.latencies) + ph.errors
        ms = [percentile(ph.latencies, q) for q in (50, 95, 99)]
        p50, p95, p99 = ("n/a" if v is None else f"{1000 * v:.1f}" for v in ms)
        rate = f"{n / ph.seconds:.0f}" if ph.seconds else "n/a"
        lines.append(f"| {config} | {ph.name} | {n} | {ph.errors} | {ph.seconds:.1f} | {rate} | {p50} | {p95} | "
                     f"{p99} | {_per_request(ph.server_cpu, n)} | {_per_request(ph.db_cpu, n)} | {ph.load_average:.1f} |")
    return "\n".join(lines)


def run_workload(url: str, server_pid: int | None, db_pid: int | None, args: argparse.Namespace,
                 tag: str) -> list[Phase]:
    """The five phases against one running server."""
    passes = 1 + args.adds // max(1, sum(1 for _ in add_jobs(1, tag)))
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    workload = [
        ("Add", add_jobs(passes, tag), args.adds),
        # The first search of a user after its Adds pays for loading its messages and building its index.
        ("Search, first after Add", search_jobs(passes, tag, repeat=False), args.searches),
        ("Search, repeated", search_jobs(passes, tag, repeat=True), args.searches),
        # The conversation goes on: the next search of each user follows one more Add, and the
        # worker that answers it already holds the user (it only adds the new message).
        ("Add, one more message", follow_up_jobs(passes, tag), args.searches),
        ("Search, first after that Add", search_jobs(passes, tag, repeat=False), args.searches),
    ]
    return asyncio.run(run_phases(host, port, workload, server_pid, db_pid, args))


async def run_phases(host: str, port: int, workload: list[tuple[str, Iterator[Job], int]], server_pid: int | None,
                     db_pid: int | None, args: argparse.Namespace) -> list[Phase]:
    """The phases one after the other, over the same `args.clients` connections."""
    connections = await connect(host, port, args.clients)
    phases = []
    try:
        for name, jobs, limit in workload:
            # Every request of the phase is built before its clock starts, and the client's heap
            # is then frozen out of its garbage collector: reading the dataset (about 0.16 s) or
            # a full collection of the client's heap in mid-phase would stop every client at
            # once, and that pause would be counted as the server's latency.
            prepared = list(itertools.islice(jobs, limit))
            gc.collect()
            gc.freeze()
            before = tree_cpu_seconds(server_pid), tree_cpu_seconds(db_pid)
            phase = await run_phase(name, connections, iter(prepared), args.max_seconds)
            after = tree_cpu_seconds(server_pid), tree_cpu_seconds(db_pid)
            phase.server_cpu, phase.db_cpu = (None if b is None or a is None else a - b
                                              for b, a in zip(before, after))
            phase.load_average = os.getloadavg()[0]
            phases.append(phase)
            print(f"  {name}: {len(phase.latencies) + phase.errors} requests, {phase.errors} errors, "
                  f"{phase.seconds:.1f} s", file=sys.stderr, flush=True)
    finally:
        for conn in connections:
            conn.close()
    return phases


@contextlib.contextmanager
def database(kind: str, tmp: Path) -> Iterator[tuple[str, int | None]]:
    """`--db` of a fresh database of that kind, and the pid of its server when it is ours."""
    if kind == "sqlite":
        yield str(tmp / f"load-{len(list(tmp.iterdir()))}.sqlite3"), None
        return
    if kind != "postgresql":
        yield kind, None  # an outside postgresql:// URL
        return
    sys.path.insert(0, str(REPO / "tests"))
    import postgres_cluster

    try:
        cluster = postgres_cluster.start()
    except postgres_cluster.Unavailable as exc:
        raise SystemExit(f"load_server.py: error: cannot start PostgreSQL: {exc}") from None
    try:
        pid = int((cluster.folder / "data" / "postmaster.pid").read_text().split()[0])
        yield cluster.create_database("load"), pid
    finally:
        cluster.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description="Load test of the reference Add/Search server on loopback.")
    parser.add_argument("--url", help="an already running server (loopback only); default: start one")
    parser.add_argument("--backend", default="bm25", help="backend of the started server (default bm25)")
    parser.add_argument("--db", default="sqlite",
                        help="sqlite (a fresh file), postgresql (a throwaway cluster) or a postgresql:// URL "
                             "(default sqlite)")
    parser.add_argument("--workers", type=int, default=1, help="server worker processes (default 1)")
    parser.add_argument("--matrix", action="store_true",
                        help="run sqlite and postgresql, each with 1 and 2 workers, into one table")
    parser.add_argument("--clients", type=int, default=64, help="concurrent connections (default 64)")
    parser.add_argument("--adds", type=int, default=6000, help="Add requests at most (default 6000)")
    parser.add_argument("--searches", type=int, default=6000,
                        help="Search requests at most, per search phase (default 6000)")
    parser.add_argument("--max-seconds", type=float, default=60.0, help="time bound of each phase (default 60)")
    args = parser.parse_args()
    if not (0 < args.clients <= 1024 and args.adds >= 0 and args.searches >= 0 and 0 < args.max_seconds <= 600):
        parser.error("--clients must be 1..1024, counts non-negative, --max-seconds in (0, 600]")
    if not 1 <= args.workers <= 64:
        parser.error("--workers must be 1..64")
    if args.db not in ("sqlite", "postgresql") and not args.db.startswith(("postgresql://", "postgres://")):
        parser.error(f"--db must be sqlite, postgresql or a postgresql:// URL, got {args.db!r}")
    # Users of a run carry a fresh tag where the database may hold an earlier run's (an outside one).
    tag = "" if args.db in ("sqlite", "postgresql") else f"-{os.urandom(4).hex()}"
    configs = ([(db, w) for db in ("sqlite", "postgresql") for w in (1, 2)] if args.matrix
               else [(args.db, args.workers)])

    rows: list[tuple[str, Phase]] = []
    load_before = os.getloadavg()[0]  # other work on the machine: the figures are only as quiet as it
    if args.url:
        url = args.url.rstrip("/")
        if urlsplit(url).hostname not in LOOPBACK:
            parser.error("--url must be a loopback address (127.0.0.1, localhost, ::1)")
        import httpx

        try:  # one clear line rather than a traceback from every client
            httpx.get(f"{url}/health", timeout=5.0)
        except httpx.TransportError as exc:
            sys.stderr.write(f"load_server.py: error: cannot connect to {url}: {exc}\n")
            return 1
        rows += [("external", ph) for ph in run_workload(url, None, None, args, f"-{os.urandom(4).hex()}")]
    else:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
        with tempfile.TemporaryDirectory() as tmp:
            for kind, workers in configs:
                label = f"{'sqlite' if kind == 'sqlite' else 'postgresql'}, {workers} worker{'s' * (workers > 1)}"
                print(f"{label}:", file=sys.stderr, flush=True)
                with database(kind, Path(tmp)) as (db, db_pid):
                    argv = [sys.executable, "-m", "memory_arena.cli", "serve", "--port", "0", "--db", db,
                            "--backend", args.backend, "--workers", str(workers)]
                    proc, url = spawn(argv, Path(tmp) / f"server-{len(rows)}.log", env=env)
                    try:
                        if workers > 1:
                            wait_for_workers(url, workers)
                        rows += [(label, ph) for ph in run_workload(url, proc.pid, db_pid, args, tag)]
                    finally:
                        proc.terminate()
                        proc.wait(timeout=60)
    print(f"load_server: {args.clients} clients, backend {args.backend if not args.url else '(external)'}, "
          f"{os.cpu_count()} CPUs, Python {platform.python_version()}, load average (1 min) "
          f"{load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end")
    print(table(rows))
    for config, ph in rows:
        if ph.first_error:
            print(f"first error, {config}, {ph.name}: {ph.first_error}")
    return 1 if any(ph.errors for _, ph in rows) else 0


def wait_for_workers(url: str, workers: int, seconds: float = 120.0) -> None:
    """Until every worker has answered /health (each connection lands on whichever worker accepts it)."""
    import httpx

    seen: set[int] = set()
    deadline = time.monotonic() + seconds
    while len(seen) < workers and time.monotonic() < deadline:
        with httpx.Client() as client:  # a new connection each time
            seen.add(client.get(f"{url}/health", timeout=5.0).json()["worker"])
        time.sleep(0.02)
    if len(seen) < workers:
        raise SystemExit(f"load_server.py: error: only {len(seen)} of {workers} workers answered in {seconds} s")


if __name__ == "__main__":
    sys.exit(main())
