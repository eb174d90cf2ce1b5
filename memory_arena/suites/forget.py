"""The `forget` suite (docs/suites.md, "forget"): facts that stop being true, with their twins.

Three kinds of task, one file each:

- `retraction`: the user states a fact (and maybe changes it once), then withdraws it: the car is
  sold, the dog rehomed, the job left, the appointment cancelled, or a correction takes it back
  ("Scratch that about the dentist: I never booked it"). The right answer is that there is none
  (`meta.abstain`, answer `none`).
- `twin`: the answerable twin of the retraction of the same index. Its history is the same turn for
  turn except two pairs: either the retraction is someone else's (`drop`: the user's fact stands),
  or a later re-statement gives the user the slot again (`restate`). So a model that always
  abstains is right on one task of each pair and one that never abstains on the other.
- `pressure` (forgetting pressure): a value mentioned in passing early on ("A Kia Niro cut me off
  today") later becomes the user's fact, and another passing value later becomes someone else's.

The retraction and its twin are built from the same RNG: every draw that both need is made in
both, in the same order, and the two pairs where they differ are written with an RNG of their
own (`_apart`), so the turns before, between and after are identical bytes. Decoy retractions
(someone else's, and the user's retraction of another thing of theirs) sit in every task, so the
words of a retraction do not mark the tasks whose answer is none.
"""

from __future__ import annotations

import random
from typing import Callable

from ..tasks import noise
from ..tasks.common import BuildConfig, Conversation, even_between, question_for, split_total, stratified
from ..tasks.forms import value_forms, values_of_kind
from ..tasks.schema import Task
from ..tasks.slots import SLOTS, Slot
from .long import UPDATES
from .retractions import BY_SLOT, Retraction

SUITE = "forget"
VERSION = 2
FILES = ("retraction", "twin", "pressure")
"""The suite's files (`<name>.jsonl`), in order; also the tasks' `category`."""
ABSTAIN_ANSWER = "none"
"""The answer of a task whose right reply says there is none (`meta.abstain` is true)."""

FORGET_SLOTS: tuple[Slot, ...] = tuple(s for s in SLOTS if s.name in BY_SLOT)
FORMS = ("news", "withdraw")
TWINS = ("drop", "restate")
CHANGES = (0, 1)
EXTRA_MENTIONS = 10
"""Typed mentions a pressure task adds to its decoys (fewer for a kind with few values)."""
MIRRORS = 3
PLACES = (0.3, 0.95)
"""Where a pressure task's change sits, as a share of its turns (uniform)."""
"""Passing values of a pressure task that later become someone else's (the answer becomes the user's)."""


def build(category: str, rng: random.Random, index: int, config: BuildConfig) -> Task:
    """Task `index` of `category` (one of FILES); a retraction and its twin take the same RNG."""
    if category == "pressure":
        return _pressure(rng, index, config)
    return _paired(rng, index, config, twin=category == "twin")


def _apart(conv: Conversation, seed: float, write: Callable[[], int]) -> int:
    """Append the pair(s) where a retraction and its twin differ, with an RNG of their own and a
    clock put back to the same point afterwards: the turns after them stay identical."""
    main, start = conv.rng, conv.clock
    conv.rng = random.Random(seed)
    try:
        turn = write()
    finally:
        conv.rng = main
    # Two turns at most 150 s apart each: the next turn comes after them in both variants.
    conv.clock = max(conv.clock, start + 300_001)
    return turn


def _decoy_retractions(slot: Slot, retraction: Retraction) -> list[noise.Decoy]:
    """Someone else's retraction, a retraction of another thing of the user's, and someone else's
    re-statement, in every task: the shapes of a retraction and of a re-statement are no one's own."""

    def other(conv: Conversation) -> None:
        who, value = noise.other_person(conv, slot), conv.draw(slot.kind)
        template = conv.fresh(retraction.other_news + retraction.other_withdraw)
        turn = conv.say(template, noise=True, who=who, v=value)
        _log_other(conv, turn, slot, who, value)
        conv.events[-1]["retract"] = True

    def twin(conv: Conversation) -> None:
        value = conv.draw(slot.kind)
        turn = conv.say(conv.fresh(retraction.twin), noise=True, v=value)
        conv.log(turn, {"op": "sibling", "slot": slot.name, "kind": slot.kind, "value": value, "retract": True})

    def again(conv: Conversation) -> None:
        who, value = noise.other_person(conv, slot), conv.draw(slot.kind)
        turn = conv.say(conv.fresh(retraction.other_restate), noise=True, who=who, v=value)
        _log_other(conv, turn, slot, who, value)

    return [other, twin, again]


def _with_retractions(conv: Conversation, slot: Slot, queue: list[noise.Decoy], gaps: list[int]) -> list[noise.Decoy]:
    """The decoy queue with the slot's decoy retractions always in it (the filler keeps only as
    many decoys as it has pairs), shuffled so that they sit anywhere."""
    if slot.name not in BY_SLOT:
        return queue
    mine = _decoy_retractions(slot, BY_SLOT[slot.name])
    queue = mine + queue[:max(0, sum(gaps) // 2 - 1 - len(mine))]
    conv.rng.shuffle(queue)
    return queue


def _log_other(conv: Conversation, turn: int, slot: Slot, who: str, value: str) -> None:
    if not who.startswith("my "):
        conv.log(turn, {"op": "mention", "kind": "person", "value": who})
    conv.log(turn, {"op": "other", "slot": slot.name, "kind": slot.kind, "subject": who, "value": value})


def _later_session(conv: Conversation, filler: noise.Filler, gap: int, brk: int, since: int) -> None:
    """`gap` filler turns in which a new session opens (after `brk` of them, at small talk), so
    that what follows is said on a later day than turn `since`."""
    filler.add(brk)
    conv.session_due()
    filler.add(gap - brk)
    if conv.session_pending(since=since):  # no small talk came: the statement opens the session
        conv.new_session()


def _paired(rng: random.Random, index: int, config: BuildConfig, *, twin: bool) -> Task:
    slot = stratified(config, SUITE, index, FORGET_SLOTS, "slot")
    retraction = BY_SLOT[slot.name]
    form = stratified(config, SUITE, index, FORMS, "form")
    twin_kind = stratified(config, SUITE, index, TWINS, "twin")
    changes = stratified(config, SUITE, index, CHANGES, "changes")
    # Gaps in turns: the head, one before each change, one before a retraction told as news (a
    # withdrawal follows the statement it takes back), one before the re-statement pair, the
    # tail. Every gap but the head and tail holds a session break and a decoy before the fact.
    inner = changes + (form == "news") + 1
    budget = even_between(rng, min(config.max_noise, 6 * (inner + 2)), config.max_noise)
    tail = even_between(rng, 2, max(2, 2 * budget // 3))
    free = max(0, budget - tail - 2 - 4 * inner)
    shares = split_total(rng, free - free % 2, inner + 1)
    head = 2 + shares[0]
    inner_gaps = [4 + s for s in shares[1:]]
    breaks = [2 * rng.randint(0, g // 2 - 2) for g in inner_gaps]
    starts = [head // 2]
    for g in inner_gaps:
        starts.append(starts[-1] + g // 2)
    openers = {starts[k] + breaks[k] // 2 for k in range(inner)}
    must = [range(head // 2)] + [range(starts[k] + breaks[k] // 2 + 1, starts[k + 1]) for k in range(inner)]
    conv = Conversation(rng)
    values = [conv.draw(slot.kind) for _ in range(changes + 1)]
    # Drawn in every variant, used in some: the twins' draws stay in step.
    later, decoy_value = conv.draw(slot.kind), conv.draw(slot.kind)
    who_r, who_s = noise.other_person(conv, slot), noise.other_person(conv, slot)
    seeds = (rng.random(), rng.random())
    gaps = [head, *inner_gaps, tail]
    queue = _with_retractions(conv, slot, noise.decoy_queue(conv, slot, facts=slot.state + UPDATES[slot.name]), gaps)
    filler = noise.Filler(conv, gaps, queue, must=must, last_gap=True, small_talk_at=openers)
    filler.add(head)
    statements = [conv.fact(rng.choice(slot.state), {"op": "state", "slot": slot.name, "kind": slot.kind,
                                                     "subject": "user", "value": values[0]}, v=values[0])]
    gap = iter(zip(inner_gaps, breaks))
    for step, value in enumerate(values[1:], 1):
        _later_session(conv, filler, *next(gap), since=statements[-1])
        statements.append(conv.fact(rng.choice(UPDATES[slot.name]), {"op": "update", "slot": slot.name, "kind": slot.kind,
                                                              "subject": "user", "value": value},
                                    v=value, old=values[step - 1]))
    if form == "news":
        _later_session(conv, filler, *next(gap), since=statements[-1])
    own = not twin or twin_kind == "restate"
    restated = twin and twin_kind == "restate"

    def retract() -> int:
        if own:
            return conv.fact(conv.rng.choice(retraction.news if form == "news" else retraction.withdraw),
                             {"op": "retract", "slot": slot.name, "kind": slot.kind, "subject": "user",
                              "value": values[-1], "form": form}, v=values[-1])
        turn = conv.say(conv.rng.choice(retraction.other_news if form == "news" else retraction.other_withdraw),
                        noise=True, who=who_r, v=decoy_value)
        _log_other(conv, turn, slot, who_r, decoy_value)
        conv.events[-1]["retract"] = True
        return turn

    def restate() -> int:
        if restated:
            return conv.fact(conv.rng.choice(retraction.restate), {"op": "update", "slot": slot.name,
                                                                   "kind": slot.kind, "subject": "user",
                                                                   "value": later}, v=later)
        turn = conv.say(conv.rng.choice(retraction.other_restate), noise=True, who=who_s, v=later)
        _log_other(conv, turn, slot, who_s, later)
        return turn

    retract_turn = _apart(conv, seeds[0], retract)
    _later_session(conv, filler, *next(gap), since=retract_turn)
    restate_turn = _apart(conv, seeds[1], restate)
    filler.add(tail)
    # The question is drawn against the statement every variant shares and every re-statement a
    # twin may hold (one draw in every variant, so all ask alike): it shares no word with either.
    question = question_for(rng, slot.question, [conv.turns[statements[-1]].content,
                                                 *(t.format(v=later) for t in retraction.restate)])
    if not twin:
        answer, evidence, stale = ABSTAIN_ANSWER, [retract_turn], values
    elif restated:
        answer, evidence, stale = later, [restate_turn], values
    else:
        answer, evidence, stale = values[-1], [statements[-1]], values[:-1]
    own_values = set(values) | ({later} if restated else set())
    return conv.task(
        category="twin" if twin else "retraction", index=index, question=question, answer=answer,
        aliases=list(value_forms(answer)[1:]) if not (answer == ABSTAIN_ANSWER and not twin) else [],
        slot=slot.name, evidence=evidence, stale=list(stale),
        distractors=noise.distractors_of(conv, slot.kind, own_values), builder_version=VERSION,
        subject="user", question_kind="current", suite=SUITE, abstain=not twin, form=form, twin_kind=twin_kind,
        changes=changes, pair=f"{'retraction' if twin else 'twin'}-{index:04d}",
    )


def _pressure(rng: random.Random, index: int, config: BuildConfig) -> Task:
    """A value first heard in passing (a typed mention) becomes the user's fact in a later
    session; other passing values become someone else's, one after the change and the others
    anywhere, so that "a value heard twice" does not pick the answer."""
    slot = stratified(config, "forget-pressure", index, SLOTS, "slot")
    budget = even_between(rng, min(config.max_noise, 48), config.max_noise)
    free = max(0, budget - 32 - 8)
    shares = split_total(rng, free - free % 2, 2)
    head, middle = 32 + shares[0], 8 + shares[1]
    # The change's relative place is drawn uniformly and the tail follows from it: the head and the
    # middle hold at least 40 turns, and a tail of uniform length would leave the change late.
    place = PLACES[0] + rng.random() * (PLACES[1] - PLACES[0])
    tail = max(4, 2 * round((head + middle) * (1 - place) / place / 2))
    brk = 2 * rng.randint(1, middle // 2 - 2)
    conv = Conversation(rng)
    first, answer = conv.draw(slot.kind), conv.draw(slot.kind)
    mirrors = [conv.draw(slot.kind) for _ in range(MIRRORS)]
    # The passing mentions sit among the head's filler, in a drawn order and places.
    passing = [answer, *mirrors]
    rng.shuffle(passing)
    cuts = sorted(2 * rng.randint(0, head // 2) for _ in passing)
    # Typed mentions beyond the usual queue (the head takes many decoys, and every gap some), as
    # far as the kind's values go: the usual queue may draw 36 of them, a typed mention two.
    extra = max(0, min(EXTRA_MENTIONS, (len(values_of_kind(slot.kind)) - 40) // 2))
    queue = noise.decoy_queue(conv, slot, facts=UPDATES[slot.name]) + [_typed_statement(slot) for _ in range(extra)]
    queue = [_someone_with(slot, value) for value in mirrors[1:]] + queue
    rng.shuffle(queue)
    queue = _with_retractions(conv, slot, queue, [head, middle, tail])
    # One or two decoys in the later session, in the last pairs before the change (a session that
    # opened in between would leave the change the first value of it), served first; many in the
    # head (the passing mentions are not the first values of their kind more often than chance).
    opener = head // 2 + brk // 2
    change = (head + middle) // 2
    # The tail's decoys are a must range of their own too (the filler's default would give the
    # tail up to all of them and starve the head).
    in_head = rng.randint(8, 12)
    # As dense after the change as in the head: the change is not where the decoys thin out.
    after = max(2, round(in_head * tail / head))
    must = [(range(max(opener + 1, change - 4), change), rng.randint(1, 2)), (range(head // 2), in_head),
            (range(change, change + tail // 2 - 1), after)]
    filler = noise.Filler(conv, [head, middle, tail], queue, must=must, small_talk_at={opener})
    done = 0
    for cut, value in zip(cuts, passing):
        filler.add(cut - done)
        _in_passing(conv, slot, value)
        done = cut
    filler.add(head - done)
    stated = conv.fact(rng.choice(slot.state), {"op": "state", "slot": slot.name, "kind": slot.kind,
                                                "subject": "user", "value": first}, v=first)
    _later_session(conv, filler, middle, brk, since=stated)
    evidence = conv.fact(rng.choice(UPDATES[slot.name]), {"op": "update", "slot": slot.name, "kind": slot.kind,
                                                  "subject": "user", "value": answer}, v=answer, old=first)
    mirror_at = even_between(rng, 0, tail - 2)
    filler.add(mirror_at)
    _someone_with(slot, mirrors[0])(conv)
    filler.add(tail - mirror_at)
    return conv.task(
        category="pressure", index=index, question=question_for(rng, slot.question, [conv.turns[evidence].content]),
        answer=answer, aliases=list(value_forms(answer)[1:]), slot=slot.name, evidence=[evidence], stale=[first],
        distractors=noise.distractors_of(conv, slot.kind, {first, answer}), builder_version=VERSION,
        subject="user", question_kind="current", suite=SUITE, abstain=False, passing=early_turns(conv, answer),
    )


def _typed_statement(slot: Slot) -> noise.Decoy:
    """A typed mention that is a statement: its templates come again with other values, where a
    question's line (which names no value) would repeat word for word. It leaves the templates
    unmarked, so the queue's own typed mentions still find theirs unused."""
    statements = [m[0] for m in noise.MENTIONS[slot.kind] if m[1] is None]

    def make(conv: Conversation) -> None:
        user = conv.rng.choice([m for m in statements if (m, None) not in conv.used] or statements)
        values = {key: conv.draw(slot.kind) for key in ("a", "b") if "{" + key + "}" in user}
        turn = conv.say(user, noise=True, **values)
        for value in values.values():
            conv.log(turn, {"op": "mention", "kind": slot.kind, "value": value})

    return make


def _someone_with(slot: Slot, value: str) -> noise.Decoy:
    """Someone else's statement of the slot with a given value (a passing value become theirs)."""

    def make(conv: Conversation) -> None:
        who = noise.other_person(conv, slot)
        turn = conv.say(conv.fresh(slot.other), noise=True, who=who, v=value)
        _log_other(conv, turn, slot, who, value)

    return make


def _in_passing(conv: Conversation, slot: Slot, value: str) -> None:
    """A typed mention whose value is `value`: heard in passing, meaning nothing yet."""
    # A statement naming one value, marked used so that the task's typed mentions never repeat it.
    # The longer half of them: a passing mention is not the shortest line naming a value.
    lines = sorted((m for m in noise.MENTIONS[slot.kind] if m[1] is None and "{b}" not in m[0]), key=lambda m: len(m[0]))
    user, _ = conv.fresh(lines[len(lines) // 2:])
    turn = conv.say(user, noise=True, a=value)
    conv.log(turn, {"op": "mention", "kind": slot.kind, "value": value})


def early_turns(conv: Conversation, value: str) -> list[int]:
    """Turns of the passing mentions of `value` (the forgetting-pressure evidence a bench can look at)."""
    return [e["turn"] for e in conv.events if e["op"] == "mention" and e.get("value") == value]
