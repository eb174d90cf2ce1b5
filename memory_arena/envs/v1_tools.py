"""The memory tools as a verifiers v1 Toolset (an MCP server started per rollout).

The per-rollout memory lives in `MemoryState`, which verifiers keeps with the rollout's trace
and syncs around every call, so concurrent rollouts never see each other's notes. The tool
logic itself is `memory_arena.memory_tools.MemoryStore`; the descriptions come from
`memory_tools.TOOL_DOCS`, the model's only documentation of its memory.

verifiers launches this module with `python -m`, hence the `__main__` block at the end.
No `from __future__ import annotations` here: the MCP server builds each tool's argument
schema from the live annotations of a wrapper defined in another module, where string
annotations could not be resolved.
"""

from typing import Annotated, Any

import verifiers.v1 as vf
from pydantic import Field

from memory_arena.memory_tools import ARG_DOCS, TOOL_DOCS, MemoryStore


class MemoryState(vf.State):
    """Rollout state shared by the task (metrics) and the tool server."""

    memory: dict[str, Any] = Field(default_factory=dict)
    """The `MemoryStore` data: entries, call and error counts."""


StoreKey = Annotated[str, Field(description=ARG_DOCS["store_memory"]["key"])]
StoreValue = Annotated[str, Field(description=ARG_DOCS["store_memory"]["value"])]
RetrieveKey = Annotated[str, Field(description=ARG_DOCS["retrieve_memory"]["key"])]


class MemoryToolset(vf.Toolset[vf.ToolsetConfig, MemoryState]):
    """store_memory / retrieve_memory / list_memories over the rollout's MemoryState."""

    TOOL_PREFIX = None  # the model sees the bare names the instructions use

    def _store(self) -> MemoryStore:
        return MemoryStore(self.state.memory)

    @vf.tool
    async def store_memory(self, key: StoreKey, value: StoreValue) -> str:
        return self._store().call("store_memory", {"key": key, "value": value})

    @vf.tool
    async def retrieve_memory(self, key: RetrieveKey) -> str:
        return self._store().call("retrieve_memory", {"key": key})

    @vf.tool
    async def list_memories(self) -> str:
        return self._store().call("list_memories", {})


for _name in TOOL_DOCS:
    getattr(MemoryToolset, _name).__doc__ = TOOL_DOCS[_name]


if __name__ == "__main__":
    MemoryToolset.run()
