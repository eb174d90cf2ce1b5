"""Metrics on small hand-made inputs whose figures were computed by hand."""

from __future__ import annotations

import json

import pytest

from memory_arena.tasks.schema import Task
from memory_arena.verifier.metrics import WEIGHTS, Reply, build_report, format_report, later_values, memory_score, wilson
from memory_arena.verifier.scoring import Score, score


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
    assert report["categories"]["recall"] == {"accuracy": 0.5, "n": 2, "correct": 1, "rollouts": 2, "ci": wilson(1, 2)}
    assert report["n"] == report["tasks"] == 8 and report["rollouts_per_task"] == [1, 1] and "repeated" not in report
    assert report["update_accuracy"] == 1.0 and report["contradiction_score"] == 0.0
    assert report["recall_at"]["10"]["accuracy"] == 1.0 and report["recall_at"]["100"]["accuracy"] == 0.0
    assert report["recall_at"]["50"]["n"] == 0
    assert report["temporal"]["as_of_day"]["n"] == 1 and report["temporal"]["current"]["n"] == 0
    assert report["relational_hops"] == {"2": {"accuracy": 1.0, "n": 1, "correct": 1, "rollouts": 1, "ci": wilson(1, 1)}}
    # Stale rate over update, contradiction, temporal replies: "Porto" and "Lyon or Porto" of 5.
    assert report["stale_rate"] == {"value": 0.4, "count": 2, "n": 5, "rollouts": 5, "ci": wilson(2, 5)}
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


# -- repeated rollouts -----------------------------------------------------------------------
def test_repeated_rollouts_are_counted_per_task():
    """2 update tasks x 3 rollouts: A right, right, wrong; B wrong three times. Accuracy is the
    mean of task means (2/3 + 0) / 2, with the interval over the 2 tasks, not 6 samples."""
    a, b = task("update", 0), task("update", 1)
    pairs = [(a, "Lyon"), (b, "Porto"), (a, "Lyon"), (b, "Porto"), (a, "Porto"), (b, "no idea")]
    report = build_report(pairs)
    assert report["n"] == 6 and report["tasks"] == 2 and report["rollouts_per_task"] == [3, 3]
    cell = report["categories"]["update"]
    assert cell == {"accuracy": 0.3333, "n": 2, "correct": 0.6667, "rollouts": 6, "ci": wilson(2 / 3, 2)}
    # pass@3: A has a right rollout, B none -> 1/2; all-3: neither -> 0; disagree: A -> 1/2.
    repeated = report["repeated"]
    assert repeated["k"] == 3
    assert repeated["categories"]["update"] == {
        "tasks": 2, "pass_at_k": 0.5, "pass_at_k_ci": wilson(1, 2), "all_k": 0.0, "all_k_ci": wilson(0, 2),
        "disagree": 0.5, "disagree_count": 1}
    assert repeated["all"]["pass_at_k"] == 0.5
    # Stale rate over tasks: A names Porto in 1 of 3, B in 2 of 3 -> (1/3 + 2/3) / 2.
    assert report["stale_rate"] == {"value": 0.5, "count": 3, "n": 2, "rollouts": 6, "ci": wilson(1.0, 2)}
    text = format_report(report)
    assert "over 2 tasks x 3 rollouts" in text and "pass@3" in text and "all-3" in text and "disagree" in text
    assert "stale rate 50.0% (3 of 6 rollouts)" in text


def test_identical_rollouts_do_not_narrow_the_interval():
    tasks = [task("recall", i) for i in range(10)]
    once = build_report([(t, "Lyon" if i < 7 else "Porto") for i, t in enumerate(tasks)])
    thrice = build_report([(t, "Lyon" if i < 7 else "Porto") for _ in range(3) for i, t in enumerate(tasks)])
    assert thrice["categories"]["recall"]["ci"] == once["categories"]["recall"]["ci"] == wilson(7, 10)
    assert thrice["memory_score"] == once["memory_score"]
    assert thrice["repeated"]["categories"]["recall"]["disagree"] == 0.0
    assert thrice["repeated"]["categories"]["recall"]["pass_at_k"] == thrice["repeated"]["categories"]["recall"]["all_k"] == 0.7


def test_pass_at_k_with_uneven_rollouts_uses_the_smallest_count():
    """One task has 3 rollouts (right, wrong, right), the other 2 (right, right): k = 2.
    Task 1: pass@2 = 1 - C(1,2)/C(3,2) = 1, all-2 = C(2,2)/C(3,2) = 1/3; task 2: 1 and 1."""
    a, b = task("recall", 0), task("recall", 1)
    report = build_report([(a, "Lyon"), (a, "Porto"), (a, "Lyon"), (b, "Lyon"), (b, "Lyon")])
    assert report["rollouts_per_task"] == [2, 3]
    cell = report["repeated"]["categories"]["recall"]
    assert report["repeated"]["k"] == 2 and cell["pass_at_k"] == 1.0 and cell["all_k"] == round((1 / 3 + 1) / 2, 4)
    assert "over 2 tasks x 2-3 rollouts (5 in all)" in format_report(report)


# -- as-of-day: a later day's value is the wrong day, not the old truth ------------------------
def _as_of_day() -> Task:
    """Asked about Wednesday: Lyon was set on Monday, Porto on Wednesday (the answer), Oslo on Friday."""
    events = [{"turn": 2, "op": "set", "slot": "work_city", "value": "Lyon", "day": 0},
              {"turn": 4, "op": "mention", "value": "Rome"},
              {"turn": 6, "op": "set", "slot": "work_city", "value": "Porto", "day": 2},
              {"turn": 10, "op": "set", "slot": "work_city", "value": "Oslo", "day": 4}]
    return Task(id="temporal-0000", category="temporal", noise_turns=0, turns=(), question="Which city on Wednesday?",
                answer="Porto", aliases=(), meta={"slot": "work_city", "evidence": [6], "stale": ["Lyon", "Oslo"],
                                                  "distractors": ["Rome"], "question_kind": "as_of_day",
                                                  "as_of_day": "Wednesday", "events": events})


def test_later_values_of_an_as_of_day_question():
    assert later_values(_as_of_day()) == ("Oslo",)
    assert later_values(task("temporal", 0, question_kind="current")) == ()
    assert later_values(task("update", 0)) == ()


def test_a_later_days_value_is_counted_as_the_wrong_day():
    t = _as_of_day()
    later = build_report([(t, "Oslo")])
    assert later["wrong_day_rate"]["value"] == 1.0 and later["stale_rate"]["value"] == 0.0
    older = build_report([(t, "Lyon")])
    assert older["wrong_day_rate"]["value"] == 0.0 and older["stale_rate"]["value"] == 1.0
    both = build_report([(t, "Lyon or Oslo")])
    assert both["wrong_day_rate"]["value"] == 1.0 and both["stale_rate"]["value"] == 1.0
    right = build_report([(t, Reply("Porto", score(t, "Porto")))])
    assert right["wrong_day_rate"] == {"value": 0.0, "count": 0, "n": 1, "rollouts": 1, "ci": wilson(0, 1)}
    # A re-scored reply kept with its text splits the same way; a bare Score cannot be split.
    assert build_report([(t, Reply("Oslo", score(t, "Oslo")))])["wrong_day_rate"]["value"] == 1.0
    assert build_report([(t, score(t, "Oslo"))])["stale_rate"]["value"] == 1.0
    # Questions about the current value have no wrong day.
    current = build_report([(task("temporal", 1, question_kind="current"), "Porto")])
    assert current["wrong_day_rate"]["n"] == 0 and current["stale_rate"]["value"] == 1.0
    assert "wrong day (as-of-day) 100.0% (1 of 1 replies)" in format_report(later)
