"""`dense`: cosine similarity of static sentence embeddings (see `embedding`).

Every memory of the user is ranked (a dense score is never exactly "no match"); ties go to
the newer message. Embeddings are computed once per message: an index rebuild after new
messages embeds only the new ones. Needs the `dense` extra.
"""

from __future__ import annotations

import numpy as np

from memory_arena.systems.embedding import Encoder, shared_encoder
from memory_arena.systems.store import PerUserSystem, Record, UserLog, order_by_score


def extend_embeddings(encoder: Encoder, records: list[Record], old: np.ndarray | None, old_count: int) -> np.ndarray:
    """The embedding matrix of `records`, reusing the rows of the first `old_count`."""
    new = encoder.encode([r.content for r in records[old_count:]])
    return new if old is None else np.vstack([old, new])


def dense_scores(encoder: Encoder, matrix: np.ndarray, query: str) -> np.ndarray:
    return matrix @ encoder.encode([query])[0]


class DenseSystem(PerUserSystem):
    name = "dense"

    def __init__(self, encoder: Encoder | None = None) -> None:
        super().__init__()
        self.encoder = encoder or shared_encoder()

    def build_index(self, records: list[Record], old_index: np.ndarray | None, old_count: int) -> np.ndarray:
        return extend_embeddings(self.encoder, records, old_index, old_count)

    def rank(self, log: UserLog, query: str, top_k: int) -> list[tuple[int, float]]:
        scores = dense_scores(self.encoder, log.index, query)
        return [(p, float(scores[p])) for p in order_by_score(scores, keep_zero=True)[:top_k]]

    def describe(self) -> dict[str, str]:
        return {"name": self.name, "model": self.encoder.path.name}
