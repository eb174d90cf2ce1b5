"""Per-user storage and ranking shared by the in-process systems.

Each user has its own append-only log of messages and its own lazily built search index:
an `add` only marks the user's index stale, and the next `search` of that user rebuilds it,
so a burst of adds costs one rebuild, and a search never touches another user's data (a
system with `index_on_flush` extends it in `flush`, after the last Add of an ingestion).
A lock per user serialises add and search of that user (a server calls both from several
threads); a short global lock only guards the table of users.
"""

from __future__ import annotations

import bisect
import threading
from dataclasses import dataclass, field
from typing import Any, Sequence

from memory_arena.systems.base import Memory, MemorySystem, Message


@dataclass(frozen=True)
class Record:
    """One stored message of one user."""

    position: int
    """Order of arrival within the user, from 0; also the memory id."""
    session_id: str
    content: str
    created_at: int | None
    """The message's `timestamp` (Unix ms), when it had one."""


@dataclass
class UserLog:
    """One user's records, the per-session order, and the index built from them."""

    records: list[Record] = field(default_factory=list)
    sessions: dict[str, list[int]] = field(default_factory=dict)
    index: Any = None
    indexed: int = 0
    """How many records `index` covers; fewer than `len(records)` means stale."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def neighbours(self, position: int) -> list[int]:
        """The records just before and just after `position` within its own session."""
        order = self.sessions[self.records[position].session_id]
        at = bisect.bisect_left(order, position)
        return [order[i] for i in (at - 1, at + 1) if 0 <= i < len(order)]


def check_messages(messages: Sequence[Message]) -> None:
    """Reject what no system can store; one clear sentence naming the first bad message."""
    if not isinstance(messages, (list, tuple)):
        raise ValueError("messages must be a list of {role, content, timestamp?} objects")
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or not isinstance(m.get("content"), str):
            raise ValueError(f"messages[{i}] must be an object with a string 'content'")
        ts = m.get("timestamp")
        if ts is not None and (not isinstance(ts, int) or isinstance(ts, bool)):
            raise ValueError(f"messages[{i}].timestamp must be an integer (Unix ms)")


def order_by_score(scores: Sequence[float], keep_zero: bool) -> list[int]:
    """Positions best first. Ties go to the newer message (the newest truth is the one a
    memory should surface), which also makes every ranking deterministic."""
    positions = [p for p in range(len(scores)) if keep_zero or scores[p] > 0]
    return sorted(positions, key=lambda p: (-float(scores[p]), -p))


class PerUserSystem(MemorySystem):
    """A system whose search ranks one user's records with an index built from them.

    Subclasses implement `build_index(records, old_index, old_count)` (called under the
    user's lock when records arrived since the last build; an incremental index extends
    `old_index`, which covered the first `old_count` records) and
    `rank(log, query, top_k) -> [(position, score)]` best first (a third item, the position
    of a newer version of the same thing, marks the memory as superseded; see `memory`).
    """

    def __init__(self) -> None:
        self._users: dict[str, UserLog] = {}
        self._table_lock = threading.Lock()

    # -- the MemorySystem interface -------------------------------------------------------
    def add(self, user_id: str, session_id: str, messages: list[Message]) -> None:
        check_messages(messages)
        log = self._log(user_id, create=True)
        with log.lock:
            order = log.sessions.setdefault(str(session_id), [])
            for m in messages:
                position = len(log.records)
                log.records.append(Record(position, str(session_id), m["content"], m.get("timestamp")))
                order.append(position)

    def search(self, user_id: str, query: str, top_k: int) -> list[Memory]:
        log = self._log(user_id, create=False)
        if log is None or top_k <= 0:
            return []
        with log.lock:
            if not log.records:
                return []
            self._refresh(log)
            ranked = self.rank(log, query, top_k)[:top_k]
            return [memory(log.records[p], score, *newer) for p, score, *newer in ranked]

    def reset(self, user_id: str | None = None) -> None:
        with self._table_lock:
            if user_id is None:
                self._users.clear()
            else:
                self._users.pop(user_id, None)

    # -- for subclasses -------------------------------------------------------------------
    index_on_flush = False
    """True: extend the index in `flush`, so that the first search after an ingestion costs
    what any other does (the ingestion pays instead); False: on the first search after new
    messages. Either way a search never sees a stale index."""

    def flush(self, user_id: str) -> None:
        if not self.index_on_flush:
            return
        log = self._log(user_id, create=False)
        if log is not None:
            with log.lock:
                self._refresh(log)

    def _refresh(self, log: UserLog) -> None:
        """Extend the user's index to every record (called with the user's lock held)."""
        if log.indexed != len(log.records):
            log.index = self.build_index(log.records, log.index, log.indexed)
            log.indexed = len(log.records)

    def build_index(self, records: list[Record], old_index: Any, old_count: int) -> Any:
        return None

    def rank(self, log: UserLog, query: str, top_k: int) -> list[tuple[int, float]]:
        raise NotImplementedError

    def _log(self, user_id: str, create: bool) -> UserLog | None:
        if not isinstance(user_id, str) or not user_id:
            raise ValueError("user_id must be a non-empty string")
        with self._table_lock:
            log = self._users.get(user_id)
            if log is None and create:
                log = self._users[user_id] = UserLog()
            return log


def memory(record: Record, score: float, superseded_by: int | None = None) -> Memory:
    """The contract's item for `record`; `superseded_by`, the position of a newer version of
    the same thing, is added as that memory's id when a system (`timeline`) knows one."""
    out: Memory = {"id": str(record.position), "content": record.content, "score": float(score),
                   "created_at": record.created_at}
    if superseded_by is not None:
        out["superseded_by"] = str(superseded_by)  # type: ignore[typeddict-unknown-key]
    return out
