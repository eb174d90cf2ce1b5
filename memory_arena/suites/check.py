"""A suite's own `--check` rules (docs/suites.md), on top of the task record's
(`tasks.check.check_folder`, which every suite folder passes first).

- every suite: each task's `meta.suite` names the folder's suite;
- `forget`: every retraction has its twin (`meta.pair`, both ways); the two histories hold the same
  turns except at most two user turns and their replies; the retraction's answer is the
  abstention, the twin's is not;
- `long`: the tasks of one history share its turns, and `meta.token_distance` is the estimated
  token count of the turns after the last evidence turn.
"""

from __future__ import annotations

from pathlib import Path

from ..tasks.schema import MANIFEST, DatasetError, load_tasks
from .forget import ABSTAIN_ANSWER
from .long import tokens_of


def check_suite(folder: Path) -> list[str]:
    """Every violation of the suite rules in `folder` (none for a folder without a manifest)."""
    if not (folder / MANIFEST).is_file():
        return []
    import json

    name = json.loads((folder / MANIFEST).read_text(encoding="utf-8")).get("suite")
    try:
        tasks = load_tasks(folder)
    except DatasetError as exc:
        return [str(exc)]
    problems = [f"{t.id}: meta.suite {t.meta.get('suite')!r} in a {name} folder" for t in tasks if t.meta.get("suite") != name]
    if name == "forget":
        problems += _forget(tasks)
    elif name == "long":
        problems += _long(tasks)
    return [f"{folder}: {p}" for p in problems]


def _forget(tasks) -> list[str]:
    problems = []
    by_id = {t.id: t for t in tasks}
    for task in tasks:
        if task.category not in ("retraction", "twin"):
            continue
        other = by_id.get(task.meta.get("pair", ""))
        if other is None or other.meta.get("pair") != task.id:
            problems.append(f"{task.id}: no twin {task.meta.get('pair')!r} that names it back")
            continue
        if (task.answer == ABSTAIN_ANSWER) != (task.category == "retraction") or task.meta.get("abstain") != (task.category == "retraction"):
            problems.append(f"{task.id}: a {task.category} whose answer is {task.answer!r}")
        if task.category == "retraction":
            differ = [i for i, (a, b) in enumerate(zip(task.turns, other.turns)) if a.content != b.content or a.session != b.session]
            if len(task.turns) != len(other.turns) or len([i for i in differ if task.turns[i].role == "user"]) > 2:
                problems.append(f"{task.id}: its history and its twin's differ in more than two user turns")
    return problems


def _long(tasks) -> list[str]:
    problems = []
    turns_of: dict[int, tuple] = {}
    for task in tasks:
        history = task.meta.get("history")
        first = turns_of.setdefault(history, task.turns)
        if first != task.turns:
            problems.append(f"{task.id}: the turns differ from the other tasks of history {history}")
        expected = sum(tokens_of(t.content) for t in task.turns[max(task.meta["evidence"]) + 1:])
        if task.meta.get("token_distance") != expected:
            problems.append(f"{task.id}: token_distance {task.meta.get('token_distance')} != {expected}")
    return problems
