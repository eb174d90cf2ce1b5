"""The memory-system adapter interface (docs/design.md, "Memory systems") shared by the built-in systems, the
reference server's search backends and the bench.

A memory system ingests sessions of messages per user and answers searches within one user.
`user_id` is the only isolation boundary: nothing added for one user may come back for another.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, TypedDict


class Message(TypedDict, total=False):
    role: str
    content: str
    timestamp: int  # Unix ms, optional


class Memory(TypedDict):
    id: str
    content: str
    score: float
    created_at: int | None  # Unix ms of the message, when known


class MemorySystem(ABC):
    """Adapter interface. Implementations keep per-user state and never share it across users."""

    name: str = "abstract"
    can_forget: bool = True
    """False when `reset` cannot delete anything (a service whose contract has no delete):
    callers then reuse a user id for the same data instead of making a fresh one."""

    @abstractmethod
    def add(self, user_id: str, session_id: str, messages: list[Message]) -> None:
        """Ingest one session's messages (in order) for `user_id`. A system may only buffer
        them here and write the batch in `flush`."""

    def flush(self, user_id: str) -> None:
        """Make everything added for `user_id` searchable. Callers call it after the last Add
        of an ingestion and before searching, so a system that buffers its adds can write
        them (and embed them) in one batch: one library call per task rather than one per
        session or message. Default: nothing to do, `add` already wrote."""

    @abstractmethod
    def search(self, user_id: str, query: str, top_k: int) -> list[Memory]:
        """Up to `top_k` memories of `user_id`, best first."""

    @abstractmethod
    def reset(self, user_id: str | None = None) -> None:
        """Forget one user's memories, or everyone's when `user_id` is None."""

    def close(self) -> None:
        """Release resources (connections, models). Default: nothing to release."""

    def describe(self) -> dict[str, Any]:
        return {"name": self.name}
