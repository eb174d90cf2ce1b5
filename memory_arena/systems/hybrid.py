"""`hybrid`: dense + BM25 fused by weighted reciprocal rank, then expanded to context.

Fusion: score(m) = 1.0 / (60 + dense_rank(m)) + 0.5 / (60 + bm25_rank(m)), ranks from 1,
a memory absent from the BM25 ranking (no query word) contributing nothing from it. The
20 best fused memories are the seeds and come first, in fused order; then their
neighbours, the message just before and just after each seed in the same session (the
context of a match: the question it answers, the correction that follows), seed by seed;
then the remaining memories in fused order; each memory once. A neighbour carries the
last seed's score, so scores never increase down the list. Ties go to the newer message.
Listing all seeds before any neighbour keeps the best matches in a small top K (at K = 10 on
the shipped tasks, hit@10 drops sharply when each seed is directly followed by its neighbours
instead); a larger K adds the context. Needs the `dense` and `bm25` extras.
"""

from __future__ import annotations

import numpy as np

from memory_arena.systems.bm25 import BM25Index
from memory_arena.systems.dense import dense_scores, extend_embeddings
from memory_arena.systems.embedding import Encoder, shared_encoder
from memory_arena.systems.store import PerUserSystem, Record, UserLog, order_by_score

RRF_K = 60
DENSE_WEIGHT = 1.0
BM25_WEIGHT = 0.5
SEEDS = 20


def fuse(rankings: list[tuple[list[int], float]], count: int) -> np.ndarray:
    """Weighted reciprocal-rank fusion of rankings (positions best first, weight)."""
    fused = np.zeros(count, dtype=np.float64)
    for order, weight in rankings:
        for rank, position in enumerate(order, 1):
            fused[position] += weight / (RRF_K + rank)
    return fused


def expand(log: UserLog, fused: np.ndarray, top_k: int) -> list[tuple[int, float]]:
    """The seeds, then their same-session neighbours, then the rest, each memory once."""
    order = order_by_score(fused, keep_zero=True)
    seeds = order[:SEEDS]
    floor = float(fused[seeds[-1]])
    picked = [(p, float(fused[p])) for p in seeds]
    picked += [(n, floor) for seed in seeds for n in log.neighbours(seed)]
    picked += [(p, float(fused[p])) for p in order[SEEDS:]]
    out: list[tuple[int, float]] = []
    seen: set[int] = set()
    for position, score in picked:
        if position not in seen:
            seen.add(position)
            out.append((position, score))
            if len(out) == top_k:
                break
    return out


class HybridSystem(PerUserSystem):
    name = "hybrid"

    def __init__(self, encoder: Encoder | None = None) -> None:
        super().__init__()
        self.encoder = encoder or shared_encoder()

    def build_index(self, records: list[Record], old_index: tuple[BM25Index, np.ndarray] | None,
                    old_count: int) -> tuple[BM25Index, np.ndarray]:
        old_bm25, old_matrix = old_index if old_index is not None else (None, None)
        return (BM25Index.extend(records, old_bm25, old_count),
                extend_embeddings(self.encoder, records, old_matrix, old_count))

    def fused_scores(self, index: tuple[BM25Index, np.ndarray], query: str) -> np.ndarray:
        """The fused score of every record of `index` for `query` (also `timeline`'s relevance)."""
        bm25, matrix = index
        dense_order = order_by_score(dense_scores(self.encoder, matrix, query), keep_zero=True)
        bm25_order = order_by_score(bm25.scores(query), keep_zero=False)
        return fuse([(dense_order, DENSE_WEIGHT), (bm25_order, BM25_WEIGHT)], len(matrix))

    def rank(self, log: UserLog, query: str, top_k: int) -> list[tuple[int, float]]:
        return expand(log, self.fused_scores(log.index, query), top_k)

    def describe(self) -> dict[str, str]:
        return {"name": self.name, "model": self.encoder.path.name}
