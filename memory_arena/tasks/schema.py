"""The task record (docs/design.md, "The task record"): a frozen dataclass, its JSONL form,
and loading with clear errors.

A task is one conversation (turns), one question about it, the canonical answer with its
accepted aliases, and `meta`: the ground truth the scorer, the baselines and the memory-system
bench read (evidence turns, superseded values, distractors, the generator's event log).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, NamedTuple

_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode

CATEGORIES: tuple[str, ...] = ("recall", "update", "contradiction", "temporal", "relational")
USER_OPS = ("state", "update", "correct", "set")
"""Event ops in which the user gives their own slot a value (an assistant's `restate` is not one)."""


class DatasetError(ValueError):
    """A dataset file or row that does not match the task record; the message names file:line."""


class Turn(NamedTuple):
    """One message of the conversation. A NamedTuple rather than a frozen dataclass: long-horizon
    sets build millions of turns, and a tuple is several times cheaper to create."""

    role: str
    """`user` or `assistant`."""
    content: str
    """The message text."""
    timestamp: int
    """Unix milliseconds on the task's synthetic clock; strictly increasing within a task."""
    session: int
    """Session number (temporal tasks: one session per day), starting at 0."""

    def to_dict(self) -> dict[str, Any]:
        return {"role": self.role, "content": self.content, "timestamp": self.timestamp, "session": self.session}


@dataclass(frozen=True)
class Task:
    """One benchmark item; `to_json()` is its JSONL row."""

    id: str
    """`<category>-<index:04d>`, e.g. `recall-0042`."""
    category: str
    """One of CATEGORIES."""
    noise_turns: int
    """Number of filler turns in the conversation."""
    turns: tuple[Turn, ...]
    """The conversation, oldest first."""
    question: str
    """What the model is asked after the conversation."""
    answer: str
    """Canonical surface form of the correct answer."""
    aliases: tuple[str, ...] = ()
    """Other accepted surface forms of the answer."""
    meta: dict[str, Any] = field(default_factory=dict)
    """slot, evidence, stale, distractors, depth, events, generator_version and category extras."""

    @property
    def index(self) -> int:
        return int(self.id.rsplit("-", 1)[1])

    @property
    def stale(self) -> list[str]:
        return list(self.meta.get("stale", []))

    @property
    def distractors(self) -> list[str]:
        return list(self.meta.get("distractors", []))

    @property
    def evidence(self) -> list[int]:
        return list(self.meta.get("evidence", []))

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "category": self.category,
            "noise_turns": self.noise_turns,
            "turns": [t.to_dict() for t in self.turns],
            "question": self.question,
            "answer": self.answer,
            "aliases": list(self.aliases),
            "meta": self.meta,
        }

    def to_json(self) -> str:
        """The canonical JSONL row: fixed key order, UTF-8 text, no trailing newline.

        The bytes are those of `json.dumps(self.to_dict(), ensure_ascii=False,
        separators=(",", ":"))` (a test compares), but the turns are written without building a
        dict each: long-horizon sets hold millions of turns, and this halves the time to write them."""
        head = _encode({"id": self.id, "category": self.category, "noise_turns": self.noise_turns})
        tail = _encode({"question": self.question, "answer": self.answer, "aliases": list(self.aliases), "meta": self.meta})
        turns = ",".join([f'{{"role":{_encode(t.role)},"content":{_encode(t.content)},"timestamp":{t.timestamp},'
                          f'"session":{t.session}}}' for t in self.turns])
        return f'{head[:-1]},"turns":[{turns}],{tail[1:]}'

    @classmethod
    def from_dict(cls, row: Any) -> "Task":
        """Build a Task from a parsed row; raises ValueError naming the first bad field."""
        if not isinstance(row, dict):
            raise ValueError(f"a task row must be a JSON object, got {type(row).__name__}")
        for key, kind in (("id", str), ("category", str), ("noise_turns", int), ("turns", list),
                          ("question", str), ("answer", str), ("aliases", list), ("meta", dict)):
            if key not in row:
                raise ValueError(f"missing field '{key}'")
            if not isinstance(row[key], kind) or (kind is int and isinstance(row[key], bool)):
                raise ValueError(f"field '{key}' must be {kind.__name__}, got {type(row[key]).__name__}")
        try:
            turns = tuple(Turn(t["role"], t["content"], t["timestamp"], t["session"]) for t in row["turns"])
            well_typed = all(type(t.role) is str and type(t.content) is str and type(t.timestamp) is int
                             and type(t.session) is int for t in turns)
        except (KeyError, TypeError):
            well_typed = False
        if not well_typed:  # the slow path, only to name the first bad turn
            raise ValueError(_first_bad_turn(row["turns"]))
        if not all(isinstance(a, str) for a in row["aliases"]):
            raise ValueError("field 'aliases' must be a list of strings")
        return cls(
            id=row["id"], category=row["category"], noise_turns=row["noise_turns"], turns=tuple(turns),
            question=row["question"], answer=row["answer"], aliases=tuple(row["aliases"]), meta=row["meta"],
        )


def user_statements(task: Task) -> list[dict[str, Any]]:
    """The events in which the user gives the asked slot (`meta.slot`) a value, in order."""
    slot = task.meta["slot"]
    return [e for e in task.meta["events"]
            if e["op"] in USER_OPS and e.get("slot") == slot and e.get("subject") == "user"]


def _first_bad_turn(turns: list) -> str:
    for i, t in enumerate(turns):
        if not isinstance(t, dict):
            return f"turns[{i}] must be an object"
        for key, kind in (("role", str), ("content", str), ("timestamp", int), ("session", int)):
            if type(t.get(key)) is not kind:  # `type is`, so that true/false are not integers
                return f"turns[{i}].{key} must be {kind.__name__}"
    return "turns are malformed"


MANIFEST = "suite.json"
"""A suite's folder (docs/suites.md) names its suite and files in this file; the canonical
dataset has none and holds the five CATEGORIES."""


def folder_files(folder: Path) -> tuple[str, ...]:
    """The task files (`<name>.jsonl`) a dataset folder holds: those its suite manifest lists,
    else the five categories. A manifest that cannot be read is a DatasetError."""
    path = folder / MANIFEST
    if not path.is_file():
        return CATEGORIES
    try:
        files = json.loads(path.read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DatasetError(f"{path}: not a suite manifest ({exc})") from None
    if not isinstance(files, list) or not files or not all(isinstance(f, str) and f.isidentifier() for f in files):
        raise DatasetError(f"{path}: 'files' must be a non-empty list of names")
    return tuple(files)


def dataset_dir() -> Path:
    """The folder of the shipped JSONL files (inside the installed package)."""
    return Path(__file__).resolve().parent.parent / "dataset"


def iter_file(path: Path) -> Iterator[Task]:
    """Yield the tasks of one JSONL file; a bad line raises DatasetError naming file:line."""
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                yield Task.from_dict(json.loads(line))
            except (ValueError, TypeError) as exc:  # JSONDecodeError is a ValueError
                raise DatasetError(f"{path}:{lineno}: {exc}") from None


def load_tasks(folder: str | Path | None = None, categories: Iterable[str] | None = None) -> list[Task]:
    """Load `<category>.jsonl` for each requested category (default: all the folder holds, see
    `folder_files`) from `folder`
    (default: the shipped dataset). Raises DatasetError for a missing file or a bad line."""
    folder = Path(folder) if folder is not None else dataset_dir()
    files = folder_files(folder)
    wanted = list(categories) if categories is not None else list(files)
    unknown = [c for c in wanted if c not in files]
    if unknown:
        raise DatasetError(f"unknown categor{'ies' if len(unknown) > 1 else 'y'} {', '.join(unknown)}; "
                           f"choose from {', '.join(files)}")
    tasks: list[Task] = []
    for category in wanted:
        path = folder / f"{category}.jsonl"
        if not path.is_file():
            raise DatasetError(f"{path}: no such dataset file")
        tasks.extend(iter_file(path))
    return tasks
