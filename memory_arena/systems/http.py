"""`http`: any service that speaks the Add/Search contract (docs/design.md, "The Add/Search
contract"), through the contract client (chunking, retries, validation of every answer).

The contract has no delete, so `reset` forgets nothing on the service. Re-ingesting a
task is still safe: the client derives each chunk's `request_id` from (user, session,
chunk index, messages), the service keeps the first write of a request id, and so a second
ingestion of the same task under the same user changes nothing; a task's user carries a
hash of its turns (`ingest.task_user_id`), so another conversation is another user. A
`user_prefix` keeps one run's users apart from another's on a shared service.
"""

from __future__ import annotations

from typing import Any

from memory_arena.contract.client import ContractClient
from memory_arena.systems.base import Memory, MemorySystem, Message
from memory_arena.systems.store import check_messages


class HttpSystem(MemorySystem):
    name = "http"
    can_forget = False

    def __init__(self, base_url: str, api_key: str | None = None, user_prefix: str = "",
                 timeout: float = 30.0, **client_kw: Any) -> None:
        self.base_url = base_url.rstrip("/")
        self.user_prefix = user_prefix
        self.client = ContractClient.from_base_url(self.base_url, api_key=api_key, timeout=timeout, **client_kw)

    def add(self, user_id: str, session_id: str, messages: list[Message]) -> None:
        check_messages(messages)
        self.client.add_session(self.user_prefix + user_id, str(session_id), list(messages))

    def search(self, user_id: str, query: str, top_k: int) -> list[Memory]:
        if top_k <= 0:
            return []
        return self.client.search(self.user_prefix + user_id, query, top_k)  # type: ignore[return-value]

    def reset(self, user_id: str | None = None) -> None:
        """Nothing to do: see the module docstring."""

    def close(self) -> None:
        self.client.close()

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "url": self.base_url}
