"""benchmarks/load_server.py runs end to end on a small workload (two workers over SQLite: every
phase in the table, no errors, CPU per request read from /proc), and refuses bad arguments
with exit 2, naming the argument."""

from __future__ import annotations

import subprocess
import sys

import pytest

from contract_procs import REPO

SCRIPT = REPO / "benchmarks" / "load_server.py"

pytest.importorskip("starlette", reason="the reference server needs the server extra")


@pytest.mark.slow
def test_a_small_run_prints_every_phase_without_errors() -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--db", "sqlite", "--workers", "2", "--clients", "4",
                           "--adds", "60", "--searches", "30"], capture_output=True, text=True, cwd=REPO, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = [line.split("|")[1:-1] for line in proc.stdout.splitlines() if line.startswith("| sqlite, 2 workers")]
    assert [r[1].strip() for r in rows] == ["Add", "Search, first after Add", "Search, repeated",
                                           "Add, one more message", "Search, first after that Add"]
    for cells in rows:
        assert int(cells[2]) > 0 and int(cells[3]) == 0  # requests, errors
        assert float(cells[11]) >= 0  # the load average at the phase's end
    # The workers' CPU is counted, not only the idle parent's (a phase this small may take less
    # than the clock's 10 ms tick, the whole run does not).
    assert sum(float(cells[9]) for cells in rows) > 0
    assert "load average (1 min)" in proc.stdout


@pytest.mark.parametrize("args, message", [
    (["--db", "mysql://x/y"], "--db must be sqlite, postgresql or a postgresql:// URL"),
    (["--workers", "0"], "--workers must be 1..64"),
    (["--url", "http://192.0.2.1:8765"], "--url must be a loopback address"),
])
def test_bad_arguments_are_refused(args: list[str], message: str) -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert proc.returncode == 2 and message in proc.stderr


@pytest.mark.slow
def test_server_heap_shows_the_worker_cache_out_of_full_collections() -> None:
    pytest.importorskip("bm25s", reason="the default backend needs bm25s")
    proc = subprocess.run([sys.executable, str(REPO / "benchmarks" / "server_heap.py"), "--passes", "1"],
                          capture_output=True, text=True, cwd=REPO, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = {cells[0].strip(): cells for line in proc.stdout.splitlines() if line.startswith("| library")
            or line.startswith("| worker") for cells in [line.split("|")[1:-1]]}
    assert set(rows) == {"library", "worker"}
    assert int(rows["library"][1]) == int(rows["worker"][1]) == 500  # first searches
    # A library object leaves its cache to the collector, a worker freezes it after each load.
    assert int(rows["library"][8]) > 50_000 and int(rows["worker"][8]) < 1_000
    assert int(rows["worker"][5]) == 500 and int(rows["worker"][4]) == 0  # settles; automatic full collections
