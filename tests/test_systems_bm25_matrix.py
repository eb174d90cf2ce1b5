"""`bm25_matrix.Corpus` builds, incrementally, the scores `bm25s.BM25().index(...)` builds at once:
the same float32 to the bit for every query, whatever the corpus and however it was split
into extensions (hypothesis), and on the shipped dataset's conversations."""

from __future__ import annotations

import numpy as np
import pytest

bm25s = pytest.importorskip("bm25s", reason="the bm25 system needs the bm25 extra")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from memory_arena.systems.bm25_matrix import Corpus  # noqa: E402
from memory_arena.systems.ingest import task_sessions  # noqa: E402
from memory_arena.systems.text import tokenize  # noqa: E402

# A small alphabet, so that tokens repeat within and across documents (tf and df above 1).
tokens = st.sampled_from(["kite", "red", "blue", "lyon", "june", "dog", "pretzel", "moved", "x", "ü"])
documents = st.lists(st.lists(tokens, max_size=12), min_size=1, max_size=40)


def scores(retriever, query: list[str]) -> np.ndarray | None:
    ids = retriever.get_tokens_ids(query)
    return retriever.get_scores_from_ids(ids) if ids else None


def assert_same(mine, reference, queries: list[list[str]]) -> None:
    for query in queries:
        a, b = scores(mine, query), scores(reference, query)
        assert (a is None) == (b is None), query
        if a is not None:
            assert a.dtype == b.dtype == np.float32
            assert a.view(np.uint32).tolist() == b.view(np.uint32).tolist(), query


@settings(max_examples=200, deadline=None)
@given(docs=documents, cuts=st.lists(st.integers(0, 40), max_size=4),
       queries=st.lists(st.lists(tokens, min_size=1, max_size=6), min_size=1, max_size=5))
def test_incremental_scores_equal_bm25s_bit_for_bit(docs: list[list[str]], cuts: list[int],
                                                    queries: list[list[str]]) -> None:
    corpus = Corpus()
    start = 0
    for cut in sorted(min(c, len(docs)) for c in cuts) + [len(docs)]:
        corpus.add(docs[start:cut])
        start = max(start, cut)
    mine = corpus.retriever()
    if not any(docs):
        assert mine is None  # bm25s cannot index an empty vocabulary either
        return
    reference = bm25s.BM25()
    reference.index(docs, show_progress=False)
    assert_same(mine, reference, queries)


def test_the_shipped_conversations_score_alike(shipped_tasks) -> None:
    for task in shipped_tasks[::25]:
        docs = [tokenize(m["content"]) for _, messages in task_sessions(task) for m in messages]
        corpus = Corpus()
        corpus.add(docs[: len(docs) // 3])
        corpus.retriever()
        corpus.add(docs[len(docs) // 3:])
        reference = bm25s.BM25()
        reference.index(docs, show_progress=False)
        assert_same(corpus.retriever(), reference, [tokenize(task.question), *docs[:3]])
