"""Every command a user can mistype or run on a machine without an optional extra answers with
one line on stderr and a documented exit code, never a traceback (README, "Errors"): missing
extras name their `pip install`, a failed `serve` leaves no database file behind, bad output
paths of the scripts are one line and exit 2."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from contract_procs import REPO

# Runs a command with the named modules made unimportable (None in sys.modules), as on a
# machine where that extra was never installed.
WITHOUT = ("import sys; blocked = sys.argv[1].split(','); sys.modules.update(dict.fromkeys(blocked)); "
           "sys.argv = sys.argv[2:]; import runpy; runpy.run_module(sys.argv[0], run_name='__main__', alter_sys=True)")


def run(*argv: str, without: tuple[str, ...] = (), cwd: Path = REPO) -> subprocess.CompletedProcess:
    if without:
        argv = ("-c", WITHOUT, ",".join(without), *argv[1:]) if argv[0] == "-m" else argv
    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, cwd=cwd, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)})


def one_line(proc: subprocess.CompletedProcess, code: int, *needles: str) -> None:
    assert proc.returncode == code, (proc.returncode, proc.stderr)
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
    for needle in needles:
        assert needle in proc.stderr, proc.stderr


# -- missing extras (#17.8) ------------------------------------------------------------------------

def test_serve_without_the_server_extra_is_one_line_and_leaves_no_database(tmp_path: Path) -> None:
    db = tmp_path / "memory.sqlite3"
    proc = run("-m", "memory_arena.cli", "serve", "--port", "0", "--db", str(db), without=("starlette",))
    one_line(proc, 1, "pip install 'memory-arena[server]'", "(starlette is not installed)")
    assert list(tmp_path.iterdir()) == []


def test_serve_without_the_backends_extra_is_one_line_and_leaves_no_database(tmp_path: Path) -> None:
    pytest.importorskip("starlette")
    db = tmp_path / "memory.sqlite3"
    proc = run("-m", "memory_arena.cli", "serve", "--port", "0", "--db", str(db), "--backend", "bm25",
               without=("bm25s",))
    one_line(proc, 1, "pip install 'memory-arena[bm25]'", "(bm25s is not installed)")
    assert list(tmp_path.iterdir()) == []


def test_serve_on_a_busy_port_is_one_line_and_keeps_an_existing_database(tmp_path: Path) -> None:
    pytest.importorskip("starlette")
    pytest.importorskip("bm25s")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        new = run("-m", "memory_arena.cli", "serve", "--port", str(port), "--db", str(tmp_path / "new.sqlite3"))
        one_line(new, 1, f"cannot listen on 127.0.0.1:{port}")
        assert list(tmp_path.iterdir()) == []
        kept = tmp_path / "kept.sqlite3"
        kept.write_bytes(b"")  # an existing file is the user's: never removed
        one_line(run("-m", "memory_arena.cli", "serve", "--port", str(port), "--db", str(kept)), 1, "cannot listen")
        assert kept.exists()


def test_check_endpoint_without_httpx_is_one_line() -> None:
    proc = run("-m", "memory_arena.cli", "check-endpoint", "--add", "http://127.0.0.1:9/add",
               "--search", "http://127.0.0.1:9/search", without=("httpx",))
    one_line(proc, 1, "pip install 'memory-arena[server]'", "(httpx is not installed)")


@pytest.mark.parametrize("system, blocked, extra", [
    ("http://127.0.0.1:9", "httpx", "server"), ("bm25", "bm25s", "bm25"), ("hybrid", "bm25s", "dense"),
])
def test_bench_without_an_extra_is_one_line(tmp_path: Path, system: str, blocked: str, extra: str) -> None:
    proc = run("-m", "memory_arena.cli", "bench", "--system", system, "--limit", "1", "--out", str(tmp_path / "out"),
               without=(blocked,))
    one_line(proc, 1, f"pip install 'memory-arena[{extra}]'", f"({blocked} is not installed)")


# -- bad output paths (#17.9) --------------------------------------------------------------------

@pytest.mark.parametrize("target", ["afile/x.json", "afile/deeper/x.json", "adir"])
def test_run_offline_json_to_a_path_it_cannot_write_is_one_line_and_exit_2(tmp_path: Path, target: str) -> None:
    (tmp_path / "afile").write_text("a file, not a folder")
    (tmp_path / "adir").mkdir()
    proc = run(str(REPO / "examples" / "run_offline.py"), "--baselines", "hedge", "--json", target, cwd=tmp_path)
    one_line(proc, 2, "run_offline.py: error: cannot write", target)
    assert proc.stdout == ""  # refused before the run, not after it
    assert (tmp_path / "afile").read_text() == "a file, not a folder"


def test_run_offline_json_into_a_new_folder_still_works(tmp_path: Path) -> None:
    proc = run(str(REPO / "examples" / "run_offline.py"), "--baselines", "hedge", "--json", "new/x.json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert set(json.loads((tmp_path / "new" / "x.json").read_text())) == {"hedge"}


# -- interrupted and cut-off runs ----------------------------------------------------------------

@pytest.mark.parametrize("raised, code, message", [
    ("KeyboardInterrupt", 130, "memory-arena bench: interrupted\n"),
    ("BrokenPipeError", 1, ""),
])
def test_ctrl_c_and_a_closed_pipe_are_not_tracebacks(raised: str, code: int, message: str) -> None:
    # Found while hunting #17's class of bug: Ctrl-C in a long bench, or `memory-arena ... | head`,
    # ended in a traceback.
    script = (f"import memory_arena.bench as bench\ndef run(args):\n    print('partial output')\n    raise {raised}()\n"
              "bench.run = run\nfrom memory_arena.cli import main\nraise SystemExit(main(['bench', '--system', 'grep']))")
    proc = run("-c", script)
    assert (proc.returncode, proc.stderr) == (code, message)


def test_the_readme_errors_table_names_every_command() -> None:
    from memory_arena.cli import SUBCOMMANDS

    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Errors"):]
    section = section[:section.index("\n## ")]
    rows = {line.split("|")[1].strip().strip("`") for line in section.splitlines() if line.startswith("| `")}
    expected = {"generator.py", *(f"memory-arena {name}" for name in SUBCOMMANDS),
                *(f"examples/{p.name}" for p in (REPO / "examples").glob("*.py"))}
    assert rows == expected
