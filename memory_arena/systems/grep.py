"""`grep`: token-overlap search, the simplest lexical baseline.

A memory's score is the number of distinct content words (see `text.tokenize`) it shares
with the query; memories sharing none are not returned. Ties go to the newer message.
"""

from __future__ import annotations

from memory_arena.systems.store import PerUserSystem, Record, UserLog, order_by_score
from memory_arena.systems.text import tokenize


class GrepSystem(PerUserSystem):
    name = "grep"

    def build_index(self, records: list[Record], old_index: list[frozenset[str]] | None,
                    old_count: int) -> list[frozenset[str]]:
        # Token sets only grow by appending, so earlier records are never re-tokenised.
        return (old_index or []) + [frozenset(tokenize(r.content)) for r in records[old_count:]]

    def rank(self, log: UserLog, query: str, top_k: int) -> list[tuple[int, float]]:
        wanted = frozenset(tokenize(query))
        scores = [len(wanted & words) for words in log.index]
        return [(p, float(scores[p])) for p in order_by_score(scores, keep_zero=False)[:top_k]]
