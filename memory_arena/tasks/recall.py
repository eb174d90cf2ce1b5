"""recall: one fact about the user, buried under 5 to `max_noise` filler turns, then the question.

Depths are assigned by index in round-robin over the Recall@ buckets (0,10], (10,50],
(50,100] (plus (100, max_noise] for long horizons), so every bucket holds a third of the tasks.
"""

from __future__ import annotations

import random

from . import noise
from .common import BuildConfig, Conversation, even_between, value_aliases
from .schema import Task
from .slots import SLOTS

NAME = "recall"
VERSION = 1


def depth_buckets(max_noise: int) -> list[tuple[int, int]]:
    """The (low, high] noise-turn buckets recall tasks are spread over, in round-robin order.
    A long-horizon bucket (100, max_noise] comes second, so that even the first three tasks
    of a long set include one deeper than 100 turns."""
    buckets = [(0, 10), (10, 50), (50, 100)]
    if max_noise > 100:
        buckets.insert(1, (100, max_noise))
    return [(low, min(high, max_noise)) for low, high in buckets if low < max_noise]


def build(rng: random.Random, index: int, config: BuildConfig) -> Task:
    low, high = depth_buckets(config.max_noise)[index % len(depth_buckets(config.max_noise))]
    total = even_between(rng, max(low + 1, 6), high)
    slot = rng.choice(SLOTS)
    conv = Conversation(rng)
    value = conv.draw(slot.kind)
    fact_turn = conv.fact(rng.choice(slot.state).format(v=value),
                          {"op": "state", "slot": slot.name, "kind": slot.kind, "subject": "user", "value": value})
    # The short bucket still carries a distractor in most pairs, so a random pick stays rare.
    pairs = total // 2
    others = min(rng.randint(1, 3), pairs)
    mentions = min(rng.randint(3, 5), pairs - others)
    noise.Filler(conv, total, noise.distractor_queue(conv, slot, others, mentions)).add(total)
    return conv.task(
        category=NAME, index=index, question=rng.choice(slot.question), answer=value,
        aliases=value_aliases(slot.kind, value), slot=slot.name, evidence=[fact_turn], stale=[],
        distractors=noise.distractors_of(conv, slot.kind, {value}), builder_version=VERSION,
        subject="user", question_kind="current",
    )
