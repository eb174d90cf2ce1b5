"""The offline baselines reproduce the expected pattern, and never look at the answer."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from memory_arena.baselines import BASELINE_NAMES, candidates, hedge, hedge_short, make_baseline
from memory_arena.tasks.forms import value_forms
from memory_arena.verifier.metrics import build_report
from memory_arena.verifier.scoring import score

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def reports(shipped_tasks):
    return {name: build_report((t, make_baseline(name, shipped_tasks)(t)) for t in shipped_tasks) for name in BASELINE_NAMES}


def accuracy(report, category):
    return report["categories"][category]["accuracy"]


def test_latest_fact_is_perfect_everywhere(reports):
    for category in ("recall", "update", "contradiction", "temporal", "relational"):
        assert accuracy(reports["latest-fact"], category) == 1.0, category
    assert reports["latest-fact"]["memory_score"]["value"] == 1.0


def test_stale_fact_keeps_old_truth(reports):
    r = reports["stale-fact"]
    assert accuracy(r, "recall") == 1.0 and accuracy(r, "relational") == 1.0
    assert accuracy(r, "update") == 0.0 and accuracy(r, "contradiction") == 0.0
    assert r["stale_rate"]["value"] > 0.9


@pytest.mark.parametrize("name", ["hedge", "hedge-short", "most-common", "random-candidate"])
def test_gaming_baselines_score_low(reports, name):
    assert reports[name]["memory_score"]["value"] < 0.15


@pytest.mark.parametrize("name", ["hedge", "hedge-short"])
def test_hedges_score_zero_on_every_task(shipped_tasks, name):
    baseline = make_baseline(name, shipped_tasks)
    passed = [t.id for t in shipped_tasks if score(t, baseline(t)).value]
    assert passed == []


def test_hedge_short_names_candidates_by_their_shortest_form(shipped_tasks):
    differs = [t for t in shipped_tasks if hedge(t) != hedge_short(t)]
    assert differs, "no candidate in the dataset has a shorter form: the variant tests nothing"
    for task in differs[:50]:
        for value in candidates(task):
            assert min(value_forms(value), key=len) in hedge_short(task)


@pytest.mark.parametrize("name", BASELINE_NAMES)
def test_baselines_never_read_the_answer(shipped_tasks, name):
    """Blanking answer, aliases, stale and distractors must not change a single reply."""
    blind = [dataclasses.replace(t, answer="?", aliases=(), meta={**t.meta, "stale": [], "distractors": []})
             for t in shipped_tasks]
    seeing, not_seeing = make_baseline(name, shipped_tasks), make_baseline(name, blind)
    assert [seeing(t) for t in shipped_tasks] == [not_seeing(t) for t in blind]


def test_unknown_baseline(shipped_tasks):
    with pytest.raises(ValueError, match="unknown baseline"):
        make_baseline("oracle", shipped_tasks)


def run(*args, cwd=ROOT):
    return subprocess.run([sys.executable, str(ROOT / "examples" / "run_offline.py"), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_run_offline_prints_every_report_and_writes_json(tmp_path):
    out = tmp_path / "sub" / "results.json"
    proc = run("--json", str(out), cwd=tmp_path)  # from another folder: the script finds its package
    assert proc.returncode == 0, proc.stderr
    for name in BASELINE_NAMES:
        assert f"== {name} ==" in proc.stdout
    data = json.loads(out.read_text())
    assert list(data) == list(BASELINE_NAMES)
    for report in data.values():
        assert set(report["categories"]) == {"recall", "update", "contradiction", "temporal", "relational"}
        for cell in report["categories"].values():
            assert {"accuracy", "n", "ci"} <= set(cell)
        assert 0.0 <= report["memory_score"]["value"] <= 1.0
    assert data["latest-fact"]["memory_score"]["value"] == 1.0


def test_run_offline_subset_and_other_dataset(tmp_path):
    subprocess.run([sys.executable, str(ROOT / "generator.py"), "--n", "4", "--seed", "9", "--out", str(tmp_path)],
                   check=True, capture_output=True)
    proc = run("--baselines", "latest-fact,hedge", "--data", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "== latest-fact ==" in proc.stdout and "== stale-fact ==" not in proc.stdout
    assert "over 20 tasks" in proc.stdout


@pytest.mark.parametrize("args, message", [
    (["--baselines", "oracle"], "unknown baseline"),
    (["--data", "no/such/folder"], "no such dataset file"),
    (["--seed", "x"], "invalid int value"),
])
def test_run_offline_bad_input(args, message):
    proc = run(*args)
    assert proc.returncode == 2
    assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_run_offline_corrupt_dataset_names_file_and_line(tmp_path):
    subprocess.run([sys.executable, str(ROOT / "generator.py"), "--n", "2", "--out", str(tmp_path)], check=True, capture_output=True)
    path = tmp_path / "update.jsonl"
    lines = path.read_text().splitlines()
    path.write_text(lines[0] + "\n{not json\n")
    proc = run("--data", str(tmp_path))
    assert proc.returncode == 2 and "update.jsonl:2" in proc.stderr
