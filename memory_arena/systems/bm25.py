"""`bm25`: Okapi BM25 (Lucene variant, k1=1.5, b=0.75) through the bm25s library.

One bm25s index per user, built from `text.tokenize` tokens and rebuilt lazily on the
first search after new messages (building is cheap next to scoring many times: a 200-turn
history indexes in about a millisecond). Memories with a zero score (no query word in
common) are not returned; ties go to the newer message. Needs the `bm25` extra (bm25s).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from memory_arena.systems.store import PerUserSystem, Record, UserLog, order_by_score
from memory_arena.systems.text import tokenize


def bm25_index(records: list[Record]) -> Any:
    """A bm25s retriever over the records' tokens."""
    import bm25s

    retriever = bm25s.BM25()
    retriever.index([tokenize(r.content) for r in records], show_progress=False)
    return retriever


def bm25_scores(retriever: Any, query: str, count: int) -> np.ndarray:
    """The BM25 score of every indexed record for `query` (zeros if no word is known)."""
    ids = retriever.get_tokens_ids(tokenize(query))
    if not ids:
        return np.zeros(count, dtype=np.float32)
    return retriever.get_scores_from_ids(ids)


class BM25System(PerUserSystem):
    name = "bm25"

    def __init__(self) -> None:
        import bm25s  # noqa: F401  (fail at construction, not at the first search)

        super().__init__()

    def build_index(self, records: list[Record], old_index: Any, old_count: int) -> Any:
        return bm25_index(records)

    def rank(self, log: UserLog, query: str, top_k: int) -> list[tuple[int, float]]:
        scores = bm25_scores(log.index, query, len(log.records))
        return [(p, float(scores[p])) for p in order_by_score(scores, keep_zero=False)[:top_k]]
