"""What the public-format importers share: a streaming reader of a JSON array, field checks
that name the file, record and field, and the one way a conversation becomes a `Task`.

A LongMemEval-S file is about 265 MB, one JSON array of 500 records; reading it whole would
hold several gigabytes of Python objects. `iter_json_array` decodes one element at a time
from a growing text buffer, so only one record is ever in memory.

Every imported task follows the same conventions (docs/datasets.md, "The imported task"):

- sessions are ordered by their start time (stably: equal times keep the file's order);
  `Turn.session` is the position in that order, and `meta.session_ids[Turn.session]` is the
  session's id in the source file;
- a turn's timestamp is its session's start plus one second per turn before it in the
  session, raised where needed so that timestamps strictly increase over the whole task
  (two sessions that start in the same minute would otherwise give two turns one time, and
  the bench maps a memory back to its turn by its time);
- `meta.evidence` lists the turns the source marks as evidence, `meta.gold_sessions` the
  sessions it marks as gold (both empty when the source marks none), `meta.scored` whether
  the question takes part in the retrieval metrics at all.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator, NamedTuple, Sequence

from memory_arena.tasks.schema import DatasetError, Task, Turn

READ_SIZE = 1 << 20
"""Characters read at a time; doubled while one element does not fit."""

TURN_STEP_MS = 1_000
"""The gap between two turns of a session when the source dates only the session."""


class ImportFormatError(DatasetError):
    """A file that does not match its public format; the message names file, record and field."""


def record_error(path: Path, index: int, record_id: Any, field: str, problem: str) -> ImportFormatError:
    """The one-line error of a bad field: `FILE: record N (id X): field 'F' problem`."""
    who = f"record {index}" + (f" ({record_id})" if isinstance(record_id, str) and record_id else "")
    return ImportFormatError(f"{path}: {who}: field '{field}' {problem}")


class Fields:
    """Typed access to one record's fields; every failure names file, record and field."""

    def __init__(self, path: Path, index: int, record: Any, id_field: str | None) -> None:
        self.path, self.index = path, index
        if not isinstance(record, dict):
            raise ImportFormatError(f"{path}: record {index}: expected a JSON object, got {_kind(record)}")
        self.record = record
        self.id = record.get(id_field) if id_field else None

    def fail(self, field: str, problem: str) -> ImportFormatError:
        return record_error(self.path, self.index, self.id, field, problem)

    def get(self, field: str, kind: type | tuple[type, ...], value: Any = None, required: bool = True) -> Any:
        """`record[field]` (or `value` under that name), checked to be of `kind`."""
        if value is None:
            if field not in self.record:
                if required:
                    raise self.fail(field, "is missing")
                return None
            value = self.record[field]
        if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _tuple(kind)):
            raise self.fail(field, f"must be {_names(kind)}, got {_kind(value)}")
        return value

    def text(self, field: str, value: Any = None, required: bool = True) -> str | None:
        """A string field; numbers are accepted and written as text (some public answers are
        bare numbers such as 2022)."""
        got = self.get(field, (str, int, float), value, required)
        if got is None or isinstance(got, str):
            return got
        return str(got)

    def strings(self, field: str, value: Any = None) -> list[str]:
        items = self.get(field, list, value)
        for i, item in enumerate(items):
            self.get(f"{field}[{i}]", str, item)
        return items


def _tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


_KIND_NAMES = {str: "a string", int: "a number", float: "a number", list: "a list", dict: "an object",
               bool: "true or false"}


def _names(kind: type | tuple[type, ...]) -> str:
    return " or ".join(dict.fromkeys(_KIND_NAMES.get(k, k.__name__) for k in _tuple(kind)))


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return _KIND_NAMES.get(type(value), type(value).__name__)


# -- streaming ------------------------------------------------------------------------------
def iter_json_array(path: Path) -> Iterator[Any]:
    """The elements of the JSON array in `path`, one at a time; ImportFormatError names the
    element that is not valid JSON, or says the file is not one array."""
    decoder = json.JSONDecoder()
    try:
        fh = open(path, encoding="utf-8")
    except OSError as exc:
        raise ImportFormatError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    with fh:
        reader = _Buffer(fh)
        reader.skip_space()
        if reader.peek() != "[":
            raise ImportFormatError(f"{path}: expected a JSON array (a file starting with '['), "
                                    f"found {reader.peek()!r}" if reader.peek() else f"{path}: the file is empty")
        reader.pos += 1
        reader.skip_space()
        if reader.peek() == "]":
            reader.pos += 1
        else:
            index = 0
            while True:
                yield reader.decode(decoder, path, index)
                index += 1
                reader.skip_space()
                sep = reader.peek()
                reader.pos += 1
                if sep == "]":
                    break
                if sep != ",":
                    raise ImportFormatError(f"{path}: record {index - 1}: expected ',' or ']' after it, "
                                            f"found {sep!r}" if sep else f"{path}: the array is not closed (cut short?)")
                reader.skip_space()
        reader.skip_space()
        if reader.peek():
            raise ImportFormatError(f"{path}: text after the end of the JSON array")


class _Buffer:
    """A window on a text file: what has been read and not yet consumed."""

    def __init__(self, fh: Any) -> None:
        self.fh, self.text, self.pos, self.eof, self.size = fh, "", 0, False, READ_SIZE

    def more(self) -> bool:
        """Read the next chunk (dropping what was consumed); False at the end of the file."""
        if self.eof:
            return False
        data = self.fh.read(self.size)
        self.text, self.pos = self.text[self.pos:] + data, 0
        self.eof = not data
        return bool(data)

    def peek(self) -> str:
        while self.pos >= len(self.text) and self.more():
            pass
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def skip_space(self) -> None:
        while self.peek() in " \t\r\n" and self.peek():
            self.pos += 1

    def decode(self, decoder: json.JSONDecoder, path: Path, index: int) -> Any:
        while True:
            try:
                value, end = decoder.raw_decode(self.text, self.pos)
                # A value that ends where the buffer ends may go on in the file (a number cut
                # in two): decide only once something follows it or the file has ended.
                if end < len(self.text) or self.eof:
                    self.pos, self.size = end, READ_SIZE  # the next element starts small again
                    return value
            except json.JSONDecodeError as exc:
                if self.eof:
                    raise ImportFormatError(f"{path}: record {index}: not valid JSON ({exc.msg})") from None
            # A long element: read twice as much each time, so that decoding it again from its
            # start costs at most twice its length in all.
            self.size = min(self.size * 2, 1 << 28)
            self.more()


# -- tasks ----------------------------------------------------------------------------------
class Session(NamedTuple):
    """One source session: its id, its start (Unix ms), and its turns as (role, content, evidence)."""

    id: str
    start_ms: int
    turns: Sequence[tuple[str, str, bool]]


def utc_ms(moment: datetime) -> int:
    """Unix ms of a datetime; a naive one is read as UTC (the public formats carry no zone)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return int(moment.timestamp() * 1000)


class Conversation(NamedTuple):
    """A built conversation, shared by every question asked about it."""

    turns: tuple[Turn, ...]
    session_ids: list[str]
    evidence: list[int]
    """Turns the source marks as evidence."""
    first_turn: list[int]
    """For each session in the order given, the index of its first turn (sessions are reordered by time)."""


def build_conversation(sessions: Sequence[Session]) -> Conversation:
    """The turns of `sessions` in time order, with the timestamps of the module docstring."""
    ordered = sorted(range(len(sessions)), key=lambda i: sessions[i].start_ms)
    turns: list[Turn] = []
    evidence: list[int] = []
    first_turn = [0] * len(sessions)
    last = None
    for number, i in enumerate(ordered):
        session = sessions[i]
        first_turn[i] = len(turns)
        for offset, (role, content, is_evidence) in enumerate(session.turns):
            stamp = session.start_ms + offset * TURN_STEP_MS
            stamp = stamp if last is None or stamp > last else last + 1
            if is_evidence:
                evidence.append(len(turns))
            turns.append(Turn(role, content, stamp, number))
            last = stamp
    return Conversation(tuple(turns), [sessions[i].id for i in ordered], evidence, first_turn)


def make_task(task_id: str, category: str, conversation: Conversation, question: str, answer: str,
              source: str, gold_sessions: Sequence[str], scored: bool, evidence: Sequence[int] | None = None,
              **extra: Any) -> Task:
    """An imported question as a `Task` (see the module docstring for its `meta`)."""
    evidence = list(conversation.evidence if evidence is None else evidence)
    meta = {"source": source, "evidence": evidence, "stale": [], "distractors": [],
            "session_ids": conversation.session_ids, "gold_sessions": list(gold_sessions), "scored": scored,
            **extra}
    return Task(id=task_id, category=category, noise_turns=len(conversation.turns) - len(evidence),
                turns=conversation.turns, question=question, answer=answer, aliases=(), meta=meta)
