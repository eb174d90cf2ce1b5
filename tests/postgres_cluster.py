"""A throwaway PostgreSQL cluster for the tests: `initdb` in a temporary folder, the server on
127.0.0.1 with a free port and trust authentication, removed at the end.

PostgreSQL refuses to run as root; as root, the cluster runs as the `postgres` user (which
Debian's package creates), else as `nobody`. `tests/run_all.sh` installs the `postgresql`
package when it is missing and it runs as root; without the binaries the tests that need the
cluster skip, saying why.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

USER = "memory_arena"


class Unavailable(RuntimeError):
    """No cluster can be started here; the message says why."""


def _binary(name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    # Debian keeps the server binaries off PATH, one folder per major version.
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"),
                        key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    if not candidates:
        raise Unavailable(f"PostgreSQL's {name} is not installed (Debian: apt-get install postgresql)")
    return candidates[-1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Cluster:
    folder: Path
    port: int
    run_as: list[str]
    pg_ctl: str

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """A new empty database; its URL."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def restart(self) -> None:
        """Stop the server (cutting every connection) and start it again on the same port."""
        subprocess.run([*self.run_as, self.pg_ctl, "-D", str(self.folder / "data"), "-m", "fast", "-w", "restart",
                        "-l", str(self.folder / "server.log")], check=True, capture_output=True, timeout=120)

    def stop(self) -> None:
        subprocess.run([*self.run_as, self.pg_ctl, "-D", str(self.folder / "data"), "-m", "immediate", "stop"],
                       capture_output=True, timeout=60)
        shutil.rmtree(self.folder, ignore_errors=True)


def start() -> Cluster:
    """initdb + pg_ctl start; Unavailable when that cannot be done here."""
    initdb, pg_ctl = _binary("initdb"), _binary("pg_ctl")
    folder = Path(tempfile.mkdtemp(prefix="memory-arena-pg-"))
    run_as: list[str] = []
    if os.geteuid() == 0:
        for name in ("postgres", "nobody"):
            try:
                entry = pwd.getpwnam(name)
            except KeyError:
                continue
            os.chown(folder, entry.pw_uid, entry.pw_gid)
            run_as = ["runuser", "-u", name, "--"]
            break
        else:
            raise Unavailable("running as root and neither a postgres nor a nobody user exists to run PostgreSQL")
    port = _free_port()
    data = folder / "data"
    steps = [
        [*run_as, initdb, "-D", str(data), "-U", USER, "--auth=trust", "-E", "UTF8", "--no-sync"],
        [*run_as, pg_ctl, "-D", str(data), "-l", str(folder / "server.log"), "-w", "-t", "60", "start",
         "-o", f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c max_connections=200"],
    ]
    for argv in steps:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            log = folder / "server.log"
            tail = log.read_text(errors="replace")[-1000:] if log.exists() else ""
            shutil.rmtree(folder, ignore_errors=True)
            raise Unavailable(f"{Path(argv[len(run_as)]).name} failed ({done.returncode}): "
                              f"{(done.stderr or done.stdout).strip()[-500:]} {tail}".strip())
    return Cluster(folder, port, run_as, pg_ctl)
