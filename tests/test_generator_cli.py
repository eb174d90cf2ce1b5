"""`generator.py` as a command: bad output paths are one line and exit 2, and the shipped
dataset folder (the default `--out`) is never overwritten with other tasks than the default
command writes unless `--force` is given. Runs on a copy of the package, so the real shipped
files are never touched."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture()
def checkout(tmp_path: Path) -> Path:
    """generator.py and the package, copied: the copy's dataset folder is the shipped one."""
    root = tmp_path / "checkout"
    root.mkdir()
    shutil.copy2(REPO / "generator.py", root / "generator.py")
    shutil.copytree(REPO / "memory_arena", root / "memory_arena", ignore=shutil.ignore_patterns("__pycache__"))
    return root


def generator(root: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    # No PYTHONPATH: the script's own folder comes first on sys.path, so the copy is what runs.
    return subprocess.run([sys.executable, str(root / "generator.py"), *args], capture_output=True, text=True,
                          cwd=cwd or root, timeout=300, env={"PATH": "/usr/bin:/bin"})


def one_line(proc: subprocess.CompletedProcess, code: int, *needles: str) -> None:
    assert proc.returncode == code, (proc.returncode, proc.stderr)
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.startswith("generator.py: error: ")
    for needle in needles:
        assert needle in proc.stderr, proc.stderr


def shipped_bytes(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / "memory_arena" / "dataset").glob("*.jsonl"))}


@pytest.mark.parametrize("out", ["somefile", "somefile/sub"])
def test_an_output_path_through_a_file_is_one_line_and_exit_2(tmp_path: Path, checkout: Path, out: str) -> None:
    # Regression (#17.9): FileExistsError with a traceback, exit 1.
    (tmp_path / "somefile").write_text("keep me")
    one_line(generator(checkout, "--out", out, "--n", "1", cwd=tmp_path), 2, "somefile is a file, not a folder")
    assert (tmp_path / "somefile").read_text() == "keep me"


def test_other_tasks_are_refused_in_the_shipped_folder_without_force(checkout: Path) -> None:
    before = shipped_bytes(checkout)
    assert before  # the copy holds the shipped files
    for args in (["--n", "2"], ["--seed", "7", "--categories", "recall"], ["--max-noise", "20"],
                 ["--n", "2", "--out", "memory_arena/dataset"], ["--n", "2", "--out", "./memory_arena/../memory_arena/dataset"]):
        proc = generator(checkout, *args)
        one_line(proc, 2, "refusing to overwrite the shipped dataset", "--force")
        assert proc.stdout == ""
    assert "(--seed 7)" in generator(checkout, "--seed", "7").stderr
    assert shipped_bytes(checkout) == before


def test_force_overwrites_and_the_default_command_needs_no_force(checkout: Path) -> None:
    before = shipped_bytes(checkout)
    proc = generator(checkout, "--n", "2", "--categories", "recall", "--force")
    assert proc.returncode == 0, proc.stderr
    after = shipped_bytes(checkout)
    assert after["recall.jsonl"].count(b"\n") == 2
    assert {k: v for k, v in after.items() if k != "recall.jsonl"} == {k: v for k, v in before.items() if k != "recall.jsonl"}
    proc = generator(checkout, "--categories", "recall")  # the default tasks: always allowed
    assert proc.returncode == 0, proc.stderr
    assert shipped_bytes(checkout)["recall.jsonl"].count(b"\n") == 100


def test_another_folder_is_written_whatever_the_flags(tmp_path: Path, checkout: Path) -> None:
    proc = generator(checkout, "--n", "2", "--seed", "7", "--categories", "update", "--out", str(tmp_path / "a" / "b"))
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "a" / "b" / "update.jsonl").read_bytes().count(b"\n") == 2
