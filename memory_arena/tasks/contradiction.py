"""contradiction: the user states a fact, then explicitly corrects it; the final corrected
value wins. Four forms, chosen per task:

- `direct`: "Actually it's June 15, not June 12." after some filler;
- `scratch`: "Scratch that, it's June 15." right after the statement;
- `restatement`: the assistant recaps the old value and the user corrects the recap;
- `double`: a correction of a correction (three values, the last wins).

Unlike an update, a correction says the earlier value was never true; for the benchmark both
mean the same thing: only the newest statement counts.
"""

from __future__ import annotations

import random

from . import noise
from .common import BuildConfig, Conversation, even_between, split_total, value_aliases
from .schema import Task
from .slots import SLOTS, Slot

NAME = "contradiction"
VERSION = 1
FORMS = ("direct", "scratch", "restatement", "double")

DIRECT = ("Actually it's {new}, not {old}.", "Sorry, I got {noun} wrong earlier: it's {new}, not {old}.",
          "Correction: {new}, not {old}. I mixed it up.",
          "I need to fix something I told you about {noun}: it's actually {new}. {old} was a mistake.",
          "Hold on, I misremembered. Not {old}, {new}.")
SCRATCH = ("Scratch that, it's {new}.", "Wait, no. Scratch that: {new}.", "Ignore what I just said, it's {new}.",
           "Oops, I meant {new}.")
RECAP_ASK = ("Can you recap what I told you about {noun}?", "Quick check: what do you have down for {noun}?",
             "Remind me what I said about {noun}?")
RECAP_SAY = ("You told me {old}.", "My notes say {old}.", "From what you said earlier: {old}.")
RECAP_FIX = ("No, that's wrong, it's {new}. I misspoke before.", "Not quite. It's {new}, I said the wrong thing earlier.",
             "That's not right: {new}, not {old}.")
AGAIN = ("Ugh, I was wrong again. It's {new}, not {old}.", "Sorry, one more fix: not {old} either, it's {new}.",
         "Let me correct my correction: it's {new}.")


def _say(slot: Slot, template: str, new: str, old: str) -> str:
    return template.format(new=slot.phrase.format(v=new), old=slot.phrase.format(v=old), noun=slot.noun)


def build(rng: random.Random, index: int, config: BuildConfig) -> Task:
    slot = rng.choice(SLOTS)
    form = FORMS[index % len(FORMS)]  # round-robin: each form a quarter of the category
    conv = Conversation(rng)
    values = [conv.draw(slot.kind) for _ in range(3 if form == "double" else 2)]
    total = even_between(rng, 12, config.max_noise)
    before, between, between2, after = split_total(rng, total, 4)
    # Gaps a form does not use go to the tail, so the noise budget is spent either way.
    if form != "double":
        after, between2 = after + between2, 0
    if form == "scratch":
        after, between = after + between, 0
    filler = noise.Filler(conv, total, noise.distractor_queue(conv, slot, rng.randint(1, 3), rng.randint(3, 5)))

    def event(op: str, value: str) -> dict:
        return {"op": op, "slot": slot.name, "kind": slot.kind, "subject": "user", "value": value}

    filler.add(before)
    chain = [conv.fact(rng.choice(slot.state).format(v=values[0]), event("state", values[0]))]
    if form == "scratch":
        chain.append(conv.fact(_say(slot, rng.choice(SCRATCH), values[1], values[0]), event("correct", values[1])))
    elif form == "restatement":
        filler.add(between)
        recap = conv.pair(_say(slot, rng.choice(RECAP_ASK), "", ""),
                          _say(slot, rng.choice(RECAP_SAY), "", values[0]), noise=False)
        conv.log(recap + 1, {**event("restate", values[0]), "subject": "assistant"})
        chain.append(conv.fact(_say(slot, rng.choice(RECAP_FIX), values[1], values[0]), event("correct", values[1])))
    else:
        filler.add(between)
        chain.append(conv.fact(_say(slot, rng.choice(DIRECT), values[1], values[0]), event("correct", values[1])))
        if form == "double":
            filler.add(between2)
            chain.append(conv.fact(_say(slot, rng.choice(AGAIN), values[2], values[1]), event("correct", values[2])))
    filler.add(after)
    answer = values[-1]
    return conv.task(
        category=NAME, index=index, question=rng.choice(slot.question), answer=answer,
        aliases=value_aliases(slot.kind, answer), slot=slot.name, evidence=chain, stale=values[:-1],
        distractors=noise.distractors_of(conv, slot.kind, set(values)), builder_version=VERSION,
        subject="user", question_kind="current", form=form,
    )
