"""bm25s's score matrix built incrementally, in a handful of vectorised numpy operations.

`bm25s.BM25.index` walks the whole corpus in Python on every call (a Counter per document, a
dict of document frequencies, the scores document by document): about 2 ms for a user's 70
messages, paid again on the first search after every Add, since BM25's statistics (the number
of documents, the average length, each token's document frequency) change with each message.
`Corpus` keeps what does not change (each message's token counts) and recomputes only the
document frequencies and the scores, with exactly the floating-point operations bm25s performs
(Lucene variant, its default k1 1.5 and b 0.75), so every score is the same float32 to the
bit (tested against bm25s on random corpora). The result is handed to a plain `bm25s.BM25`
object, which answers queries as it always does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# bm25s.BM25's defaults, which the `bm25` system uses.
K1, B = 1.5, 0.75

# The dtype of `np.float64 scalar + float32 array`: float64 under NumPy 2's promotion rules,
# float32 under NumPy 1's value-based casting. bm25s computes its term-frequency component
# that way, so this computes it in the same precision.
_TFC_DTYPE = (np.float64(K1) + np.ones(1, dtype=np.float32)).dtype


@dataclass
class Corpus:
    """The token statistics of a growing list of documents (token lists)."""

    vocab: dict[str, int] = field(default_factory=dict)
    lengths: list[int] = field(default_factory=list)
    """Per document: its number of tokens."""
    entries: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """One per (document, distinct token): `document << 32 | token id`, sorted."""
    counts: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """The token's count in the document, for each entry."""

    def add(self, documents: list[list[str]]) -> None:
        """Append documents; costs only their own tokens (one dict lookup each, the rest vectorised)."""
        first = len(self.lengths)
        lengths = [len(tokens) for tokens in documents]
        self.lengths += lengths
        vocab = self.vocab
        # setdefault(token, len(vocab)): a new token takes the next id.
        ids = [vocab.setdefault(token, len(vocab)) for tokens in documents for token in tokens]
        if not ids:
            return
        doc = np.repeat(np.arange(first, first + len(documents), dtype=np.int64), lengths)
        entries, counts = np.unique((doc << 32) | np.array(ids, dtype=np.int64), return_counts=True)
        self.entries = np.concatenate([self.entries, entries])
        self.counts = np.concatenate([self.counts, counts])

    def retriever(self) -> Any:
        """A `bm25s.BM25` over every document so far, as `BM25().index(documents)` would build it;
        None while there is no token at all (bm25s cannot index an empty vocabulary)."""
        import bm25s

        if not self.vocab:
            return None
        n_docs, n_vocab = len(self.lengths), len(self.vocab)
        doc = (self.entries >> 32).astype(np.int32)
        token = (self.entries & 0xFFFFFFFF).astype(np.int32)
        doc_freq = np.bincount(token, minlength=n_vocab)
        # Each line below is bm25s's own expression (scoring.py, BM25.build_index_from_ids),
        # applied to all entries at once: the same IEEE operations in the same order. The idf
        # goes through math.log, as in bm25s, once per distinct document frequency.
        avg_len = np.array(self.lengths).mean()
        distinct, which = np.unique(doc_freq, return_inverse=True)
        idf = np.array([math.log(1 + (n_docs - df + 0.5) / (df + 0.5)) for df in distinct.tolist()],
                       dtype=np.float32)[which]
        tf = self.counts.astype(np.float32).astype(_TFC_DTYPE)
        length_norm = (K1 * ((1 - B) + B * np.array(self.lengths, dtype=np.float64) / avg_len)).astype(_TFC_DTYPE)
        tfc = tf / (length_norm[doc] + tf)
        scores = (idf[token].astype(_TFC_DTYPE) * tfc).astype(np.float32)
        # Compressed sparse columns, one column per token: a query adds up its tokens' columns.
        order = np.argsort(token, kind="stable")
        indptr = np.zeros(n_vocab + 1, dtype=np.int64)
        np.cumsum(doc_freq, out=indptr[1:])
        retriever = bm25s.BM25(k1=K1, b=B)
        retriever.scores = {"data": scores[order], "indices": doc[order], "indptr": indptr, "num_docs": n_docs}
        retriever.vocab_dict = dict(self.vocab)
        retriever.unique_token_ids_set = set(retriever.vocab_dict.values())
        retriever.nonoccurrence_array = None  # only BM25L and BM25+ have one
        return retriever
