"""`memory-arena check-endpoint`: it passes against the reference server (with auth), and it
fails, naming the fault, against each deliberately broken server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from broken_servers import FAULTS
from contract_procs import REPO, Running, start_reference, start_script
from memory_arena.contract.checker import VALIDATION_CASES, RunIds
from system_deps import require

KEY_ENV = "MA_CHECKER_TEST_KEY"


def check(url: str, *extra: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    argv = [sys.executable, "-m", "memory_arena.cli", "check-endpoint", "--add", f"{url}/add",
            "--search", f"{url}/search", "--health", f"{url}/health", "--seed", "1234", *extra]
    return subprocess.run(argv, capture_output=True, text=True, cwd=REPO, timeout=120,
                          env={**os.environ, **(env or {})})


def rows(output: str) -> dict[str, str]:
    """check name -> PASS/FAIL, from the printed table."""
    table = {}
    for line in output.splitlines():
        for verdict in (" PASS", " FAIL"):
            name, sep, _ = line.partition(verdict)
            if sep and name.strip() and not line.startswith("["):
                table[name.strip()] = verdict.strip()
    return table


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory):
    running = start_reference(tmp_path_factory.mktemp("checked"), "--api-key-env", KEY_ENV,
                              env={KEY_ENV: "checker-key"})
    yield running
    running.stop()


def test_passes_against_the_reference_server(reference: Running) -> None:
    proc = check(reference.url, "--api-key-env", KEY_ENV, env={KEY_ENV: "checker-key"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    table = rows(proc.stdout)
    assert set(table.values()) == {"PASS"}
    assert len([n for n in table if n.startswith("validation: ")]) == len(VALIDATION_CASES)
    for name in ("health (no credentials)", "add.echo", "search.round-trip", "isolation.cross-user",
                 "idempotency.first-write-wins", "idempotency.per-user", "auth.missing-key", "auth.wrong-key",
                 "auth.wrong-key-x-api-key", "auth.wrong-scheme", "auth.x-api-key"):
        assert table[name] == "PASS"
    # The same seed twice: a second run meets its own first-run data and still passes.
    again = check(reference.url, "--api-key-env", KEY_ENV, env={KEY_ENV: "checker-key"})
    assert again.returncode == 0, again.stdout


def test_a_wrong_key_fails_every_authenticated_check(reference: Running) -> None:
    proc = check(reference.url, "--api-key-env", KEY_ENV, env={KEY_ENV: "not-the-key"})
    assert proc.returncode == 1
    table = rows(proc.stdout)
    assert table["health (no credentials)"] == "PASS" and table["add.echo"] == "FAIL"
    assert "HTTP 401" in proc.stdout and "request:  POST" in proc.stdout


# Each fault: the check that must name it, with the words of its note, and checks that
# must still pass (the checker points at the fault, not at everything).
EXPECTED = {
    "wrong-echo": ("add.echo", "`request_id` is not echoed unchanged", {"search.round-trip", "isolation.cross-user"}),
    "top-level-array": ("search.shape", "not an object with a `data` list", {"add.echo"}),
    "leak-users": ("isolation.cross-user", "user a sees user b's", {"add.echo", "search.round-trip"}),
    "not-idempotent": ("idempotency.first-write-wins", "the first write must win",
                       {"add.echo", "isolation.cross-user", "idempotency.per-user"}),
    "lenient-top-k": ("validation: search top_k string", "HTTP 200, expected 422",
                      {"add.echo", "search.shape", "isolation.cross-user", "idempotency.first-write-wins"}),
    "wrong-key-403": ("auth.wrong-key", "HTTP 403, expected 401 (403 is for a valid key without the right",
                      {"auth.missing-key", "auth.bearer", "auth.x-api-key", "add.echo", "isolation.cross-user"}),
}


def test_every_fault_has_an_expectation() -> None:
    assert set(EXPECTED) == set(FAULTS)


@pytest.mark.slow
@pytest.mark.parametrize("fault", FAULTS)
def test_fails_naming_the_fault(tmp_path: Path, fault: str) -> None:
    # Every broken server requires a key, so that the auth checks run against each fault too.
    key = {KEY_ENV: "broken-key"}
    broken = start_script(tmp_path, "broken_servers.py", "--fault", fault, "--db", str(tmp_path / "b.sqlite3"),
                          "--api-key-env", KEY_ENV, env=key)
    try:
        proc = check(broken.url, "--api-key-env", KEY_ENV, env=key)
    finally:
        broken.stop()
    assert proc.returncode == 1, proc.stdout
    table = rows(proc.stdout)
    name, note, still_passing = EXPECTED[fault]
    assert table[name] == "FAIL"
    assert all(table[n] == "PASS" for n in still_passing), table
    # The failure is explained, then shown with its request and response.
    block = proc.stdout.split(f"[{name}]", 1)[1]
    assert note in block.split("\n", 1)[0]
    assert "request:  POST" in block and "response: " in block


def test_unreachable_service_is_one_line(tmp_path: Path) -> None:
    # Regression (#17.11): a dead URL printed 89 FAIL rows (369 lines).
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = check(f"http://127.0.0.1:{port}")
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1
    assert proc.stderr.startswith(f"memory-arena check-endpoint: error: cannot connect to http://127.0.0.1:{port}/")


@pytest.mark.parametrize("args, message", [
    (["--add", "localhost/add", "--search", "http://x/search"], "--add must be an http"),
    (["--add", "http://x/add", "--search", "http://x/search", "--api-key-env", "MA_SURELY_UNSET_VAR"], "MA_SURELY_UNSET_VAR"),
    (["--add", "http://x/add"], "--search"),
    (["--add", "http:///add", "--search", "http://x/search"], "--add must be an http"),
    (["--add", "http://x:99999/add", "--search", "http://x/search"], "--add must be an http"),
    (["--add", "http://x/add", "--search", "http://x/search", "--timeout", "nan"], "--timeout"),
    (["--add", "http://x/add", "--search", "http://x/search", "--timeout", "inf"], "--timeout"),
])
def test_usage_errors(args: list[str], message: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "memory_arena.cli", "check-endpoint", *args],
                          capture_output=True, text=True, cwd=REPO, timeout=60)
    assert proc.returncode == 2 and message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_run_ids_are_seeded() -> None:
    assert RunIds.from_seed(5) == RunIds.from_seed(5)
    assert RunIds.from_seed(5).user("a") != RunIds.from_seed(6).user("a")


@pytest.mark.slow
def test_passes_against_the_timeline_backend(tmp_path: Path) -> None:
    require("timeline")
    running = start_reference(tmp_path, "--backend", "timeline")
    try:
        proc = check(running.url)
    finally:
        running.stop()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert set(rows(proc.stdout).values()) == {"PASS"}
