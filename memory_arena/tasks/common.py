"""Machinery every category builder shares: per-task seeding, the synthetic clock, and a
`Conversation` that appends turns, logs events and assembles the final `Task`.

Nothing here touches the global `random`: every draw goes through the `rng` a builder is given.
"""

from __future__ import annotations

import hashlib
import re
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

    def _maybe_break_session(self) -> None:
        # Long conversations span several sessions, so an Add/Search ingest sees realistic boundaries.
        if self._next_break is not None and len(self.turns) >= self._next_break:
            self.start_session()
            self._next_break = len(self.turns) + self.rng.randint(*self._session_gap)

    # -- turns --------------------------------------------------------------------------
    def pair(self, user: str, assistant: str, *, noise: bool) -> int:
        """Append a user turn and the assistant's reply; returns the user turn's index."""
        if len(self.turns) % 2 == 0:
            self._maybe_break_session()
        index = len(self.turns)
        for role, content in (("user", user), ("assistant", assistant)):
            self.clock += self.rng.randint(*self.turn_gap)
            self.turns.append(Turn(role, content, self.clock, self.session))
        if noise:
            self.noise_turns += 2
        return index

    def fact(self, user: str, event: dict[str, Any], assistant: str | None = None) -> int:
        """A user turn that states something the task is about, logged in `events`."""
        index = self.pair(user, assistant if assistant is not None else self.rng.choice(ACKS), noise=False)
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
    """Whether `value` occurs in `text` as whole words, ignoring case."""
    return re.search(r"(?<!\w)" + re.escape(value.casefold()) + r"(?!\w)", text.casefold()) is not None


def value_aliases(kind: str, value: str) -> list[str]:
    return KINDS[kind].aliases(value)
