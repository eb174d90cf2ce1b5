"""bm25s's score matrix built incrementally, in a handful of vectorised numpy operations.

`bm25s.BM25.index` walks the whole corpus in Python on every call (a Counter per document, a
dict of document frequencies, the scores document by document): about 2 ms for a user's 70
messages, paid again on the first search after every Add, since BM25's statistics (the number
of documents, the average length, each token's document frequency) change with each message.
`Corpus` keeps what does not change (each message's token counts, the document frequencies)
and recomputes only the scores, with exactly the floating-point operations bm25s performs
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
    doc_freq: list[int] = field(default_factory=list)
    """Per vocabulary id: how many documents contain the token."""
    lengths: list[int] = field(default_factory=list)
    """Per document: its number of tokens."""
    entry_doc: list[int] = field(default_factory=list)
    entry_token: list[int] = field(default_factory=list)
    entry_tf: list[int] = field(default_factory=list)
    """One entry per (document, distinct token): the token's count in the document."""

    def add(self, documents: list[list[str]]) -> None:
        """Append documents; costs only their own tokens."""
        vocab, doc_freq = self.vocab, self.doc_freq
        for tokens in documents:
            doc = len(self.lengths)
            self.lengths.append(len(tokens))
            counts: dict[str, int] = {}  # a plain dict: Counter's constructor costs more on short texts
            for token in tokens:
                counts[token] = counts.get(token, 0) + 1
            for token, tf in counts.items():
                token_id = vocab.get(token)
                if token_id is None:
                    token_id = vocab[token] = len(doc_freq)
                    doc_freq.append(0)
                doc_freq[token_id] += 1
                self.entry_token.append(token_id)
            self.entry_doc.extend([doc] * len(counts))
            self.entry_tf.extend(counts.values())

    def retriever(self) -> Any:
        """A `bm25s.BM25` over every document so far, as `BM25().index(documents)` would build it;
        None while there is no token at all (bm25s cannot index an empty vocabulary)."""
        import bm25s

        if not self.vocab:
            return None
        n_docs, n_vocab = len(self.lengths), len(self.doc_freq)
        # Each line below is bm25s's own expression (scoring.py, BM25.build_index_from_ids),
        # applied to all entries at once: the same IEEE operations in the same order.
        avg_len = np.array(self.lengths).mean()
        distinct, which = np.unique(np.array(self.doc_freq), return_inverse=True)
        idf = np.array([math.log(1 + (n_docs - df + 0.5) / (df + 0.5)) for df in distinct.tolist()],
                       dtype=np.float32)[which]
        doc = np.array(self.entry_doc, dtype=np.int32)
        token = np.array(self.entry_token, dtype=np.int32)
        tf = np.array(self.entry_tf, dtype=np.float32).astype(_TFC_DTYPE)
        length_norm = (K1 * ((1 - B) + B * np.array(self.lengths, dtype=np.float64) / avg_len)).astype(_TFC_DTYPE)
        tfc = tf / (length_norm[doc] + tf)
        scores = (idf[token].astype(_TFC_DTYPE) * tfc).astype(np.float32)
        # Compressed sparse columns, one column per token: a query adds up its tokens' columns.
        order = np.argsort(token, kind="stable")
        indptr = np.zeros(n_vocab + 1, dtype=np.int64)
        np.cumsum(np.bincount(token, minlength=n_vocab), out=indptr[1:])
        retriever = bm25s.BM25(k1=K1, b=B)
        retriever.scores = {"data": scores[order], "indices": doc[order], "indptr": indptr, "num_docs": n_docs}
        retriever.vocab_dict = dict(self.vocab)
        retriever.unique_token_ids_set = set(retriever.vocab_dict.values())
        retriever.nonoccurrence_array = None  # only BM25L and BM25+ have one
        return retriever
