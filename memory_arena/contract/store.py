"""Durable storage of the reference server, the source of truth: a SQLite file (WAL) by default,
or PostgreSQL (`pgstore`). Several server processes may share one database.

An Add is acknowledged only after the transaction holding it has committed (SQLite with
`synchronous=FULL`, PostgreSQL with its default `synchronous_commit`), so whatever was
acknowledged survives `kill -9` of any worker. To keep that affordable under concurrency,
commits are grouped: one writer thread per process takes every Add waiting in its queue,
writes them in one transaction, commits once, and only then reports each outcome.

Every user has a version, bumped in the same transaction as the user's new messages, and each
message records the version that wrote it. A process that keeps a search index of a user reads
the version (one primary-key lookup) before each search and loads only the messages of later
versions, so an Add committed by any process is seen by the next search on every process.
Bumping the versions first, in user order, takes each user's row lock before anything else in
the transaction: writes of one user are serialised (their versions commit in order, so
"versions above N" never skips a message) and two batches cannot deadlock.

Idempotency lives in the schema: `(user_id, request_id)` is the primary key of `adds`, so the
first write wins, also when copies of a request race on different processes.
"""

from __future__ import annotations

import os
import queue
import sqlite3
import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from memory_arena.contract.validation import AddRequest

try:
    import fcntl
except ImportError:  # Windows: writers wait in SQLite's busy handler alone
    fcntl = None  # type: ignore[assignment]

SCHEMA_VERSION = 2

# The largest number of Adds written in one transaction; bounds the latency of a batch.
MAX_BATCH = 512

# Beside a SQLite database: the file its writers queue on (see SQLiteStore._writer_lock).
WRITER_LOCK_SUFFIX = "-writer.lock"

# How long a SQLite writer waits for another process's transaction before failing the batch.
SQLITE_BUSY_MS = 30_000


# A user's version and the messages of the versions in (after, that version], in commit order;
# one row with NULL messages when nothing is newer, none for an unknown user. `{p}` is the
# database driver's placeholder.
CATCH_UP_SQL = (
    "SELECT u.version, m.id, m.session_id, m.role, m.content, m.timestamp FROM users u"
    " LEFT JOIN messages m ON m.user_id = u.user_id AND m.version > {p} AND m.version <= u.version"
    " WHERE u.user_id = {p} ORDER BY m.version, m.id")


class StoreError(RuntimeError):
    """The database cannot be used (wrong schema version, not a database, unreachable)."""


@dataclass(frozen=True)
class StoredAdd:
    """Consecutive committed messages of one user in one session, as a search backend ingests
    them (one Add, or several in a row of the same session: the same thing to a backend)."""

    user_id: str
    session_id: str
    ids: tuple[str, ...]
    """The server's message ids, as strings."""
    messages: tuple[dict[str, Any], ...]
    """`{role, content, timestamp?}`, the memory systems' message form."""


MessageRow = tuple  # (user_id, version, request_id, session_id, position, role, content, timestamp)


def group_adds(user_id: str, rows: Iterable[tuple]) -> Iterator[StoredAdd]:
    """Rows `(id, session_id, role, content, timestamp)` in commit order, grouped into runs of one
    session. Plain dicts, built once: this runs for every message a worker loads."""
    session: str | None = None
    ids: list[str] = []
    messages: list[dict[str, Any]] = []
    for mid, session_id, role, content, timestamp in rows:
        if session_id != session:
            if ids:
                yield StoredAdd(user_id, session, tuple(ids), tuple(messages))
            session, ids, messages = session_id, [], []
        ids.append(str(mid))
        messages.append({"role": role, "content": content} if timestamp is None else
                        {"role": role, "content": content, "timestamp": timestamp})
    if ids:
        yield StoredAdd(user_id, session, tuple(ids), tuple(messages))


class Store(ABC):
    """One process's access to the database: a write connection for the writer thread and a read
    connection for the event loop. Subclasses speak one database's SQL."""

    def commit_batch(self, requests: list[AddRequest]) -> list[bool]:
        """Write the Adds in one transaction; False marks a duplicate `(request_id, user_id)`
        (already stored, or an earlier copy in the same batch)."""
        first: dict[tuple[str, str], int] = {}
        for i, req in enumerate(requests):
            first.setdefault((req.user_id, req.request_id), i)
        candidates = [requests[i] for i in sorted(first.values())]
        with self._transaction():
            versions = self._bump_versions(sorted({req.user_id for req in candidates}))
            inserted = self._insert_adds([(r.user_id, r.request_id, r.session_id) for r in candidates])
            rows = [(req.user_id, versions[req.user_id], req.request_id, req.session_id, position, m.role, m.content,
                     m.timestamp)
                    for req in candidates if (req.user_id, req.request_id) in inserted
                    for position, m in enumerate(req.messages)]
            if rows:
                self._insert_messages(rows)
        return [first[(r.user_id, r.request_id)] == i and (r.user_id, r.request_id) in inserted
                for i, r in enumerate(requests)]

    # -- what each database implements -------------------------------------------------------
    @abstractmethod
    def _transaction(self):
        """A context manager: one write transaction, committed on success, rolled back on error."""

    @abstractmethod
    def _bump_versions(self, users: list[str]) -> dict[str, int]:
        """Add one to each user's version (creating it at 1), in the order given; the new versions."""

    @abstractmethod
    def _insert_adds(self, keys: list[tuple[str, str, str]]) -> set[tuple[str, str]]:
        """Insert `(user_id, request_id, session_id)` rows, skipping existing keys; the keys inserted."""

    @abstractmethod
    def _insert_messages(self, rows: list[MessageRow]) -> None:
        """Insert message rows; their ids must increase in the order given."""

    @abstractmethod
    def user_version(self, user_id: str) -> int:
        """The user's committed version (0 for a user who never added anything)."""

    @abstractmethod
    def _message_rows(self, user_id: str, after: int, upto: int) -> Iterable[tuple]:
        """`(id, session_id, role, content, timestamp)` of the user's messages with
        `after < version <= upto`, in commit order."""

    @abstractmethod
    def _catch_up_rows(self, user_id: str, after: int) -> list[tuple]:
        """`CATCH_UP_SQL`'s rows, read in one statement (one snapshot, one round trip)."""

    @abstractmethod
    def count_messages(self) -> int: ...

    @abstractmethod
    def close(self) -> None: ...

    def adds_between(self, user_id: str, after: int, upto: int) -> list[StoredAdd]:
        """The user's messages committed with versions in `(after, upto]`, in commit order, in
        runs of one session."""
        return list(group_adds(user_id, self._message_rows(user_id, after, upto)))

    def catch_up(self, user_id: str, after: int) -> tuple[int, list[StoredAdd]]:
        """The user's committed version and the messages of the versions above `after` up to
        it, as `adds_between` gives them. One statement reads both: a cold search waits for one
        round trip instead of two, and the version and the messages come from one snapshot."""
        rows = self._catch_up_rows(user_id, after)
        if not rows:  # a user who never added anything
            return 0, []
        if rows[0][1] is None:  # the outer join's one empty row: nothing above `after`
            return rows[0][0], []
        return rows[0][0], list(group_adds(user_id, (row[1:] for row in rows)))

    remote = False
    """Whether a read waits for another process over a socket (PostgreSQL): the server then
    runs reads on threads of their own, so that its event loop does not wait too."""


_SQLITE_SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    user_id TEXT PRIMARY KEY,
    version INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS adds (
    user_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    PRIMARY KEY (user_id, request_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY,
    user_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    request_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    timestamp INTEGER
);
CREATE INDEX IF NOT EXISTS messages_by_user ON messages (user_id, version, id);
"""

# Version 1 files (one server process, no user versions): every user's messages so far become
# version 1, in their id order, which was their commit order.
_SQLITE_FROM_1 = """
ALTER TABLE messages ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
CREATE TABLE users (user_id TEXT PRIMARY KEY, version INTEGER NOT NULL) WITHOUT ROWID;
INSERT INTO users (user_id, version) SELECT DISTINCT user_id, 1 FROM messages;
"""


_SQLITE_CATCH_UP = CATCH_UP_SQL.format(p="?")


class SQLiteStore(Store):
    """A SQLite file in WAL mode; several processes may open it (writes queue on SQLite's lock)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._lock_fd: int | None = None
        self._write = self._connect()
        self._read = self._connect()
        try:
            mode = self._write.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            self._write.execute("BEGIN IMMEDIATE")  # one process creates or migrates the schema
            try:
                version = self._write.execute("PRAGMA user_version").fetchone()[0]
                if version not in (0, 1, SCHEMA_VERSION):
                    raise StoreError(f"{path}: schema version {version}, this server reads version {SCHEMA_VERSION}")
                if version == 1:
                    for statement in filter(str.strip, _SQLITE_FROM_1.split(";")):
                        self._write.execute(statement)
                for statement in filter(str.strip, _SQLITE_SCHEMA.split(";")):
                    self._write.execute(statement)
                self._write.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
                self._write.execute("COMMIT")
            except BaseException:
                self._write.execute("ROLLBACK")
                raise
        except sqlite3.DatabaseError as exc:
            self.close()
            raise StoreError(f"{path}: cannot open the database: {exc}") from exc
        except StoreError:
            self.close()
            raise
        if mode.lower() != "wal":
            self.close()
            raise StoreError(f"{path}: SQLite refused WAL mode (got {mode!r})")

    def _connect(self) -> sqlite3.Connection:
        try:
            # check_same_thread=False: opened on the main thread, then used by one other thread
            # (the writer) or by the event loop.
            db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                                 timeout=SQLITE_BUSY_MS / 1000)
            db.execute("PRAGMA synchronous=FULL")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot open the database: {exc}") from exc
        return db

    def _transaction(self):
        return _SQLiteTransaction(self._write, self._writer_lock())

    def _writer_lock(self) -> int:
        """The descriptor of the file that queues this database's writers across processes.

        SQLite's own busy handler polls, sleeping up to 100 ms between tries, so a second
        worker waiting for the write lock would often sleep long after it was released; a
        blocking flock wakes the next writer at once. Opened on first write (by the writer thread)."""
        if self._lock_fd is None:
            self._lock_fd = os.open(f"{self.path}{WRITER_LOCK_SUFFIX}", os.O_RDWR | os.O_CREAT, 0o600)
        return self._lock_fd

    def _bump_versions(self, users: list[str]) -> dict[str, int]:
        bump = ("INSERT INTO users (user_id, version) VALUES (?, 1) "
                "ON CONFLICT (user_id) DO UPDATE SET version = version + 1 RETURNING version")
        return {user: self._write.execute(bump, (user,)).fetchone()[0] for user in users}

    def _insert_adds(self, keys: list[tuple[str, str, str]]) -> set[tuple[str, str]]:
        insert = "INSERT OR IGNORE INTO adds (user_id, request_id, session_id) VALUES (?, ?, ?)"
        return {(user, request) for user, request, session in keys
                if self._write.execute(insert, (user, request, session)).rowcount}

    def _insert_messages(self, rows: list[MessageRow]) -> None:
        self._write.executemany(
            "INSERT INTO messages (user_id, version, request_id, session_id, position, role, content, timestamp)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)

    def user_version(self, user_id: str) -> int:
        row = self._read.execute("SELECT version FROM users WHERE user_id = ?", (user_id,)).fetchone()
        return row[0] if row else 0

    def _message_rows(self, user_id: str, after: int, upto: int) -> Iterable[tuple]:
        return self._read.execute(
            "SELECT id, session_id, role, content, timestamp FROM messages"
            " WHERE user_id = ? AND version > ? AND version <= ? ORDER BY version, id", (user_id, after, upto))

    def _catch_up_rows(self, user_id: str, after: int) -> list[tuple]:
        return self._read.execute(_SQLITE_CATCH_UP, (after, user_id)).fetchall()

    def count_messages(self) -> int:
        return self._read.execute("SELECT COUNT(*) FROM messages").fetchone()[0]

    def close(self) -> None:
        for name in ("_write", "_read"):
            if hasattr(self, name):
                getattr(self, name).close()
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None


class _SQLiteTransaction:
    def __init__(self, db: sqlite3.Connection, lock_fd: int) -> None:
        self.db, self.lock_fd = db, lock_fd

    def __enter__(self) -> None:
        self._flock(True)
        try:
            # IMMEDIATE: take the write lock now, so a batch never fails halfway on a busy database.
            self.db.execute("BEGIN IMMEDIATE")
        except BaseException:
            self._flock(False)
            raise

    def __exit__(self, kind: object, *rest: object) -> None:
        try:
            self.db.execute("ROLLBACK" if kind else "COMMIT")
        finally:
            self._flock(False)

    def _flock(self, take: bool) -> None:
        if fcntl is not None:
            fcntl.flock(self.lock_fd, fcntl.LOCK_EX if take else fcntl.LOCK_UN)


def is_postgres_url(db: str) -> bool:
    return db.startswith(("postgresql://", "postgres://"))


def open_store(db: str | Path) -> Store:
    """The store behind `--db`: a `postgresql://` URL, or else a SQLite file path."""
    db = str(db)
    if is_postgres_url(db):
        from memory_arena.contract.pgstore import PostgresStore

        return PostgresStore(db)
    return SQLiteStore(db)


def remove_sqlite_files(path: str | Path) -> None:
    """Delete a SQLite database and its WAL files (a failed start's empty file)."""
    for suffix in ("", "-wal", "-shm", WRITER_LOCK_SUFFIX):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


class GroupCommitWriter:
    """A thread that commits queued Adds in batches and hands each batch's outcomes back in order.

    `deliver(batch)` is called on the writer thread once per committed batch with
    `[(token, True | False | Exception)]` (True: written; False: a duplicate); the server
    forwards that to its event loop, which answers the waiting requests.
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
