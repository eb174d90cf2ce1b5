"""update: a fact about the user changes one to three times through natural statements
("I moved to Bangalore"), with filler between; the latest value wins.

Some update templates do not repeat the slot's noun, so a reader must understand that "the
movers dropped the last boxes off in Lyon" changes the home city.
"""

from __future__ import annotations

import random

from . import noise
from .common import BuildConfig, Conversation, even_between, split_total, value_aliases
from .schema import Task
from .slots import SLOTS

NAME = "update"
VERSION = 1


def build(rng: random.Random, index: int, config: BuildConfig) -> Task:
    slot = rng.choice(SLOTS)
    changes = rng.randint(1, 3)
    total = even_between(rng, 6 * (changes + 1), config.max_noise)
    # Gaps: before the first statement, between statements, and after the last one.
    gaps = split_total(rng, total, changes + 2)
    conv = Conversation(rng)
    filler = noise.Filler(conv, total, noise.distractor_queue(conv, slot, rng.randint(1, 3), rng.randint(3, 5)))
    values = [conv.draw(slot.kind) for _ in range(changes + 1)]
    filler.add(gaps[0])
    turns = [conv.fact(rng.choice(slot.state).format(v=values[0]),
                       {"op": "state", "slot": slot.name, "kind": slot.kind, "subject": "user", "value": values[0]})]
    for step, value in enumerate(values[1:], 1):
        filler.add(gaps[step])
        # Alternate noun-bearing and bare templates so both kinds are common.
        bare = slot.update[len(slot.update) - slot.bare_updates:]
        with_noun = slot.update[: len(slot.update) - slot.bare_updates]
        template = rng.choice(bare if rng.random() < 0.5 else with_noun)
        turns.append(conv.fact(template.format(v=value),
                               {"op": "update", "slot": slot.name, "kind": slot.kind, "subject": "user", "value": value}))
    filler.add(gaps[-1])
    answer = values[-1]
    return conv.task(
        category=NAME, index=index, question=rng.choice(slot.question), answer=answer,
        aliases=value_aliases(slot.kind, answer), slot=slot.name, evidence=[turns[-1]], stale=values[:-1],
        distractors=noise.distractors_of(conv, slot.kind, set(values)), builder_version=VERSION,
        subject="user", question_kind="current", changes=changes,
    )
