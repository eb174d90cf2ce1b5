"""Memory systems from outside the package: `module:Class` strings, the `memory_arena.systems`
entry-point group and constructor options, through `build_system`, the real `memory-arena bench`
and `serve` commands and the environment's settings; the worked example in
examples/memory_plugin is the plugin under test."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from memory_arena.envs import core
from memory_arena.systems import build_system, check_name, ingest_task, task_user_id
from memory_arena.systems import plugins
from memory_arena.systems.extras import MissingExtra
from memory_arena.tasks.schema import Task, Turn

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "memory_plugin"
SPEC = "fts_memory:FtsMemory"


@pytest.fixture
def example_on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLE))


def dog_task() -> Task:
    texts = [("user", "My dog is called Rex.", 0), ("assistant", "Lovely name.", 0),
             ("user", "We renamed the dog, he is called Max now.", 1), ("user", "I had pasta today.", 1)]
    turns = tuple(Turn(role, text, 1_000 * (i + 1), s) for i, (role, text, s) in enumerate(texts))
    return Task("update-0000", "update", 2, turns, "What is the dog called now?", "Max", (),
                {"evidence": [2], "stale": ["Rex"]})


# -- options -------------------------------------------------------------------------------
def test_options_are_json_when_they_are_json_and_text_otherwise():
    assert plugins.parse_options(["k=10", "fast=true", "ratio=0.5", "tags=[\"a\", 1]", "path=data/x y",
                                  "empty=", "name=\"quoted\"", "eq=a=b"]) == {
        "k": 10, "fast": True, "ratio": 0.5, "tags": ["a", 1], "path": "data/x y", "empty": "",
        "name": "quoted", "eq": "a=b"}


@pytest.mark.parametrize("pairs, message", [
    (["k"], "is not key=value"), (["=1"], "is not key=value"), (["1k=2"], "is not key=value"),
    (["k=1", "k=2"], "given twice"),
])
def test_bad_options_are_one_sentence(pairs, message):
    with pytest.raises(ValueError, match=message):
        plugins.parse_options(pairs)


@given(st.from_regex(r"[a-z_][a-z0-9_]{0,10}", fullmatch=True),
       st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
                    max_leaves=6))
def test_any_json_value_survives_the_command_line(key, value):
    assert plugins.parse_options([f"{key}={json.dumps(value)}"]) == {key: value}


def test_options_are_checked_against_the_constructor(example_on_path, tmp_path):
    with pytest.raises(ValueError, match="has no option 'colour'; it takes path"):
        build_system(SPEC, {"colour": "red"})
    with pytest.raises(ValueError, match="'grep' has no option 'k'; it takes no options"):
        build_system("grep", {"k": 3})
    db = tmp_path / "memories.sqlite3"
    system = build_system(SPEC, {"path": str(db)})  # options as a dict, from Python
    ingest_task(system, dog_task())
    system.close()
    again = build_system(SPEC, path=str(db))  # ... or as keywords: the file kept the memories
    assert again.search(task_user_id(dog_task()), "dog", 5)
    again.close()


# -- names and classes ---------------------------------------------------------------------
def test_a_plugin_by_import_path_ranks_isolates_and_forgets(example_on_path):
    system = build_system(SPEC)
    task = dog_task()
    ingest_task(system, task, "a")
    system.add("b", "0", [{"role": "user", "content": "My dog is Bello."}])
    found = system.search("a", task.question, 10)
    assert [m["content"] for m in found][:2] == ["We renamed the dog, he is called Max now.", "My dog is called Rex."]
    assert all("Bello" not in m["content"] for m in found)
    assert found[0]["created_at"] == 3_000 and found[0]["score"] >= found[1]["score"]
    system.reset("a")
    assert system.search("a", "dog", 5) == [] and system.search("b", "dog", 5)


@pytest.mark.parametrize("spec, error, message", [
    ("no_such_module_xyz:Thing", ValueError, "no module named 'no_such_module_xyz'"),
    ("fts_memory:Nope", ValueError, "fts_memory has no 'Nope'"),
    ("fts_memory:re", ValueError, "re is not a subclass of memory_arena.systems.MemorySystem"),
    ("memory_arena.systems.base:MemorySystem", ValueError, "does not implement add, reset, search"),
    ("a:b:c", ValueError, "package.module:ClassName"),
    ("fts_memory:", ValueError, "package.module:ClassName"),
])
def test_a_plugin_that_cannot_be_used_is_one_sentence(example_on_path, spec, error, message):
    with pytest.raises(error, match=message):
        build_system(spec)


def test_a_plugin_module_that_fails_on_import_is_named(tmp_path, monkeypatch):
    (tmp_path / "broken_plugin.py").write_text("raise KeyError('oops')\n")
    (tmp_path / "needy_plugin.py").write_text("import some_missing_dependency_xyz\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(RuntimeError, match="importing broken_plugin failed: KeyError"):
        build_system("broken_plugin:X")
    # A module the plugin needs is missing: the plugin's problem, not a misspelt name.
    with pytest.raises(RuntimeError, match="some_missing_dependency_xyz"):
        build_system("needy_plugin:X")


def test_check_name_accepts_specs_without_importing_and_lists_the_choices():
    check_name("not_imported_yet.module:Class")
    assert "not_imported_yet" not in sys.modules
    with pytest.raises(ValueError) as err:
        check_name("nope")
    for choice in ("minilm", "mem0", "chroma", "qdrant", "package.module:ClassName", "http://"):
        assert choice in str(err.value)


def test_an_adapter_without_its_extra_names_the_pip_install():
    for name, module in (("chroma", "chromadb"), ("qdrant", "qdrant_client"), ("mem0", "mem0")):
        try:
            __import__(module)
        except ImportError:
            with pytest.raises(MissingExtra, match=rf"pip install 'memory-arena\[{name}\]'"):
                build_system(name)


def test_the_environment_takes_a_plugin_and_its_options(example_on_path, tmp_path):
    settings = core.make_settings(memory_system=SPEC, memory_system_options={"path": str(tmp_path / "m.db")})
    system = core.open_memory_system(settings)
    assert type(system).__name__ == "FtsMemory" and (tmp_path / "m.db").exists()
    with pytest.raises(ValueError, match="memory_system_options must be a dict"):
        core.make_settings(memory_system=SPEC, memory_system_options=["path"])
    with pytest.raises(ValueError, match="package.module:ClassName"):
        core.make_settings(memory_system="a:b:c")


# -- the real commands ---------------------------------------------------------------------
def cli(*argv: str, pythonpath: list[Path], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in [REPO, *pythonpath])}
    return subprocess.run([sys.executable, "-m", "memory_arena.cli", *argv], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_the_example_plugin_benches_through_the_real_cli(tmp_path, example_on_path):
    done = cli("bench", "--system", f"{SPEC},grep", "--limit", "2", "--out", str(tmp_path / "out"),
               "--system-option", f"path={tmp_path / 'fts.sqlite3'}", pythonpath=[EXAMPLE], cwd=tmp_path)
    assert done.returncode == 2 and "'grep' has no option 'path'" in done.stderr  # options go to every system
    done = cli("bench", "--system", SPEC, "--limit", "2", "--out", str(tmp_path / "out"),
               "--system-option", f"path={tmp_path / 'fts.sqlite3'}", pythonpath=[EXAMPLE], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "| fts_memory:FtsMemory | 10 |" in done.stdout and (tmp_path / "fts.sqlite3").exists()
    folder = tmp_path / "out" / "fts_memory-FtsMemory"
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["system"] == {"name": "sqlite-fts"} and summary["metrics"]["overall"]["hit"] > 0
    # The same plugin in process scores the same, byte for byte.
    from memory_arena import bench
    from memory_arena.tasks.schema import load_tasks

    tasks = [t for t in load_tasks() if t.index < 2]
    records, _ = bench.bench_system(build_system(SPEC), tasks, 10)
    lines = (folder / "tasks.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in lines] == records
    timing = json.loads((folder / "timing.json").read_text())["overall"]
    assert timing["searches"] == 10 and timing["ready_p50_ms"] >= timing["search_p50_ms"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("argv, code, message", [
    (["--system", "no_such_plugin_xyz:X"], 2, "no module named 'no_such_plugin_xyz'"),
    (["--system", "fts_memory:FtsMemory", "--system-option", "nokey"], 2, "is not key=value"),
    (["--system", "broken_plugin:X"], 1, "importing broken_plugin failed"),
])
def test_plugin_errors_on_the_command_line_are_one_line(tmp_path, argv, code, message):
    (tmp_path / "broken_plugin.py").write_text("raise KeyError('oops')\n")
    done = cli("bench", *argv, "--limit", "1", "--out", str(tmp_path / "out"), pythonpath=[EXAMPLE, tmp_path],
               cwd=tmp_path)
    assert done.returncode == code and message in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert not (tmp_path / "out").exists()  # refused before anything was written


@pytest.mark.slow
def test_an_installed_plugin_is_found_by_its_entry_point_name(tmp_path):
    target, source = tmp_path / "site", tmp_path / "memory_plugin"
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("__pycache__"))  # setuptools builds in place
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                    "--target", str(target), str(source)], check=True, capture_output=True, timeout=300, cwd=tmp_path)
    done = cli("bench", "--system", "sqlite-fts", "--limit", "1", "--out", str(tmp_path / "out"),
               pythonpath=[target], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "| sqlite-fts | 5 |" in done.stdout
    done = cli("bench", "--system", "sqlite-ftz", "--limit", "1", "--out", str(tmp_path / "out"),
               pythonpath=[target], cwd=tmp_path)
    assert done.returncode == 2 and "sqlite-fts" in done.stderr  # the installed name is among the choices


@pytest.mark.slow
def test_the_reference_server_serves_a_plugin_backend(tmp_path):
    pytest.importorskip("starlette")
    from contract_procs import start_reference

    server = start_reference(tmp_path, "--backend", SPEC, "--backend-option", f"path={tmp_path / 'served.sqlite3'}",
                             env={"PYTHONPATH": os.pathsep.join([str(REPO), str(EXAMPLE)])})
    try:
        remote = cli("bench", "--system", server.url, "--limit", "2", "--out", str(tmp_path / "remote"),
                     pythonpath=[], cwd=tmp_path)
        health = subprocess.run([sys.executable, "-c", f"import httpx; print(httpx.get('{server.url}/health').text)"],
                                capture_output=True, text=True, timeout=60)
    finally:
        server.stop()
    assert remote.returncode == 0, remote.stderr + server.log.read_text()
    assert SPEC in health.stdout and (tmp_path / "served.sqlite3").exists()  # the option reached the backend
    local = cli("bench", "--system", SPEC, "--limit", "2", "--out", str(tmp_path / "local"), pythonpath=[EXAMPLE],
                cwd=tmp_path)
    here = (tmp_path / "local" / "fts_memory-FtsMemory" / "tasks.jsonl").read_bytes()
    there = next((tmp_path / "remote").glob("http-*")) / "tasks.jsonl"
    assert local.returncode == 0 and there.read_bytes() == here
    bad = cli("serve", "--backend", "nope:Nope:x", "--port", "0", "--db", str(tmp_path / "x.sqlite3"), pythonpath=[],
              cwd=tmp_path)
    assert bad.returncode == 2 and "backend 'nope:Nope:x'" in bad.stderr and not (tmp_path / "x.sqlite3").exists()
    bad = cli("serve", "--backend", "grep", "--backend-option", "k=3", "--port", "0", "--db", str(tmp_path / "x.sqlite3"),
              pythonpath=[], cwd=tmp_path)
    assert bad.returncode == 2 and "backend 'grep' has no option 'k'" in bad.stderr


PLUGIN_WITH_OPTION = '''
from memory_arena.systems.bm25 import BM25System


class MarkedBM25(BM25System):
    name = "marked-bm25"

    def __init__(self, marker_file: str) -> None:
        super().__init__()
        with open(marker_file, "a") as fh:
            fh.write("built\\n")
'''


@pytest.mark.slow
@pytest.mark.verifiers
def test_a_plugin_and_its_options_through_the_real_vf_eval(tmp_path, monkeypatch):
    """`memory_system` names a plugin and `memory_system_options` reaches its constructor
    through vf-eval's own argument handling (0.4 flags, 0.3 `-a` JSON); the plugin ranks as the
    bm25 it extends, so the model is sent exactly bm25's memories and rewarded accordingly."""
    pytest.importorskip("bm25s")
    from test_env_memory_system import NUM, TOP_K, _check, _entries, _tasks
    from vf_eval_runner import ScriptedServer, by_task, run_vf_eval

    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "marked_bm25.py").write_text(PLUGIN_WITH_OPTION)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(REPO), str(tmp_path / "plugins")]))
    marker = tmp_path / "built.txt"
    tasks = _tasks()
    args = {"memory_system": "marked_bm25:MarkedBM25", "memory_system_options": {"marker_file": str(marker)},
            "top_k": TOP_K, "num_examples": NUM}
    with ScriptedServer(tmp_path / "server", _entries(tasks, build_system("bm25"))) as server:
        rollouts = by_task(run_vf_eval(server, tmp_path / "out", NUM, args))
        requests = server.requests()
    _check(tasks, rollouts, requests)
    assert marker.read_text().startswith("built")
