"""recall: one fact about the user, with noise and near-distractors before and after it, then the
question.

The depth (turns after the fact) is stratified over the Recall@ buckets (0,10], (10,50], (50,100]
(plus (100, max_noise] for long horizons), so every bucket holds its share of the tasks for any
seed; the noise before the fact is drawn independently, so the fact sits anywhere in the
conversation.
"""

from __future__ import annotations

import random

from . import noise
from .common import question_for, BuildConfig, Conversation, even_between, stratified
from .forms import value_forms
from .schema import Task
from .slots import SLOTS

NAME = "recall"
VERSION = 4


def depth_buckets(max_noise: int) -> list[tuple[int, int]]:
    """The (low, high] depth buckets recall tasks are spread over. A long-horizon bucket
    (100, max_noise] comes second, so that even the first three tasks of a long set include
    one deeper than 100 turns. Only buckets that fit under `max_noise` are used."""
    buckets = [(0, 10), (10, 50), (50, 100)]
    if max_noise > 100:
        buckets.insert(1, (100, max_noise))
    return [(low, min(high, max_noise)) for low, high in buckets if low + 3 <= max_noise - 2]


def build(rng: random.Random, index: int, config: BuildConfig) -> Task:
    low, high = stratified(config, NAME, index, tuple(depth_buckets(config.max_noise)), "depth")
    slot = stratified(config, NAME, index, SLOTS, "slot")
    # depth = filler turns after the fact + 1 (the reply to the fact); at least one pair after it.
    # Two pairs at least before it: the conversation opens with small talk, then a decoy.
    after = even_between(rng, max(low, 2), min(high - 1, config.max_noise - 4))
    before = even_between(rng, 4, config.max_noise - after)
    conv = Conversation(rng)
    value = conv.draw(slot.kind)
    filler = noise.Filler(conv, [before, after], noise.decoy_queue(conv, slot, facts=slot.state, single=True),
                          small_talk_at=noise.OPENING)
    filler.add(before)
    fact_turn = conv.fact(rng.choice(slot.state),
                          {"op": "state", "slot": slot.name, "kind": slot.kind, "subject": "user", "value": value}, v=value)
    filler.add(after)
    return conv.task(
        category=NAME, index=index, question=question_for(rng, slot.question, [conv.turns[fact_turn].content]), answer=value,
        aliases=list(value_forms(value)[1:]), slot=slot.name, evidence=[fact_turn], stale=[],
        distractors=noise.distractors_of(conv, slot.kind, {value}), builder_version=VERSION,
        subject="user", question_kind="current",
    )
