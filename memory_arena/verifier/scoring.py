"""Score a reply against a task, deterministically (SPEC §6). No LLM judge.

A reply is correct when, after answer extraction and normalisation, it
1. equals the answer or one of its aliases (`exact`), or contains one as a whole-word span
   while having at most WORD_LIMIT words (`contained`; longer: `too_long`), and
2. names no superseded value (`meta.stale`) and no distractor (`meta.distractors`) of the task:
   a reply that hedges between the old and the new value is wrong (`hedged`).
Otherwise it is `missing` (the answer is not there) or `empty`.

Extraction drops reasoning blocks (`<think>...</think>`) and prefers the text after the last
`Answer:` marker. Normalisation: Unicode NFKC, casefold, apostrophes joined, other punctuation
and the articles a/an/the removed, whitespace collapsed, thousands separators dropped,
ordinals unified ("12th", "twelfth" -> "12"), and dates unified ("15 June", "the 15th of June",
"Jun 15" -> "june 15"). `score` never raises: whatever it is given, it returns a `Score`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable

WORD_LIMIT = 30
"""A reply that contains the answer but has more words than this is `too_long`. Instruct models
answer in a sentence even when told not to ("My apartment is on the 12th floor."), so the
limit admits a sentence or two; it exists so that pasting back the conversation cannot win."""

REASONS = ("exact", "contained", "hedged", "too_long", "missing", "empty")


@dataclass(frozen=True)
class Score:
    """The verdict on one reply."""

    value: float
    """1.0 if correct, else 0.0."""
    reason: str
    """One of REASONS."""
    stale: bool = False
    """Whether the reply names a superseded value (feeds the stale rate), correct or not."""


# ---------------------------------------------------------------------------------------------
# Answer extraction
_THINK_BLOCK = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL | re.IGNORECASE)
_THINK_TAIL = re.compile(r"\A.*</think>", re.DOTALL | re.IGNORECASE)  # a closing tag whose opening was in the prompt
_ANSWER_MARKER = re.compile(r"(?:final\s+)?answer\s*[:：]", re.IGNORECASE)


def extract_answer(reply: str) -> str:
    """The part of a reply that counts: reasoning removed, text after the last `Answer:` if any."""
    text = _THINK_TAIL.sub("", _THINK_BLOCK.sub("", reply)) if "think>" in reply.lower() else reply
    markers = list(_ANSWER_MARKER.finditer(text)) if ":" in text or "：" in text else ()
    if markers:
        text = text[markers[-1].end():]
    return text.strip()


# ---------------------------------------------------------------------------------------------
# Normalisation
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_MONTH_ABBREVIATIONS = {m[:3]: m for m in _MONTHS if m != "may"} | {"sept": "september"}
_UNITS = ("", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth")
_TEENS = ("tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth",
          "eighteenth", "nineteenth")
_TENS = {2: ("twentieth", "twenty"), 3: ("thirtieth", "thirty"), 4: ("fortieth", "forty"), 5: ("fiftieth", "fifty"),
         6: ("sixtieth", "sixty"), 7: ("seventieth", "seventy"), 8: ("eightieth", "eighty"), 9: ("ninetieth", "ninety")}


def _ordinal_words() -> dict[str, int]:
    words = {w: n for n, w in enumerate(_UNITS) if w} | {w: 10 + n for n, w in enumerate(_TEENS)}
    for tens, (exact, prefix) in _TENS.items():
        words[exact] = tens * 10
        for unit in range(1, 10):
            words[f"{prefix} {_UNITS[unit]}"] = tens * 10 + unit  # hyphens are spaces by then
    return words


_ORDINAL_WORDS = _ordinal_words()
_TENS_PREFIXES = {prefix for _, prefix in _TENS.values()}
_ARTICLES = frozenset(("a", "an", "the"))
_MONTH_SET = frozenset(_MONTHS)
# ASCII punctuation: apostrophes vanish ("dog's" -> "dogs"), everything else becomes a space.
_ASCII_TABLE = str.maketrans({c: (None if c in "'`" else " ") for c in "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"})
_APOSTROPHES = re.compile(r"[’‘ʼ]")
_NON_WORD = re.compile(r"[^\w\s]|_")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")


_NUMBER_WORDS = frozenset(_ORDINAL_WORDS) | _TENS_PREFIXES | frozenset(_MONTH_ABBREVIATIONS)
_DIGIT_ORDINAL = re.compile(r"\d(?:st|nd|rd|th)\b")


def normalize(text: str) -> str:
    """Canonical form used on both sides of every comparison. Token passes run only when a
    token needs them: the scorer's throughput target is 50,000 replies/s."""
    if not text.isascii():
        text = _NON_WORD.sub(" ", _APOSTROPHES.sub("", unicodedata.normalize("NFKC", text)))
    text = text.casefold()
    if "," in text:
        text = _THOUSANDS.sub("", text)
    tokens = [t for t in text.translate(_ASCII_TABLE).split() if t not in _ARTICLES]
    if not _NUMBER_WORDS.isdisjoint(tokens) or _DIGIT_ORDINAL.search(text):
        tokens = _numbers(tokens)
    if not _MONTH_SET.isdisjoint(tokens):
        tokens = _dates_month_first(tokens)
    return " ".join(tokens)


def _numbers(tokens: list[str]) -> list[str]:
    """Ordinals to digits ("twenty third", "23rd" -> "23"); "jun 15" -> "june 15"."""
    out: list[str] = []
    i, n = 0, len(tokens)
    while i < n:
        token = tokens[i]
        i += 1
        if token in _TENS_PREFIXES and i < n and tokens[i] in _ORDINAL_WORDS and _ORDINAL_WORDS[tokens[i]] < 10:
            out.append(str(_ORDINAL_WORDS[f"{token} {tokens[i]}"]))
            i += 1
        elif token in _ORDINAL_WORDS:
            out.append(str(_ORDINAL_WORDS[token]))
        elif token[-2:] in ("st", "nd", "rd", "th") and token[:-2].isdigit():
            out.append(token[:-2])
        elif token in _MONTH_ABBREVIATIONS and i < n and tokens[i][:1].isdigit():
            out.append(_MONTH_ABBREVIATIONS[token])
        else:
            out.append(token)
    return out


def _dates_month_first(tokens: list[str]) -> list[str]:
    """'15 june' and '15 of june' -> 'june 15'."""
    if _MONTH_SET.isdisjoint(tokens):
        return tokens
    out: list[str] = []
    i, n = 0, len(tokens)
    while i < n:
        token = tokens[i]
        # A day right after a month belongs to it ("june 15 may 15" is two dates, not "15 may").
        if token.isdigit() and len(token) <= 2 and not (out and out[-1] in _MONTH_SET):
            step = 2 if i + 2 < n and tokens[i + 1] == "of" and tokens[i + 2] in _MONTH_SET else 1
            if i + step < n and tokens[i + step] in _MONTH_SET:
                out += [tokens[i + step], token]
                i += step + 1
                continue
        out.append(token)
        i += 1
    return out


# ---------------------------------------------------------------------------------------------
# Scoring
@dataclass(frozen=True)
class _Targets:
    answers: tuple[str, ...]
    stale: re.Pattern[str] | None
    distractors: re.Pattern[str] | None


def _any_of(forms: Iterable[str]) -> re.Pattern[str] | None:
    """One regex finding any of `forms` as whole words in a space-padded normalised text."""
    forms = sorted(set(forms), key=len, reverse=True)
    return re.compile("(?<= )(?:" + "|".join(map(re.escape, forms)) + ")(?= )") if forms else None


@lru_cache(maxsize=4096)
def _targets(answers: tuple[str, ...], stale: tuple[str, ...], distractors: tuple[str, ...]) -> _Targets:
    def forms(values: Iterable[str]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(f for f in map(normalize, values) if f))

    answer_forms = forms(answers)
    # A stale value or distractor that is spelled like an answer form cannot count against it.
    return _Targets(answer_forms, _any_of(f for f in forms(stale) if f not in answer_forms),
                    _any_of(f for f in forms(distractors) if f not in answer_forms))


def score_reply(reply: Any, answer: str, aliases: Iterable[str] = (), stale: Iterable[str] = (),
                distractors: Iterable[str] = ()) -> Score:
    """Score `reply` against an answer given field by field (see the module docstring)."""
    text = _as_text(reply)
    targets = _targets((answer, *aliases), tuple(stale), tuple(distractors))
    normalized = normalize(extract_answer(text))
    if not normalized:
        return Score(0.0, "empty")
    padded = f" {normalized} "
    found = [form for form in targets.answers if f" {form} " in padded]
    # Mask the answer's own spans so that a stale value written inside it cannot count as a hedge.
    masked = padded
    for form in sorted(found, key=len, reverse=True):
        masked = masked.replace(f" {form} ", " \x00 ")
    names_stale = targets.stale is not None and targets.stale.search(masked) is not None
    if not found:
        return Score(0.0, "missing", names_stale)
    if names_stale or (targets.distractors is not None and targets.distractors.search(masked) is not None):
        return Score(0.0, "hedged", names_stale)
    if normalized in targets.answers:
        return Score(1.0, "exact")
    if normalized.count(" ") + 1 > WORD_LIMIT:
        return Score(0.0, "too_long")
    return Score(1.0, "contained")


def score(task: Any, reply: Any) -> Score:
    """Score `reply` against `task` (a `Task` or its JSON row as a dict). Never raises: a task
    that cannot be read scores 0.0 with reason `missing`."""
    try:
        if isinstance(task, dict):
            answer, aliases, meta = task["answer"], task.get("aliases", ()), task.get("meta", {})
        else:
            answer, aliases, meta = task.answer, task.aliases, task.meta
        return score_reply(reply, answer, tuple(aliases), tuple(meta.get("stale", ())),
                           tuple(meta.get("distractors", ())))
    except Exception:  # noqa: BLE001 - the contract is "never raises"; a malformed task is a miss
        return Score(0.0, "missing")


def _as_text(reply: Any) -> str:
    """Replies arrive as str, bytes, None, or a chat message / list of messages."""
    if reply is None:
        return ""
    if isinstance(reply, str):
        return reply
    if isinstance(reply, bytes):
        return reply.decode("utf-8", errors="replace")
    if isinstance(reply, dict):
        return _as_text(reply.get("content"))
    if isinstance(reply, (list, tuple)):
        # A completion as a list of messages: the last assistant message is the reply.
        for message in reversed(reply):
            if isinstance(message, dict) and message.get("role", "assistant") == "assistant":
                return _as_text(message.get("content"))
            if isinstance(message, str):
                return message
        return ""
    return str(reply)
