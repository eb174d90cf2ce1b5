"""Load test of the reference Add/Search server on loopback (docs/design.md, "Performance targets").

Starts `memory-arena serve` on 127.0.0.1 with a fresh SQLite file (or targets `--url`, which
must be a loopback address), then runs three phases, each with `--clients` concurrent
keep-alive connections:
1. Add: the shipped tasks' sessions in contract chunks of at most 20 messages, one user per
   task and pass over the dataset.
2. Search, first after Add: each ingested user's question once (top_k 10); a lazily indexed
   backend (bm25) builds that user's index here.
3. Search, repeated: the questions round after round, on built indexes.
Every response is checked with the client's own well-formedness rules; anything else, a
non-200 or a dropped connection counts as an error. Prints per phase: throughput,
p50/p95/p99 latency, errors, and the server's own CPU time per request (from /proc, when
this script started the server). On a machine shared with other work, that last column is
the figure that does not depend on the neighbours. Bounded: `--adds` and `--searches`
requests at most per phase, and `--max-seconds` per phase.

The load generator is a minimal asyncio HTTP/1.1 client rather than httpx so that, on a
2-core machine shared with the server, it takes as little CPU as possible from what is
being measured.

    python benchmarks/load_server.py [--clients 64] [--adds 6000] [--searches 6000] [--backend bm25]
"""

from __future__ import annotations

import argparse
import asyncio
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
    """CPU seconds the server process used during the phase (None if it is not ours to read)."""


def add_jobs(passes: int) -> Iterator[Job]:
    """Every task's sessions as contract chunks; pass p uses users `load-p<p>-<task id>`."""
    tasks = load_tasks()
    for p in range(passes):
        for task in tasks:
            user = f"load-p{p}-{task.id}"
            for session_id, messages in task_sessions(task):
                for index, chunk in enumerate(chunk_messages(messages)):
                    body = {"request_id": request_id_for(user, session_id, index, chunk), "user_id": user,
                            "session_id": session_id, "messages": chunk}
                    yield Job("/add", body, lambda payload, sent=body: check_add_response(sent, payload))


def search_jobs(passes: int, repeat: bool) -> Iterator[Job]:
    """Each ingested user's question once (`repeat=False`), or over and over."""
    tasks = load_tasks()
    for p in itertools.count() if repeat else range(passes):
        for task in tasks:
            body = {"user_id": f"load-p{p % passes}-{task.id}", "query": task.question, "top_k": TOP_K}
            yield Job("/search", body, lambda payload: check_search_response(payload, TOP_K))


async def worker(host: str, port: int, jobs: Iterator[Job], phase: Phase, deadline: float) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        # One shared iterator: the event loop is single-threaded, so `next` needs no lock.
        for job in jobs:
            if time.monotonic() > deadline:
                return
            body = json.dumps(job.body).encode()
            request = (f"POST {job.path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                       f"Content-Length: {len(body)}\r\n\r\n").encode() + body
            start = time.perf_counter()
            try:
                writer.write(request)
                head = await reader.readuntil(b"\r\n\r\n")
                status = int(head.split(b" ", 2)[1])
                length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length:"))
                payload = await reader.readexactly(length)
            except (OSError, asyncio.IncompleteReadError, ValueError, StopIteration) as exc:
                phase.errors += 1
                phase.first_error = phase.first_error or f"{type(exc).__name__}: {exc}"
                writer.close()
                reader, writer = await asyncio.open_connection(host, port)
                continue
            phase.latencies.append(time.perf_counter() - start)
            problem = f"HTTP {status}" if status != 200 else job.check(json.loads(payload))
            if problem:
                phase.errors += 1
                phase.first_error = phase.first_error or f"{job.path}: {problem}"
    finally:
        writer.close()


async def run_phase(name: str, host: str, port: int, jobs: Iterator[Job], clients: int, max_seconds: float) -> Phase:
    phase = Phase(name)
    start = time.perf_counter()
    await asyncio.gather(*(worker(host, port, jobs, phase, time.monotonic() + max_seconds) for _ in range(clients)))
    phase.seconds = time.perf_counter() - start
    return phase


def cpu_seconds(pid: int | None) -> float | None:
    """User + system CPU time of a process, all threads (Linux /proc); None elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def table(phases: list[Phase]) -> str:
    lines = ["| phase | requests | errors | seconds | req/s | p50 ms | p95 ms | p99 ms | server CPU ms/req |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for ph in phases:
        n = len(ph.latencies) + ph.errors
        ms = [percentile(ph.latencies, q) for q in (50, 95, 99)]
        p50, p95, p99 = ("n/a" if v is None else f"{1000 * v:.1f}" for v in ms)
        cpu = "n/a" if ph.server_cpu is None or not n else f"{1000 * ph.server_cpu / n:.2f}"
        rate = f"{n / ph.seconds:.0f}" if ph.seconds else "n/a"
        lines.append(f"| {ph.name} | {n} | {ph.errors} | {ph.seconds:.1f} | {rate} | {p50} | {p95} | {p99} | {cpu} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description="Load test of the reference Add/Search server on loopback.")
    parser.add_argument("--url", help="an already running server (loopback only); default: start one")
    parser.add_argument("--backend", default="bm25", help="backend of the started server (default bm25)")
    parser.add_argument("--clients", type=int, default=64, help="concurrent connections (default 64)")
    parser.add_argument("--adds", type=int, default=6000, help="Add requests at most (default 6000)")
    parser.add_argument("--searches", type=int, default=6000,
                        help="Search requests at most, per search phase (default 6000)")
    parser.add_argument("--max-seconds", type=float, default=60.0, help="time bound of each phase (default 60)")
    args = parser.parse_args()
    if not (0 < args.clients <= 1024 and args.adds >= 0 and args.searches >= 0 and 0 < args.max_seconds <= 600):
        parser.error("--clients must be 1..1024, counts non-negative, --max-seconds in (0, 600]")

    passes = 1 + args.adds // max(1, sum(1 for _ in add_jobs(1)))
    with tempfile.TemporaryDirectory() as tmp:
        proc = None
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
        else:
            argv = [sys.executable, "-m", "memory_arena.cli", "serve", "--port", "0",
                    "--db", str(Path(tmp) / "load.sqlite3"), "--backend", args.backend]
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
            proc, url = spawn(argv, Path(tmp) / "server.log", env=env)
        parts = urlsplit(url)
        host, port = parts.hostname or "127.0.0.1", parts.port or 80
        try:
            workload = [
                ("Add", add_jobs(passes), args.adds),
                # The first search of a user after its Adds pays for (re)building its index.
                ("Search, first after Add", search_jobs(passes, repeat=False), args.searches),
                ("Search, repeated", search_jobs(passes, repeat=True), args.searches),
            ]
            phases = []
            pid = proc.pid if proc is not None else None
            for name, jobs, limit in workload:
                before = cpu_seconds(pid)
                phase = asyncio.run(run_phase(name, host, port, itertools.islice(jobs, limit), args.clients,
                                              args.max_seconds))
                after = cpu_seconds(pid)
                phase.server_cpu = None if before is None or after is None else after - before
                phases.append(phase)
        finally:
            if proc is not None:
                proc.terminate()
                proc.wait(timeout=30)
    print(f"load_server: {args.clients} clients, backend {args.backend if not args.url else '(external)'}, "
          f"{os.cpu_count()} CPUs, Python {platform.python_version()}, {url}")
    print(table(phases))
    for ph in phases:
        if ph.first_error:
            print(f"first {ph.name} error: {ph.first_error}")
    return 1 if any(ph.errors for ph in phases) else 0


if __name__ == "__main__":
    sys.exit(main())
