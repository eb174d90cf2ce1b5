"""Durable storage of the reference server: SQLite in WAL mode, the source of truth.

An Add is acknowledged only after the transaction holding it has committed with
`synchronous=FULL`, so whatever was acknowledged survives `kill -9` (and a power cut). To keep
that affordable under concurrency, commits are grouped: one writer thread takes every Add
waiting in its queue, writes them in one transaction, commits once, and only then reports each
outcome. Idempotency lives in the schema: `(user_id, request_id)` is the primary key of `adds`,
so the first write wins even when two copies of a request land in the same batch.
"""

from __future__ import annotations

import queue
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from memory_arena.contract.validation import AddRequest

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS adds (
    user_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    PRIMARY KEY (user_id, request_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY,
    user_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    timestamp INTEGER
);
"""

# The largest number of Adds written in one transaction; bounds the latency of a batch.
MAX_BATCH = 512


class StoreError(RuntimeError):
    """The database file cannot be used (wrong schema version, not a database, unwritable)."""


@dataclass(frozen=True)
class StoredMessage:
    id: str
    """The server's message id: the SQLite rowid, as a string."""
    role: str
    content: str
    timestamp: int | None


@dataclass(frozen=True)
class StoredAdd:
    """One committed Add: what a search backend ingests, at start-up or right after the commit."""

    user_id: str
    session_id: str
    messages: tuple[StoredMessage, ...]


class Store:
    """The SQLite file. Not thread-safe: the writer thread owns it once the server runs."""

    def __init__(self, path: str | Path) -> None:
        try:
            # check_same_thread=False: opened on the main thread, then used only by the writer.
            self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
            mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            self._db.execute("PRAGMA synchronous=FULL")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version not in (0, SCHEMA_VERSION):
                raise StoreError(f"{path}: schema version {version}, this server reads version {SCHEMA_VERSION}")
            self._db.executescript(_SCHEMA)
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path}: cannot open the database: {exc}") from exc
        if mode.lower() != "wal":
            raise StoreError(f"{path}: SQLite refused WAL mode (got {mode!r})")
        self._next_id = self._db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM messages").fetchone()[0]

    def commit_batch(self, requests: list[AddRequest]) -> list[StoredAdd | None]:
        """Write the Adds in one transaction; None marks a duplicate `(request_id, user_id)`."""
        results: list[StoredAdd | None] = []
        rows: list[tuple] = []
        db = self._db
        # Ids are assigned here rather than by SQLite so that all the batch's messages go in
        # with one executemany; this writer is the only one, so the counter cannot race.
        next_id = self._next_id
        db.execute("BEGIN IMMEDIATE")
        try:
            for req in requests:
                cur = db.execute(
                    "INSERT OR IGNORE INTO adds (user_id, request_id, session_id) VALUES (?, ?, ?)",
                    (req.user_id, req.request_id, req.session_id),
                )
                if cur.rowcount == 0:
                    results.append(None)
                    continue
                stored = []
                for position, m in enumerate(req.messages):
                    rows.append((next_id, req.user_id, req.request_id, req.session_id, position, m.role, m.content,
                                 m.timestamp))
                    stored.append(StoredMessage(str(next_id), m.role, m.content, m.timestamp))
                    next_id += 1
                results.append(StoredAdd(req.user_id, req.session_id, tuple(stored)))
            db.executemany(
                "INSERT INTO messages (id, user_id, request_id, session_id, position, role, content, timestamp)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        self._next_id = next_id
        return results

    def replay(self) -> Iterator[StoredAdd]:
        """Every committed Add in commit order, to rebuild a search backend at start-up."""
        rows = self._db.execute(
            "SELECT id, user_id, request_id, session_id, role, content, timestamp FROM messages ORDER BY id"
        )
        key: tuple[str, str] | None = None
        session = ""
        batch: list[StoredMessage] = []
        # Messages of one Add have consecutive ids, so grouping adjacent rows restores the Adds.
        for mid, user_id, request_id, session_id, role, content, timestamp in rows:
            if (user_id, request_id) != key:
                if key is not None:
                    yield StoredAdd(key[0], session, tuple(batch))
                key, session, batch = (user_id, request_id), session_id, []
            batch.append(StoredMessage(str(mid), role, content, timestamp))
        if key is not None:
            yield StoredAdd(key[0], session, tuple(batch))

    def close(self) -> None:
        self._db.close()


class GroupCommitWriter:
    """A thread that commits queued Adds in batches and hands each batch's outcomes back in order.

    `deliver(batch)` is called on the writer thread once per committed batch with
    `[(token, StoredAdd | None | Exception)]`; the server forwards that to its event loop, where
    the search backend is updated before any waiting request is answered.
    """

    def __init__(self, store: Store, deliver: Callable[[list[tuple[object, object]]], None]) -> None:
        self._store = store
        self._deliver = deliver
        self._queue: queue.Queue[tuple[object, AddRequest] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._loop, name="memory-arena-writer", daemon=True)
        self._thread.start()

    def submit(self, token: object, request: AddRequest) -> None:
        self._queue.put((token, request))

    def _loop(self) -> None:
        while True:
            first = self._queue.get()
            if first is None:
                return
            batch = [first]
            stop = False
            while len(batch) < MAX_BATCH:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    stop = True
                    break
                batch.append(item)
            try:
                outcomes: list[object] = list(self._store.commit_batch([req for _, req in batch]))
            except Exception as exc:  # the whole transaction rolled back: every Add in it failed
                outcomes = [exc] * len(batch)
            self._deliver([(token, outcome) for (token, _), outcome in zip(batch, outcomes)])
            if stop:
                return

    def close(self) -> None:
        """Finish what is queued, then stop the thread."""
        self._queue.put(None)
        self._thread.join()
