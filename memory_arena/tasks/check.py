"""Validate a dataset folder against the task record (docs/design.md, "The task record" and "No ambiguity").

`check_folder` returns every violation as a `file:line: message` string; the generator's
`--check` prints them and the invariant tests assert there are none. One function serves both,
so the tests check exactly what users can check.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from .common import DAY_MS, EPOCH_MS, mentions
from .recall import depth_buckets
from .schema import MANIFEST, Task, folder_files, user_statements
from .slots import COHABITANTS, SLOTS
from .vocab import WEEKDAYS

# Ambiguity rules (docs/design.md, "No ambiguity"): words in the user's own statements of the
# asked slot that a careful reader could set against turn order or read as a future change.
_RELATIVE_TIME = re.compile(r"\b(yesterday|tomorrow|ago|last (week|month|year)|next (week|month|year)|"
                            r"will (be|start|move)|starts? (on )?(" + "|".join(WEEKDAYS) + r"))\b", re.IGNORECASE)
_HOME_SLOTS = frozenset(s.name for s in SLOTS if s.no_cohabitants)

REQUIRED_META = ("slot", "evidence", "stale", "distractors", "depth", "events", "generator_version")
ID_PATTERN = re.compile(r"^(?P<category>[a-z]+)-(?P<index>\d{4,})$")


def check_task(task: Task, category: str) -> list[str]:
    """Violations of one task, as messages without location."""
    problems: list[str] = []
    match = ID_PATTERN.match(task.id)
    if not match or match["category"] != category:
        problems.append(f"id {task.id!r} is not '{category}-<index:04d>'")
    if task.category != category:
        problems.append(f"category {task.category!r} in the {category} file")
    missing = [k for k in REQUIRED_META if k not in task.meta]
    if missing:
        return problems + [f"meta lacks {', '.join(missing)}"]
    turns = task.turns
    if not turns:
        return problems + ["no turns"]
    if any(t.role != ("user", "assistant")[i % 2] for i, t in enumerate(turns)) or len(turns) % 2:
        problems.append("turns do not alternate user/assistant from a user turn to an assistant turn")
    if any(b.timestamp <= a.timestamp for a, b in zip(turns, turns[1:])):
        problems.append("timestamps are not strictly increasing")
    if any(b.session < a.session for a, b in zip(turns, turns[1:])) or turns[0].session < 0:
        problems.append("sessions are not non-decreasing from 0")
    if not 0 <= task.noise_turns <= len(turns):
        problems.append(f"noise_turns {task.noise_turns} outside 0..{len(turns)}")
    if not task.answer.strip():
        problems.append("empty answer")
    evidence = task.meta["evidence"]
    if not evidence or not all(isinstance(i, int) and 0 <= i < len(turns) for i in evidence):
        return problems + [f"evidence {evidence!r} does not index the turns"]
    if task.meta["depth"] != len(turns) - 1 - max(evidence):
        problems.append(f"depth {task.meta['depth']} != turns after the last evidence turn ({len(turns) - 1 - max(evidence)})")
    forms = [task.answer, *task.aliases]
    if task.meta.get("abstain") is True:
        # The answer is that there is none: the evidence is the user's retraction of the slot.
        retracted = {e["turn"] for e in task.meta["events"] if e["op"] == "retract" and e.get("slot") == task.meta["slot"]}
        if not retracted or max(evidence) not in retracted:
            problems.append(f"abstention task whose last evidence turn {max(evidence)} is no retraction of the slot")
        forms = []
    elif not any(mentions(turns[i].content, form) for i in evidence for form in forms):
        problems.append(f"answer {task.answer!r} is not in its evidence turns {evidence}")
    for value in forms + list(task.meta["stale"]):
        if mentions(task.question, value):
            problems.append(f"question leaks {value!r}")
    folded_forms = {f.casefold() for f in forms}
    for value in task.meta["stale"]:
        if value.casefold() in folded_forms:
            problems.append(f"stale value {value!r} equals the answer")
    if category == "temporal" and not task.meta.get("suite"):
        # Session d is weekday d of the task's week (the clock starts on a Monday).
        if any((t.timestamp - EPOCH_MS) // DAY_MS % 7 != t.session for t in turns):
            problems.append("a temporal session does not fall on its weekday")
    else:
        # Every value the user gave the asked slot, other than the answer, must be listed as stale.
        stated = {e["value"] for e in user_statements(task)}
        missing_stale = sorted(v for v in stated if v.casefold() not in folded_forms and v not in task.meta["stale"])
        if missing_stale:
            problems.append(f"stale lacks {missing_stale}")
    problems.extend(ambiguities(task))
    for kind in ("stale", "distractors"):
        for value in task.meta[kind]:
            if not any(mentions(t.content, value) for t in turns):
                problems.append(f"{kind} value {value!r} does not occur in the conversation")
    return problems


def ambiguities(task: Task) -> list[str]:
    """Places where a careful human could defend another answer, one rule each:
    1. a statement of the user's slot with a relative time or a future change ("last month",
       "starts Monday"), which can contradict the order of the turns;
    2. a statement without the slot's noun ("He answers to Max now") right after a user turn that
       names a value (someone else's dog: whose is "he"?);
    3. two of the user's statements of the slot in one session of an update task (four home
       cities in one day);
    4. an as-of-day question about a day on which the value changed, unless it names the moment
       ("at the end of Thursday");
    5. someone who shares the user's home stated with another value of a home slot;
    6. a user line said twice in one conversation (filler that repeats)."""
    problems: list[str] = []
    turns, events = task.turns, task.meta["events"]
    statements = user_statements(task) if task.category != "relational" else []
    for event in statements:
        if 0 <= event["turn"] < len(turns) and _RELATIVE_TIME.search(turns[event["turn"]].content):
            problems.append(f"turn {event['turn']}: the user's statement has a relative or future time")
        if event.get("bare") and any(e["turn"] == event["turn"] - 2 for e in events):
            problems.append(f"turn {event['turn']}: a statement without the slot's noun right after a turn naming a value")
    if task.category == "update":
        sessions = [turns[e["turn"]].session for e in statements if 0 <= e["turn"] < len(turns)]
        if any(b <= a for a, b in zip(sessions, sessions[1:])):
            problems.append("two of the user's statements of the slot in one session")
    if task.meta.get("question_kind") == "as_of_day" and task.meta.get("as_of_day") in WEEKDAYS:
        day = WEEKDAYS.index(task.meta["as_of_day"])
        if any(e.get("day") == day for e in statements) and "end of" not in task.question:
            problems.append(f"asks about {task.meta['as_of_day']}, a day the value changed, without naming the moment")
    if task.meta["slot"] in _HOME_SLOTS:
        for event in events:
            # Only the asked slot's (a long-horizon history holds every slot's decoys).
            if (event["op"] == "other" and event.get("slot", task.meta["slot"]) == task.meta["slot"]
                    and event.get("subject", "").removeprefix("my ") in COHABITANTS):
                problems.append(f"turn {event['turn']}: {event['subject']} shares the user's home yet has another value")
    said = [t.content for t in turns if t.role == "user"]
    if task.meta.get("suite") == "long":
        # Months of small talk repeat everyday lines and passing mentions; a statement of a
        # slot's value (anyone's) never repeats.
        named = {e["turn"] for e in events if e["op"] != "mention"}
        said = [turns[i].content for i in sorted(named) if 0 <= i < len(turns) and turns[i].role == "user"]
    if len(set(said)) != len(said):
        problems.append("a user line occurs twice")
    return problems


def check_folder(folder: Path, n: int | None = None) -> list[str]:
    """Every violation in `folder/<category>.jsonl` for the five categories (or the files of a
    suite's manifest, docs/suites.md; `memory_arena.suites.check` adds the suite's own rules)."""
    problems: list[str] = []
    counts: dict[str, int] = {}
    seen_ids: dict[str, str] = {}
    try:
        files = folder_files(folder)
    except ValueError as exc:
        return [str(exc)]
    canonical = not (folder / MANIFEST).is_file()
    for category in files:
        path = folder / f"{category}.jsonl"
        if not path.is_file():
            problems.append(f"{path}: missing")
            continue
        recall_depth: list[int] = []
        recall_noise = 0  # the most noise of any recall task: which depth buckets fit
        with open(path, encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                where = f"{path}:{lineno}"
                try:
                    task = Task.from_dict(json.loads(line))
                except ValueError as exc:
                    problems.append(f"{where}: {exc}")
                    continue
                if task.id in seen_ids:
                    problems.append(f"{where}: duplicate id {task.id} (first at {seen_ids[task.id]})")
                seen_ids[task.id] = where
                expected = f"{category}-{counts.get(category, 0):04d}"
                if task.id != expected:
                    problems.append(f"{where}: id {task.id} where {expected} was expected (ids run 0, 1, 2, ...)")
                counts[category] = counts.get(category, 0) + 1
                problems.extend(f"{where}: {p}" for p in check_task(task, category))
                if category == "recall":
                    recall_noise = max(recall_noise, task.noise_turns)
                    recall_depth.append(task.meta["depth"])
        if category == "recall" and recall_depth and canonical:
            problems.extend(f"{path}: {p}" for p in _check_buckets(recall_depth, recall_noise))
    if canonical and len(set(counts.values())) > 1:  # a suite's files may differ (docs/suites.md)
        problems.append(f"{folder}: categories differ in size: {counts}")
    if n is not None:
        problems.extend(f"{folder}: {c} has {k} tasks, expected {n}" for c, k in counts.items() if k != n)
    return problems


def _check_buckets(depths: list[int], max_noise: int) -> list[str]:
    """Each Recall@ depth bucket that fits under the set's noise (the most noise of any of its
    recall tasks) must hold at least its share of the recall tasks, less one bucket's worth."""
    buckets = depth_buckets(max(max_noise, 10))
    need = len(depths) // (len(buckets) + 1)
    out = []
    for low, high in (b for b in buckets if b[1] <= 100):  # the Recall@ buckets
        count = sum(low < k <= high for k in depths)
        if count < need:
            out.append(f"Recall@{high} bucket ({low}, {high}] holds {count} tasks, fewer than {need}")
    return out
