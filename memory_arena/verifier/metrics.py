"""From scored replies to the MemoryArena report (SPEC §7).

`build_report(pairs)` takes (task, reply), (task, Score) or (task, float) pairs and returns a
JSON-ready dict; `format_report` renders it as a readable table. The same function serves
`run_offline.py`, `vf-eval` outputs and the memory-system bench, so a figure means the same
thing wherever it is shown.

Intervals are 95%: Wilson score intervals for every accuracy; for the Memory Score a
stratified normal approximation (the categories are independent samples), with each
category's variance taken at the Laplace-smoothed rate (k+1)/(n+2) so that a category scored
all right or all wrong still contributes its sampling uncertainty. Both are closed forms:
deterministic, and cheap enough for the offline baselines' one-second budget.
"""

from __future__ import annotations

import math
from typing import Any, Iterable

from ..tasks.schema import CATEGORIES, Task
from .scoring import REASONS, Score, score

WEIGHTS: dict[str, float] = {"recall": 0.20, "update": 0.25, "contradiction": 0.20, "temporal": 0.15, "relational": 0.20}
"""Memory Score weights: update weighs most, because keeping the newest truth is the point."""

RECALL_BUCKETS = ((0, 10), (10, 50), (50, 100))
"""Recall@10/@50/@100: recall tasks with noise_turns in (0,10], (10,50], (50,100]."""

STALE_CATEGORIES = ("update", "contradiction", "temporal")
"""Categories with superseded values, over which the stale rate is computed."""

Z95 = 1.959963984540054


def wilson(correct: int, n: int) -> list[float]:
    """95% Wilson score interval for `correct` successes out of `n` ([0, 1] when n is 0)."""
    if n == 0:
        return [0.0, 1.0]
    p = correct / n
    denominator = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / denominator
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / denominator
    return [round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)]


def _cell(values: list[float]) -> dict[str, Any]:
    """Accuracy with its count and interval."""
    n, correct = len(values), int(sum(values))
    return {"accuracy": round(correct / n, 4) if n else None, "n": n, "correct": correct, "ci": wilson(correct, n)}


def _as_score(task: Task, outcome: Any) -> Score:
    if isinstance(outcome, Score):
        return outcome
    if isinstance(outcome, (int, float)) and not isinstance(outcome, bool):
        # A bare reward: the reason and the stale flag are unknown.
        return Score(1.0 if outcome >= 0.5 else 0.0, "unknown")
    return score(task, outcome)


def memory_score(categories: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The weighted Memory Score over the categories present (weights renormalised when some
    are absent, and `complete` says so) with its 95% interval."""
    present = {c: cell for c, cell in categories.items() if cell["n"] and c in WEIGHTS}
    if not present:
        return {"value": None, "ci": [0.0, 1.0], "complete": False, "categories": []}
    total = sum(WEIGHTS[c] for c in present)
    value = sum(WEIGHTS[c] / total * cell["correct"] / cell["n"] for c, cell in present.items())
    variance = sum((WEIGHTS[c] / total) ** 2 * _smoothed_variance(cell["correct"], cell["n"]) for c, cell in present.items())
    half = Z95 * math.sqrt(variance)
    return {"value": round(value, 4), "ci": [round(max(0.0, value - half), 4), round(min(1.0, value + half), 4)],
            "complete": len(present) == len(WEIGHTS), "categories": sorted(present, key=list(WEIGHTS).index)}


def _smoothed_variance(correct: int, n: int) -> float:
    p = (correct + 1) / (n + 2)
    return p * (1 - p) / n


def build_report(pairs: Iterable[tuple[Task, Any]]) -> dict[str, Any]:
    """The SPEC §7 report from (task, reply | Score | reward) pairs."""
    by_category: dict[str, list[float]] = {c: [] for c in CATEGORIES}
    recall_by_noise: list[tuple[int, float]] = []
    temporal: dict[str, list[float]] = {"current": [], "as_of_day": []}
    hops: dict[str, list[float]] = {}
    reasons = dict.fromkeys(REASONS, 0)
    stale_hits, stale_n = 0, 0
    n = 0
    for task, outcome in pairs:
        result = _as_score(task, outcome)
        n += 1
        by_category.setdefault(task.category, []).append(result.value)
        reasons[result.reason] = reasons.get(result.reason, 0) + 1
        if task.category == "recall":
            recall_by_noise.append((task.noise_turns, result.value))
        elif task.category == "temporal":
            temporal.setdefault(task.meta.get("question_kind", "current"), []).append(result.value)
        elif task.category == "relational":
            hops.setdefault(str(task.meta.get("hops", "?")), []).append(result.value)
        if task.category in STALE_CATEGORIES and result.reason != "unknown":
            stale_n += 1
            stale_hits += result.stale
    categories = {c: _cell(v) for c, v in by_category.items()}
    return {
        "n": n,
        "memory_score": memory_score(categories),
        "categories": categories,
        "recall_at": _recall_at(recall_by_noise),
        "depth_curve": _depth_curve(recall_by_noise),
        "update_accuracy": categories["update"]["accuracy"],
        "contradiction_score": categories["contradiction"]["accuracy"],
        "temporal": {kind: _cell(v) for kind, v in temporal.items()},
        "relational_hops": {h: _cell(v) for h, v in sorted(hops.items())},
        "stale_rate": {"value": round(stale_hits / stale_n, 4) if stale_n else None, "count": stale_hits, "n": stale_n,
                       "ci": wilson(stale_hits, stale_n)},
        "reasons": {k: v for k, v in reasons.items() if v or k in REASONS},
        "weights": WEIGHTS,
    }


def _recall_at(recall_by_noise: list[tuple[int, float]]) -> dict[str, dict[str, Any]]:
    buckets = list(RECALL_BUCKETS)
    longest = max((k for k, _ in recall_by_noise), default=0)
    if longest > 100:
        buckets.append((100, longest))  # long-horizon sets (--max-noise above 100)
    return {str(high) if high <= 100 else f">{low}": _cell([v for k, v in recall_by_noise if low < k <= high])
            for low, high in buckets}


def _depth_curve(recall_by_noise: list[tuple[int, float]], width: int = 10) -> list[dict[str, Any]]:
    """Recall accuracy by noise depth in bins of `width` turns: (0,10], (10,20], ..."""
    bins: dict[int, list[float]] = {}
    for k, v in recall_by_noise:
        bins.setdefault(max(0, (k - 1) // width), []).append(v)
    return [{"low": b * width, "high": (b + 1) * width, **_cell(v)} for b, v in sorted(bins.items())]


# ---------------------------------------------------------------------------------------------
# Rendering
def _pct(value: float | None) -> str:
    return "   -  " if value is None else f"{100 * value:5.1f}%"


def _ci(ci: list[float]) -> str:
    return f"[{100 * ci[0]:5.1f}, {100 * ci[1]:5.1f}]"


def format_report(report: dict[str, Any], title: str | None = None) -> str:
    """A readable fixed-width table of a report."""
    ms = report["memory_score"]
    lines = [title] if title else []
    partial = "" if ms["complete"] else f"  (partial: {', '.join(ms['categories']) or 'no categories'})"
    lines.append(f"Memory Score {_pct(ms['value'])}  95% CI {_ci(ms['ci'])}  over {report['n']} tasks{partial}")
    lines.append(f"  {'category':<14}{'weight':>7}{'acc':>9}{'n':>6}  95% CI")
    for name, cell in report["categories"].items():
        if cell["n"]:
            lines.append(f"  {name:<14}{WEIGHTS.get(name, 0):>7.2f}{_pct(cell['accuracy']):>9}{cell['n']:>6}  {_ci(cell['ci'])}")
    details = []
    for key, cell in report["recall_at"].items():
        if cell["n"]:
            details.append(f"Recall@{key} {_pct(cell['accuracy']).strip()} (n={cell['n']})")
    for kind, cell in report["temporal"].items():
        if cell["n"]:
            details.append(f"temporal {kind} {_pct(cell['accuracy']).strip()} (n={cell['n']})")
    for hop, cell in report["relational_hops"].items():
        details.append(f"relational {hop}-hop {_pct(cell['accuracy']).strip()} (n={cell['n']})")
    stale = report["stale_rate"]
    if stale["n"]:
        details.append(f"stale rate {_pct(stale['value']).strip()} ({stale['count']}/{stale['n']})")
    lines += [f"  {d}" for d in details]
    reasons = ", ".join(f"{k} {v}" for k, v in report["reasons"].items() if v)
    lines.append(f"  reasons: {reasons}")
    return "\n".join(lines)
