"""The vf-eval output readers under damage: the real `vf-eval` outputs of both verifiers
versions (tests/fixtures), cut at any byte, overwritten with any text, or with any JSON value
put anywhere in a row, give either runs with a report or one `ResultsError` sentence; and
`memory-arena score` on them exits 0 with a report or 2 with one line on stderr."""

from __future__ import annotations

import io
import json
import shutil
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_arena.cli import main
from memory_arena.results import ResultsError, load_results

from test_results_fixtures import VF_EVAL_V03, VF_EVAL_V04

FIXTURES = {"0.3": (VF_EVAL_V03, "results.jsonl"), "0.4": (VF_EVAL_V04, "traces.jsonl")}
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                     max_leaves=8)


def _results_file(root: Path, name: str) -> Path:
    (path,) = root.rglob(name)
    return path


def _check(root: Path) -> None:
    """A report for every run, or one ResultsError; the command agrees."""
    try:
        runs = load_results(root)
    except ResultsError as exc:
        assert "\n" not in str(exc)
        expected = 2
    else:
        assert runs and all(r.report is not None for r in runs)
        for run in runs:
            json.dumps(run.report)
            assert all(isinstance(c, str) and "\n" not in c for c in run.caveats())
        expected = 0
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["score", str(root)])
    assert code == expected, err.getvalue()
    if code == 2:
        assert err.getvalue().count("\n") == 1 and err.getvalue().startswith("memory-arena score: error: ")


def _damaged(version: str, damage) -> None:
    source, name = FIXTURES[version]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "run"
        shutil.copytree(source, root)
        path = _results_file(root, name)
        path.write_bytes(damage(path.read_bytes()))
        _check(root)


@pytest.mark.parametrize("version", list(FIXTURES))
def test_the_fixtures_load(version):
    _check(FIXTURES[version][0])


@pytest.mark.parametrize("version", list(FIXTURES))
@SETTINGS
@given(cut=st.floats(min_value=0.0, max_value=1.0))
def test_a_file_cut_anywhere(version, cut):
    _damaged(version, lambda data: data[: int(len(data) * cut)])


@pytest.mark.parametrize("version", list(FIXTURES))
@SETTINGS
@given(start=st.floats(min_value=0.0, max_value=1.0), length=st.integers(min_value=0, max_value=200),
       text=st.binary(max_size=60) | st.text(max_size=60).map(str.encode))
def test_a_file_overwritten_anywhere(version, start, length, text):
    def damage(data: bytes) -> bytes:
        i = int(len(data) * start)
        return data[:i] + text + data[i + length:]

    _damaged(version, damage)


def _replace_somewhere(value: Any, path: list[int], new: Any) -> Any:
    """`value` with the node reached by following `path` (indices into keys or items,
    taken modulo their count) replaced by `new`."""
    if not path or not isinstance(value, (dict, list)) or not value:
        return new
    if isinstance(value, dict):
        key = sorted(value)[path[0] % len(value)]
        return {**value, key: _replace_somewhere(value[key], path[1:], new)}
    i = path[0] % len(value)
    return [*value[:i], _replace_somewhere(value[i], path[1:], new), *value[i + 1:]]


@pytest.mark.parametrize("version", list(FIXTURES))
@SETTINGS
@given(row=st.integers(min_value=0, max_value=10), path=st.lists(st.integers(min_value=0, max_value=50), max_size=6),
       new=_json)
def test_any_json_value_anywhere_in_a_row(version, row, path, new):
    def damage(data: bytes) -> bytes:
        lines = data.decode().splitlines()
        i = row % len(lines)
        lines[i] = json.dumps(_replace_somewhere(json.loads(lines[i]), path, new))
        return ("\n".join(lines) + "\n").encode()

    _damaged(version, damage)
