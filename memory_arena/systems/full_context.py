"""`full-context`: no retrieval at all; every memory of the user, newest first.

The baseline of a system that keeps everything and ranks by recency: with `top_k` at least
the history length it returns the whole conversation (what an in-context model sees); with
a small `top_k` it is the last `top_k` messages. The score is the message's position, so
that the order is visible in the contract's `score` field.
"""

from __future__ import annotations

from memory_arena.systems.store import PerUserSystem, UserLog


class FullContextSystem(PerUserSystem):
    name = "full-context"

    def rank(self, log: UserLog, query: str, top_k: int) -> list[tuple[int, float]]:
        last = len(log.records) - 1
        return [(p, float(p)) for p in range(last, max(last - top_k, -1), -1)]
