"""temporal: a value tracked across the seven days of a week, one session per day.

Monday sets it; later days change it, say it did not change, or do not mention it at all.
Questions ask the current value or the value on a named day: the value in effect that day
is the last one set on or before it, so days without a change must be carried forward.
For as-of-day questions, `meta.stale` holds every other value the slot took that week: each
was true at some time, just not on the day asked.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from . import noise
from .common import DAY_MS, HOUR_MS, BuildConfig, Conversation, split_total, value_aliases
from .schema import Task
from .slots import Slot
from .vocab import WEEKDAYS

NAME = "temporal"
VERSION = 1


@dataclass(frozen=True)
class DailySlot:
    slot: Slot
    """State templates (Monday), change templates (`update`), current-value questions, near-distractors."""
    as_of: tuple[str, ...]
    """Questions about a given `{day}`."""
    unchanged: tuple[str, ...]
    """A day's remark that the value stayed the same (names no value)."""


DAILY = (
    DailySlot(
        Slot("work_city", "city", "where I am", bare_updates=0,
             state=("This week I'm travelling for work. Today I'm in {v}.", "Kicking off the work trip in {v} today."),
             update=("Landed in {v} this morning.", "Today's stop on the trip is {v}.", "I'm spending today in {v}.",
                     "Took the early train, I'm in {v} now."),
             question=("Which city am I in right now?", "Where am I at the moment? Just the city."),
             other=("{who} is in {v} today.", "{who} flew to {v} this morning.")),
        as_of=("Which city was I in on {day}?", "Where was I on {day}? Just the city."),
        unchanged=("No travel today, I stayed put.", "Same city as yesterday, no train today."),
    ),
    DailySlot(
        Slot("desk", "number", "my desk", bare_updates=0,
             state=("We hot-desk this week. I'm at desk {v} today.", "Grabbed desk {v} this morning."),
             update=("I'm at desk {v} today.", "Moved over to desk {v} this morning.", "Today I'm sitting at desk {v}."),
             question=("Which desk am I sitting at now?", "What's my desk number at the moment?"),
             other=("{who} is at desk {v} today.", "{who} grabbed desk {v}."), phrase="desk {v}"),
        as_of=("Which desk was I at on {day}?", "What was my desk number on {day}?"),
        unchanged=("Kept the same desk as yesterday.", "Didn't switch desks today."),
    ),
    DailySlot(
        Slot("on_call", "person", "on call", bare_updates=0,
             state=("This week's on-call rotation starts with {v} today.", "{v} is on call today."),
             update=("{v} is on call today.", "The on-call phone went to {v} this morning.", "Handover done: {v} has the pager now."),
             question=("Who is on call right now?", "Who has the on-call pager at the moment?"),
             other=("{who}'s team has {v} on call today.", "Over in {who}'s team, {v} holds the pager."), phrase="{v}"),
        as_of=("Who was on call on {day}?", "Who had the on-call pager on {day}?"),
        unchanged=("On-call didn't change today.", "No handover today, same person on call."),
    ),
)


def build(rng: random.Random, index: int, config: BuildConfig) -> Task:
    daily = rng.choice(DAILY)
    slot = daily.slot
    conv = Conversation(rng, session_gap=None)  # sessions are the days
    # Which days change the value: Monday always, then at least two more.
    change_days = [0] + sorted(rng.sample(range(1, 7), rng.randint(2, 4)))
    values = [conv.draw(slot.kind) for _ in change_days]
    total = max(14, config.max_noise - config.max_noise % 2)
    per_day = split_total(rng, even_between_days(rng, total), 7)
    filler = noise.Filler(conv, sum(per_day), noise.distractor_queue(conv, slot, rng.randint(1, 3), rng.randint(3, 5)))
    day_start = conv.clock - 9 * HOUR_MS  # midnight of Monday
    set_turn: dict[int, int] = {}
    in_effect: list[str] = []
    current = None
    for day in range(7):
        if day:
            conv.start_session(at_ms=day_start + day * DAY_MS + rng.randint(7, 10) * HOUR_MS)
        # Space the day's turns so that even a long day (max_noise 1000) ends before midnight:
        # the session's weekday is what as-of-day questions name.
        span = 12 * HOUR_MS // (per_day[day] + 4)
        conv.turn_gap = (min(15_000, span // 2), min(150_000, span))
        before, after = split_total(rng, per_day[day], 2)
        filler.add(before)
        if day in change_days:
            current = values[change_days.index(day)]
            templates = slot.state if day == 0 else slot.update
            set_turn[day] = conv.fact(rng.choice(templates).format(v=current),
                                      {"op": "set", "slot": slot.name, "kind": slot.kind, "subject": "user", "value": current, "day": day})
        elif rng.random() < 0.5:
            conv.pair(rng.choice(daily.unchanged), rng.choice(noise.GENERIC_REPLIES), noise=True)
        filler.add(after)
        in_effect.append(current)
    if rng.random() < 0.4:
        kind, day = "current", 6
        question = rng.choice(slot.question)
    else:
        kind, day = "as_of_day", rng.randrange(6)
        question = rng.choice(daily.as_of).format(day=WEEKDAYS[day])
    answer = in_effect[day]
    evidence_day = max(d for d in set_turn if d <= day)
    return conv.task(
        category=NAME, index=index, question=question, answer=answer, aliases=value_aliases(slot.kind, answer),
        slot=slot.name, evidence=[set_turn[evidence_day]], stale=[v for v in values if v != answer],
        distractors=noise.distractors_of(conv, slot.kind, set(values)), builder_version=VERSION,
        subject="user", question_kind=kind, as_of_day=WEEKDAYS[day] if kind == "as_of_day" else None,
    )


def even_between_days(rng: random.Random, total: int) -> int:
    """Total filler for the week: between 14 and `total` turns, even."""
    return 2 * rng.randint(7, total // 2)
