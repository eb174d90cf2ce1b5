"""Feeding a task to a memory system: one user per task, one Add per session, in order.

The bench and the environment both go through `ingest_task`, so a system sees the same
requests whichever asks. Messages carry role, content and the turn's timestamp; the
session id is the turn's `session` number as a string.

The user is `task_user_id(task)`: the task id plus a hash of the task's turns. A service
keeps what it was sent and the contract has no delete, so a service that already holds
`recall-0000` of another dataset (another seed, `n` or generator version) must not be asked
about this one under the same user: it would answer the new Adds "already done" and search
the old conversation. A hash of the content makes the same conversation the same user on
every run (re-ingestion stays a no-op) and any other conversation a different one.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from typing import NamedTuple

from memory_arena.systems.base import Memory, MemorySystem, Message
from memory_arena.tasks.schema import Task


def task_sessions(task: Task) -> list[tuple[str, list[Message]]]:
    """The task's turns grouped into consecutive sessions, oldest first."""
    sessions: list[tuple[str, list[Message]]] = []
    for turn in task.turns:
        sid = str(turn.session)
        if not sessions or sessions[-1][0] != sid:
            sessions.append((sid, []))
        sessions[-1][1].append({"role": turn.role, "content": turn.content, "timestamp": turn.timestamp})
    return sessions


def task_user_id(task: Task) -> str:
    """The user a task is ingested as: `<task id>-<16 hex digits of a SHA-256 of its turns>`."""
    turns = [[t.role, t.content, t.timestamp, t.session] for t in task.turns]
    digest = hashlib.sha256(json.dumps(turns, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    return f"{task.id}-{digest.hexdigest()[:16]}"


class IngestTiming(NamedTuple):
    """Wall times of one ingestion, in seconds (for latency figures only)."""

    adds: list[float]
    """Each Add, one per session."""
    flush: float


def ingest_task(system: MemorySystem, task: Task, user_id: str | None = None) -> IngestTiming:
    """Forget `user_id` (default: `task_user_id(task)`), add every session of the task, then
    flush it (a system may buffer its adds until then)."""
    user = user_id or task_user_id(task)
    system.reset(user)
    adds = []
    for session_id, messages in task_sessions(task):
        start = time.perf_counter()
        system.add(user, session_id, messages)
        adds.append(time.perf_counter() - start)
    start = time.perf_counter()
    system.flush(user)
    return IngestTiming(adds, time.perf_counter() - start)


def retrieve_for_task(system: MemorySystem, task: Task, top_k: int, user_id: str | None = None) -> list[Memory]:
    """Ingest `task` as one user and return the top `top_k` memories for its question.

    Safe to call concurrently for the same task (rollouts of one prompt): without an explicit
    `user_id`, a system that can forget ingests under a fresh scratch user that is forgotten
    afterwards, so no call ever sees another's half-ingested history; a system that cannot
    forget (`http`) uses `task_user_id(task)`, and its idempotent Adds make a repeat a no-op.
    The user id never affects a ranking, so the result is the same either way."""
    if user_id is not None:
        ingest_task(system, task, user_id)
        return system.search(user_id, task.question, top_k)
    if not system.can_forget:
        user = task_user_id(task)
        ingest_task(system, task, user)
        return system.search(user, task.question, top_k)
    scratch = f"{task.id}~{uuid.uuid4().hex}"
    try:
        ingest_task(system, task, scratch)
        return system.search(scratch, task.question, top_k)
    finally:
        system.reset(scratch)
