"""The offline path on other Pythons: the generator writes the same bytes and run_offline.py
works under every interpreter found, run with `-S` (no site-packages), which proves that the
generator, scorer, metrics and baselines need the standard library only."""

from __future__ import annotations

import filecmp
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
INTERPRETERS = ["python3.10", "python3.12", "python3.13"]


def interpreter(name: str) -> str:
    """`name` on PATH, or in a pyenv tree (whose shims only answer for the selected version)."""
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates = [shutil.which(name), *sorted(map(str, pyenv.glob(f"{name[len('python'):]}.*/bin/{name}")))]
    for path in filter(None, candidates):
        if subprocess.run([path, "-c", "pass"], capture_output=True).returncode == 0:
            return path
    pytest.skip(f"{name} is not installed here")


@pytest.mark.slow
@pytest.mark.parametrize("name", INTERPRETERS)
def test_same_bytes_and_standard_library_only(name, tmp_path):
    python = interpreter(name)
    subprocess.run([python, "-S", str(ROOT / "generator.py"), "--out", str(tmp_path)], check=True, cwd=ROOT,
                   capture_output=True, timeout=120)
    for shipped in sorted((ROOT / "memory_arena" / "dataset").glob("*.jsonl")):
        assert filecmp.cmp(shipped, tmp_path / shipped.name, shallow=False), (name, shipped.name)
    proc = subprocess.run([python, "-S", str(ROOT / "examples" / "run_offline.py")], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "latest-fact          100.0    100.0    100.0    100.0    100.0    100.0" in proc.stdout
