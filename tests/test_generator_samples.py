"""examples/sample_tasks.py: prints one task per category or one task by id, marks evidence
turns, elides long conversations with exact counts, and turns bad input into one line, exit 2."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

from memory_arena.tasks import CATEGORIES, load_tasks
from memory_arena.tasks.schema import dataset_dir

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "examples" / "sample_tasks.py"


@pytest.fixture(scope="module")
def sample_tasks():
    spec = importlib.util.spec_from_file_location("sample_tasks", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def shipped():
    return {t.id: t for t in load_tasks()}


def run(sample_tasks, capsys, *args: str) -> tuple[int, str, str]:
    try:
        code = sample_tasks.main(["--width", "100", *args])
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def turn_lines(out: str) -> dict[int, str]:
    """Turn index -> its first printed line."""
    return {int(m[1]): m[0] for m in re.finditer(r"^ *(\d+)  s\d+ +(?:user|assistant).*$", out, re.M)}


def test_script_runs_standalone_one_task_per_category():
    result = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=60, cwd=ROOT / "examples")
    assert result.returncode == 0 and result.stderr == ""
    headers = re.findall(r"^(\w+-\d{4}) +category: (\w+)", result.stdout, re.M)
    assert headers == [(f"{c}-0000", c) for c in CATEGORIES]
    for label in ("question", "answer", "aliases", "stale", "distractors"):
        assert len(re.findall(rf"^{label} ", result.stdout, re.M)) == len(CATEGORIES), label


@pytest.mark.parametrize("task_id", ["recall-0042", "update-0007", "contradiction-0003", "temporal-0010", "relational-0002"])
def test_one_task_by_id(sample_tasks, capsys, shipped, task_id):
    task = shipped[task_id]
    code, out, err = run(sample_tasks, capsys, "--id", task_id)
    assert code == 0 and err == ""
    assert re.search(rf"^{task_id} +category: {task.category} +noise turns: {task.noise_turns} +depth: {task.meta['depth']}$",
                     out, re.M)
    assert f"\nanswer       {task.answer}\n" in out
    assert "\nquestion     " + task.question.split()[0] in out
    stale = ", ".join(task.stale) or "-"
    assert re.search(r"^stale +" + re.escape(stale[:40]), out, re.M)
    lines = turn_lines(out)
    for i in task.evidence:
        assert re.match(rf" *{i}  s{task.turns[i].session} +user +\* ", lines[i]), lines[i]
    starred = [i for i, line in lines.items() if re.match(r" *\d+  s\d+ +\w+ +\* ", line)]
    assert starred == task.evidence
    headers = [int(n) for n in re.findall(r"^ *-- session (\d+), from \w{3} ", out, re.M)]
    assert headers == sorted({task.turns[i].session for i in lines})


def test_long_conversation_is_elided_with_exact_counts(sample_tasks, capsys, shipped):
    task = max((t for t in shipped.values() if t.category == "update"), key=lambda t: len(t.turns))
    code, out, _ = run(sample_tasks, capsys, "--id", task.id)
    assert code == 0
    shown = turn_lines(out)
    elided = [int(n) for n in re.findall(r"\.\.\. (\d+) turns elided", out)]
    assert elided and len(shown) + sum(elided) == len(task.turns)
    assert f"({len(shown)} of {len(task.turns)} turns shown; --full shows all)" in out
    assert set(task.evidence) <= set(shown) and {0, len(task.turns) - 1} <= set(shown)
    for i, line in shown.items():  # every printed turn is the right one
        assert task.turns[i].content.split()[0] in line

    code, out, _ = run(sample_tasks, capsys, "--id", task.id, "--full")
    assert code == 0 and sorted(turn_lines(out)) == list(range(len(task.turns)))
    assert "elided" not in out


def test_short_conversation_is_shown_whole(sample_tasks, capsys, shipped):
    short = min(shipped.values(), key=lambda t: len(t.turns))
    code, out, _ = run(sample_tasks, capsys, "--id", short.id)
    assert code == 0 and len(turn_lines(out)) == len(short.turns) and "elided" not in out


def test_index_and_data_options(sample_tasks, capsys, tmp_path):
    from memory_arena.tasks import write_dataset
    write_dataset(tmp_path, seed=5, n=3)
    code, out, _ = run(sample_tasks, capsys, "--data", str(tmp_path), "--index", "2")
    assert code == 0
    assert re.findall(r"^(\w+-\d{4}) ", out, re.M) == [f"{c}-0002" for c in CATEGORIES]
    assert f"\nanswer       {load_tasks(tmp_path, ['temporal'])[2].answer}\n" in out


@pytest.mark.parametrize("args, message", [
    (["--id", "recall-9999"], "no task recall-9999 in"),
    (["--id", "bogus"], "no task 'bogus'"),
    (["--id", "recall"], "no task 'recall'"),
    (["--index", "x"], "expected a task index"),
    (["--index", "100"], "no task recall #100"),
    (["--data", "no-such-folder"], "is not a folder"),
], ids=lambda a: " ".join(a) if isinstance(a, list) else "")
def test_bad_input_one_line_exit_2(sample_tasks, capsys, args, message):
    code, out, err = run(sample_tasks, capsys, *args)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("sample_tasks.py: error: ") and message in err, err


def test_corrupt_or_missing_file_names_it(tmp_path):
    for category in CATEGORIES:
        (tmp_path / f"{category}.jsonl").write_bytes((dataset_dir() / f"{category}.jsonl").read_bytes())
    path = tmp_path / "update.jsonl"
    path.write_text("{broken\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "temporal.jsonl").unlink()
    for args, message in ((["--id", "update-0001"], f"{path}:1: "), (["--id", "temporal-0001"], "temporal.jsonl: no such dataset file")):
        result = subprocess.run([sys.executable, str(SCRIPT), "--data", str(tmp_path), *args],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 2 and result.stdout == ""
        assert len(result.stderr.splitlines()) == 1 and message in result.stderr, result.stderr
