"""Machinery every category builder shares: per-task seeding, the synthetic clock, and a
`Conversation` that appends turns, logs events and assembles the final `Task`.

Nothing here touches the global `random`: every draw goes through the `rng` a builder is given.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from typing import Any

from .schema import Task, Turn
from .slots import ACKS
from .vocab import KINDS

GENERATOR_VERSION = "1.0.0"

# Monday 2025-01-06 00:00 UTC in ms: temporal tasks name weekdays, so every task's clock starts
# on a Monday (plus a whole number of weeks).
EPOCH_MS = 1_736_121_600_000
DAY_MS = 86_400_000
HOUR_MS = 3_600_000


@dataclass(frozen=True)
class BuildConfig:
    """Options shared by all builders; validated at construction."""

    max_noise: int = 100
    """Upper bound on filler turns per task; above 100 recall gains a fourth depth bucket."""

    def __post_init__(self) -> None:
        if not isinstance(self.max_noise, int) or isinstance(self.max_noise, bool) or self.max_noise < 10:
            raise ValueError(f"max_noise must be an integer of at least 10, got {self.max_noise!r}")


def task_rng(seed: int, category: str, index: int) -> random.Random:
    """An independent RNG per task: a hash of (seed, category, index), so any task can be
    rebuilt alone and `--n 50` is a prefix of `--n 100`. Hashing (not seed + index) avoids
    the collisions of additive schemes across categories and seeds."""
    digest = hashlib.sha256(f"memory-arena:{seed}:{category}:{index}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def pick(rng: random.Random, options):
    """`rng.choice` for the hot paths: one C-level draw instead of rejection sampling in Python."""
    return options[int(rng.random() * len(options))]


def even_between(rng: random.Random, low: int, high: int) -> int:
    """An even number in [low, high] (turns come in user/assistant pairs)."""
    low += low % 2
    high -= high % 2
    return rng.randrange(low, high + 1, 2) if high >= low else low


def split_total(rng: random.Random, total: int, parts: int) -> list[int]:
    """Split an even `total` of turns into `parts` even gaps (some may be zero)."""
    pairs = total // 2
    cuts = sorted(rng.randint(0, pairs) for _ in range(parts - 1))
    bounds = [0, *cuts, pairs]
    return [2 * (b - a) for a, b in zip(bounds, bounds[1:])]


class Conversation:
    """Turns under construction, with the event log and the values already used.

    Turns alternate user/assistant and always end with the assistant, so that appending the
    question as a user message keeps strict alternation (some chat templates require it).
    """

    def __init__(self, rng: random.Random, session_gap: tuple[int, int] | None = (30, 70)):
        self.rng = rng
        self.turns: list[Turn] = []
        self.events: list[dict[str, Any]] = []
        self.taken: set[str] = set()  # every value drawn, of any kind: no value means two things
        self.noise_turns = 0
        self.session = 0
        self.clock = EPOCH_MS + rng.randrange(104) * 7 * DAY_MS + 9 * HOUR_MS
        self._session_gap = session_gap
        self._next_break = rng.randint(*session_gap) if session_gap else None
        self.turn_gap = (15_000, 150_000)  # ms between two turns; a builder may narrow it

    # -- values -------------------------------------------------------------------------
    def draw(self, kind: str) -> str:
        return KINDS[kind].draw(self.rng, self.taken)

    # -- time and sessions --------------------------------------------------------------
    def start_session(self, at_ms: int | None = None) -> None:
        """Begin a new session at `at_ms` (a minute after the last turn if that has passed),
        or, with no time given, a few hours to a day after the last turn."""
        self.session += 1
        if at_ms is not None:
            self.clock = max(at_ms, self.clock + 60_000)
        else:
            self.clock += self.rng.randint(2 * HOUR_MS, 30 * HOUR_MS)

    def _break_session(self) -> None:
        # Long conversations span several sessions, so an Add/Search ingest sees realistic boundaries.
        self.start_session()
        self._next_break = len(self.turns) + self.rng.randint(*self._session_gap)

    # -- turns --------------------------------------------------------------------------
    def pair(self, user: str, assistant: str, *, noise: bool) -> int:
        """Append a user turn and the assistant's reply; returns the user turn's index.
        (Written flat: long-horizon sets call it millions of times.)"""
        turns = self.turns
        if self._next_break is not None and len(turns) >= self._next_break:
            self._break_session()
        index = len(turns)
        low, high = self.turn_gap
        draw = self.rng.random
        asked = self.clock + low + int(draw() * (high - low + 1))
        answered = asked + low + int(draw() * (high - low + 1))
        turns.append(Turn("user", user, asked, self.session))
        turns.append(Turn("assistant", assistant, answered, self.session))
        self.clock = answered
        if noise:
            self.noise_turns += 2
        return index

    def fact(self, user: str, event: dict[str, Any], assistant: str | None = None) -> int:
        """A user turn that states something the task is about, logged in `events`."""
        index = self.pair(user, assistant if assistant is not None else pick(self.rng, ACKS), noise=False)
        self.events.append({"turn": index, **event})
        return index

    def log(self, turn: int, event: dict[str, Any]) -> None:
        self.events.append({"turn": turn, **event})

    # -- assembly -----------------------------------------------------------------------
    def task(self, *, category: str, index: int, question: str, answer: str, aliases: list[str],
             slot: str, evidence: list[int], stale: list[str], distractors: list[str],
             builder_version: int, **extras: Any) -> Task:
        evidence = sorted(evidence)
        meta: dict[str, Any] = {
            "slot": slot,
            "evidence": evidence,
            "stale": stale,
            # A value named in the question (the subject of a relational question) is not a distractor.
            "distractors": [d for d in distractors if not mentions(question, d)],
            "depth": len(self.turns) - 1 - evidence[-1],
            **extras,
            "events": self.events,
            "generator_version": GENERATOR_VERSION,
            "builder_version": builder_version,
        }
        return Task(id=f"{category}-{index:04d}", category=category, noise_turns=self.noise_turns,
                    turns=tuple(self.turns), question=question, answer=answer, aliases=tuple(aliases), meta=meta)


def mentions(text: str, value: str) -> bool:
    """Whether `value` occurs in `text` as whole words, ignoring case (the boundary test means
    what `\\w` means in `re`, without compiling a pattern per value)."""
    text, value = text.casefold(), value.casefold()
    start = text.find(value)
    while start != -1:
        end = start + len(value)
        if not (start and _word_char(text[start - 1])) and not (end < len(text) and _word_char(text[end])):
            return True
        start = text.find(value, start + 1)
    return False


def _word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def value_aliases(kind: str, value: str) -> list[str]:
    return KINDS[kind].aliases(value)
