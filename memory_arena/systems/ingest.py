"""Feeding a task to a memory system: one user per task, one Add per session, in order.

The bench and the environment both go through `ingest_task`, so a system sees the same
requests whichever asks. Messages carry role, content and the turn's timestamp; the
session id is the turn's `session` number as a string.
"""

from __future__ import annotations

import time

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


def ingest_task(system: MemorySystem, task: Task, user_id: str | None = None) -> list[float]:
    """Forget `user_id` (default: the task id), then add every session of the task.
    Returns the wall time of each Add in seconds (for latency figures only)."""
    user = user_id or task.id
    system.reset(user)
    latencies = []
    for session_id, messages in task_sessions(task):
        start = time.perf_counter()
        system.add(user, session_id, messages)
        latencies.append(time.perf_counter() - start)
    return latencies


def retrieve_for_task(system: MemorySystem, task: Task, top_k: int, user_id: str | None = None) -> list[Memory]:
    """Ingest `task` as one user and return the top `top_k` memories for its question."""
    user = user_id or task.id
    ingest_task(system, task, user)
    return system.search(user, task.question, top_k)
