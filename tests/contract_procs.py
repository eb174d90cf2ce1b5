"""Child processes for the contract tests: the reference server, the broken servers and the
scripted status server, each on 127.0.0.1 with a free port, logging to a file in tmp."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from memory_arena.contract.server import spawn

REPO = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent


@dataclass
class Running:
    proc: subprocess.Popen
    url: str
    log: Path

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def kill9(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()


def _env(extra: dict[str, str] | None) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    return {**env, **(extra or {})}


def start_reference(tmp: Path, *args: str, db: Path | str | None = None,
                    env: dict[str, str] | None = None) -> Running:
    """`memory-arena serve --port 0 --db <tmp>/server.sqlite3 ARGS...` (`db`: a file or a postgresql:// URL)."""
    db = db or tmp / "server.sqlite3"
    log = tmp / f"serve-{len(list(tmp.glob('serve-*.log')))}.log"
    argv = [sys.executable, "-m", "memory_arena.cli", "serve", "--port", "0", "--db", str(db), *args]
    proc, url = spawn(argv, log, env=_env(env))
    return Running(proc, url, log)


def start_script(tmp: Path, name: str, *args: str, env: dict[str, str] | None = None) -> Running:
    """One of the helper servers in tests/ (`broken_servers.py`, `status_server.py`)."""
    log = tmp / f"{name}.log"
    proc, url = spawn([sys.executable, str(TESTS / name), *args], log, env=_env(env))
    return Running(proc, url, log)
