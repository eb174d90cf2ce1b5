"""Metrics on small hand-made inputs whose figures were computed by hand."""

from __future__ import annotations

import json

import pytest

from memory_arena.tasks.schema import Task
from memory_arena.verifier.metrics import WEIGHTS, build_report, format_report, memory_score, wilson
from memory_arena.verifier.scoring import Score


def task(category: str, i: int, noise: int = 0, **meta) -> Task:
    return Task(id=f"{category}-{i:04d}", category=category, noise_turns=noise, turns=(), question="q?",
                answer="Lyon", aliases=(), meta={"stale": ["Porto"], "distractors": [], **meta})


def test_weights_sum_to_one_and_match_the_spec():
    assert sum(WEIGHTS.values()) == pytest.approx(1.0)
    assert WEIGHTS == {"recall": 0.20, "update": 0.25, "contradiction": 0.20, "temporal": 0.15, "relational": 0.20}


def test_wilson_by_hand():
    # 5/10: centre 0.5, half-width 1.96 * sqrt(0.025 + 0.0096) / 1.3841 = 0.2634
    assert wilson(5, 10) == [0.2366, 0.7634]
    # 0/100: upper bound z^2/n / (1 + z^2/n) = 0.038416 / 1.038416 = 0.0370
    assert wilson(0, 100) == [0.0, 0.037]
    assert wilson(0, 0) == [0.0, 1.0]


def test_memory_score_by_hand():
    pairs = [
        (task("recall", 0, 5), "Lyon"), (task("recall", 1, 60), "Porto"),  # 1/2
        (task("update", 0), "Lyon"), (task("update", 1), "It's Lyon."),  # 2/2
        (task("contradiction", 0), "Porto"), (task("contradiction", 1), "Lyon or Porto"),  # 0/2
        (task("temporal", 0, question_kind="as_of_day"), "Lyon"),  # 1/1
        (task("relational", 0, hops=2), "Lyon"),  # 1/1
    ]
    report = build_report(pairs)
    # 0.20 * 0.5 + 0.25 * 1 + 0.20 * 0 + 0.15 * 1 + 0.20 * 1 = 0.70
    assert report["memory_score"]["value"] == 0.7
    assert report["memory_score"]["complete"] is True
    assert report["categories"]["recall"] == {"accuracy": 0.5, "n": 2, "correct": 1, "ci": wilson(1, 2)}
    assert report["update_accuracy"] == 1.0 and report["contradiction_score"] == 0.0
    assert report["recall_at"]["10"]["accuracy"] == 1.0 and report["recall_at"]["100"]["accuracy"] == 0.0
    assert report["recall_at"]["50"]["n"] == 0
    assert report["temporal"]["as_of_day"]["n"] == 1 and report["temporal"]["current"]["n"] == 0
    assert report["relational_hops"] == {"2": {"accuracy": 1.0, "n": 1, "correct": 1, "ci": wilson(1, 1)}}
    # Stale rate over update, contradiction, temporal replies: "Porto" and "Lyon or Porto" of 5.
    assert report["stale_rate"] == {"value": 0.4, "count": 2, "n": 5, "ci": wilson(2, 5)}
    assert report["reasons"]["hedged"] == 1 and report["reasons"]["missing"] == 2
    json.dumps(report)  # JSON-ready


def test_memory_score_interval_by_hand():
    # One category present, 1 of 2 right: weight renormalised to 1; smoothed p = 2/4,
    # variance 0.25 / 2 = 0.125, half-width 1.96 * 0.3536 = 0.693 -> [0, 1] after clipping.
    cells = {"recall": {"n": 2, "correct": 1}}
    result = memory_score(cells)
    assert result["value"] == 0.5 and result["ci"] == [0.0, 1.0] and result["complete"] is False
    # Perfect on 100 per category: p = 101/102, var_c = 0.0097/100, sum w^2 = 0.205 -> half 0.0087
    full = {c: {"n": 100, "correct": 100} for c in WEIGHTS}
    assert memory_score(full)["ci"] == [0.9913, 1.0]


def test_scores_and_rewards_are_accepted_as_well_as_replies():
    t = task("update", 0)
    assert build_report([(t, Score(1.0, "exact"))])["categories"]["update"]["accuracy"] == 1.0
    report = build_report([(t, 0.0), (task("update", 1), 1.0)])
    assert report["categories"]["update"]["accuracy"] == 0.5
    assert report["stale_rate"]["n"] == 0  # bare rewards say nothing about stale values


def test_depth_curve_bins_recall_by_noise():
    pairs = [(task("recall", i, noise), "Lyon" if noise <= 10 else "no") for i, noise in enumerate((6, 10, 12, 95))]
    curve = build_report(pairs)["depth_curve"]
    assert [(b["low"], b["high"], b["n"], b["accuracy"]) for b in curve] == [(0, 10, 2, 1.0), (10, 20, 1, 0.0), (90, 100, 1, 0.0)]


def test_long_horizon_bucket_appears_only_beyond_100():
    assert ">100" in build_report([(task("recall", 0, 400), "Lyon")])["recall_at"]
    assert ">100" not in build_report([(task("recall", 0, 40), "Lyon")])["recall_at"]


def test_format_report_is_readable():
    text = format_report(build_report([(task("update", 0), "Lyon")]), title="demo")
    assert text.splitlines()[0] == "demo"
    assert "Memory Score 100.0%" in text and "partial: update" in text
