"""The report of a suite beyond the canonical 500 (docs/suites.md, "Metrics"): figures that are
never mixed into the headline Memory Score.

- every suite: accuracy per file (`retraction`, `twin`, `pressure`; the five kinds of `long`),
  each the mean over tasks of the task's mean reward with its Wilson interval, like the
  canonical categories (`metrics._cell`);
- `forget`: **paired** scoring. A retraction (the answer is that there is none) and its twin (the
  same history, answerable) form a pair; the pair's score is the mean of the two tasks' scores,
  so a model that always abstains gets 0.5 and one that never does at most 0.5. `both` is the
  share of pairs with both right. Forgetting pressure is reported on its own;
- `long`: accuracy by **token distance** between the last evidence turn and the question
  (`meta.token_distance`: estimated tokens of the turns after the evidence), in the buckets
  1k, 8k, 32k, 128k and beyond.
"""

from __future__ import annotations

from typing import Any

DISTANCE_BUCKETS = ((0, 1_000, "1k"), (1_000, 8_000, "8k"), (8_000, 32_000, "32k"), (32_000, 128_000, "128k"),
                    (128_000, None, "128k+"))
"""(low, high] token distances and their labels: the LongMemEval / MemoryAgentBench scales."""


def distance_bucket(tokens: int) -> str:
    """The label of the bucket a token distance falls in."""
    for low, high, label in DISTANCE_BUCKETS:
        if high is None or tokens <= high:
            return label
    raise AssertionError("the last bucket is open")


def suite_reports(groups: list[dict[str, Any]], cell) -> dict[str, dict[str, Any]]:
    """{suite: report} over the rollout groups of suite tasks (`metrics.build_report`'s groups:
    task and values); `cell` is the metrics' accuracy cell, so a figure means the same here."""
    by_suite: dict[str, list[dict[str, Any]]] = {}
    for group in groups:
        by_suite.setdefault(group["task"].meta["suite"], []).append(group)
    return {name: _suite(name, members, cell) for name, members in sorted(by_suite.items())}


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def _suite(name: str, groups: list[dict[str, Any]], cell) -> dict[str, Any]:
    files: dict[str, list[list[float]]] = {}
    for group in groups:
        files.setdefault(group["task"].category, []).append(group["values"])
    out: dict[str, Any] = {"files": {f: cell(v) for f, v in files.items()}, "all": cell([g["values"] for g in groups])}
    if name == "forget":
        out["paired"] = _paired(groups)
    if any("token_distance" in g["task"].meta for g in groups):
        buckets: dict[str, list[list[float]]] = {label: [] for _, _, label in DISTANCE_BUCKETS}
        for group in groups:
            if "token_distance" in group["task"].meta:
                buckets[distance_bucket(group["task"].meta["token_distance"])].append(group["values"])
        out["distance"] = {label: cell(v) for label, v in buckets.items()}
    return out


def _paired(groups: list[dict[str, Any]]) -> dict[str, Any]:
    """Pairs whose two tasks were both run (`meta.pair` names the other one)."""
    by_id = {(g["task"].category, g["task"].id): g for g in groups}
    scores, both = [], []
    for group in groups:
        task = group["task"]
        if task.category != "retraction":
            continue
        twin = by_id.get(("twin", task.meta.get("pair")))
        if twin is None:
            continue
        mine, theirs = _mean(group["values"]), _mean(twin["values"])
        scores.append((mine + theirs) / 2)
        both.append(mine >= 0.5 and theirs >= 0.5)
    n = len(scores)
    return {"pairs": n, "score": round(_mean(scores), 4) if n else None,
            "both": round(sum(both) / n, 4) if n else None}


def format_suites(suites: dict[str, dict[str, Any]], pct) -> list[str]:
    """Lines for `metrics.format_report`: one block per suite."""
    lines: list[str] = []
    for name, report in suites.items():
        every = report["all"]
        lines.append(f"Suite {name}: accuracy {pct(every['accuracy']).strip()} over {every['n']} tasks "
                     "(reported apart from the Memory Score)")
        lines.append("  " + ", ".join(f"{f} {pct(c['accuracy']).strip()} (n={c['n']})" for f, c in report["files"].items()))
        paired = report.get("paired")
        if paired and paired["pairs"]:
            lines.append(f"  paired (retraction + twin) {pct(paired['score']).strip()} over {paired['pairs']} pairs, "
                         f"both right {pct(paired['both']).strip()}")
        distance = report.get("distance")
        if distance:
            lines.append("  by token distance: " + ", ".join(f"{label} {pct(c['accuracy']).strip()} (n={c['n']})"
                                                             for label, c in distance.items() if c["n"]))
    return lines
