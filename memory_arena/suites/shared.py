"""One ingest per long-horizon history, per memory system and process (docs/suites.md, "long").

Under `memory_system` delivery each task's prompt is built by retrieving for its question. A
`long` history is about 8,000 turns and carries 50 questions, each a task with the same turns:
ingested per task, one history costs 50 ingests. Nothing writes to the memory system in that
delivery but the ingest itself (the model only reads what is retrieved), so a history ingested
once under `history_user(task)` serves every question of it. Isolation holds: that user ends
with a hash of the history's turns, so another history, or the same one from another seed or
generator version, is always another user, and no task sees anything but its own history.

The record of what is ingested belongs to the system object (a weak mapping: it goes with the
system). Concurrent calls for one history wait for its one ingest; the first search runs under
the same lock, since the built-in systems build their index lazily on it. A task that is its own
conversation (every other suite) goes through `retrieve_for_task` as before.
"""

from __future__ import annotations

import threading
import weakref

from ..systems.base import Memory, MemorySystem
from ..systems.ingest import ingest_task, retrieve_for_task
from ..tasks.schema import Task
from . import history_user

_INGESTED: "weakref.WeakKeyDictionary[MemorySystem, tuple[dict[str, threading.Lock], set[str]]]" = weakref.WeakKeyDictionary()
_GUARD = threading.Lock()


def retrieve(system: MemorySystem, task: Task, top_k: int) -> list[Memory]:
    """The top `top_k` memories for the task's question: a long-horizon history is ingested once
    per system and searched for each of its questions; any other task as `retrieve_for_task`."""
    user = history_user(task)
    if user is None:
        return retrieve_for_task(system, task, top_k)
    with _GUARD:
        locks, ready = _INGESTED.setdefault(system, ({}, set()))
        lock = locks.setdefault(user, threading.Lock())
    with lock:
        if user not in ready:
            ingest_task(system, task, user)
            memories = system.search(user, task.question, top_k)
            ready.add(user)
            return memories
    return system.search(user, task.question, top_k)
