"""The shared vocabulary: typed value pools are large, duplicate-free and mutually disjoint, and
no value hides in the fixed text conversations are made of (filler, templates, replies).

A value that is also another kind's value, or a word of a template, would mean two things in
one conversation: the checker would find a "distractor" that is really filler, and a scorer
could see a stale value where there is none.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import re
from collections import defaultdict

import pytest

import memory_arena.tasks as tasks_pkg
from memory_arena.tasks.forms import value_forms
from memory_arena.tasks.vocab import KINDS, date_aliases, ordinal

# Module-level names that hold the value pools themselves (not conversation text).
POOLS = {"CITIES", "PEOPLE", "PETS", "COMPANIES", "CARS", "DATES", "FLOORS", "PARKING", "MONTH_DAYS", "KINDS"}
# Modules that hold values and their spellings, not conversation text.
VALUE_MODULES = {"forms", "vocab"}


def words(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"\w+", text.casefold()))


def whole_word_in(value: str, text: str) -> bool:
    return re.search(r"(?<!\w)" + re.escape(value.casefold()) + r"(?!\w)", text.casefold()) is not None


def values() -> dict[str, list[str]]:
    return {name: [kind.render(v) for v in kind.pool] for name, kind in KINDS.items()}


def _strings(obj):
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, (tuple, list, set, frozenset)):
        for item in obj:
            yield from _strings(item)
    elif isinstance(obj, dict):
        for key, item in obj.items():
            yield from _strings(key)
            yield from _strings(item)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            yield from _strings(getattr(obj, f.name))


def template_texts() -> set[str]:
    """Every fixed string of every task module (upper-case module constants: small talk,
    replies, slot and correction templates, fillers), placeholders turned into separators.
    Walking all modules means a template added later is covered without editing this test."""
    texts = set()
    for info in pkgutil.iter_modules(tasks_pkg.__path__):
        if info.name in VALUE_MODULES and info.name != "vocab":
            continue
        module = importlib.import_module(f"{tasks_pkg.__name__}.{info.name}")
        for name, obj in vars(module).items():
            if name.isupper() and not name.startswith("_") and name not in POOLS:
                texts.update(re.sub(r"\{\w*\}", " | ", s) for s in _strings(obj))
    return texts


def collisions() -> set[tuple[str, str, str, str]]:
    """(kind, value, other kind, other value) where the value equals or is a whole-word part of
    a value of another kind."""
    pool = values()
    by_word = defaultdict(list)  # word -> (kind, value) of values containing it
    for kind, vs in pool.items():
        for v in vs:
            for w in words(v):
                by_word[w].append((kind, v))
    found = set()
    for kind, vs in pool.items():
        for v in vs:
            need = words(v)
            for other_kind, other in by_word[next(iter(need))]:
                if other_kind != kind and need <= words(other) and whole_word_in(v, other):
                    found.add((kind, v, other_kind, other))
    return found


def test_pools_are_large_and_duplicate_free():
    pool = values()
    for kind, vs in pool.items():
        assert len(vs) == len(set(vs)), kind
        assert len({v.casefold() for v in vs}) == len(vs), kind
        assert all(v == v.strip() and v for v in vs), kind
    minimum = {"city": 150, "person": 190, "pet": 100, "company": 80, "car": 50, "date": 365, "floor": 39, "number": 850}
    assert {k: len(v) >= minimum[k] for k, v in pool.items()} == {k: True for k in pool}


def test_no_value_inside_another_kind():
    assert collisions() == set()


def test_no_value_in_template_text():
    texts = [(t, words(t)) for t in template_texts()]
    assert len(texts) > 300  # the walk really found the templates
    found = []
    for kind, vs in values().items():
        for v in vs:
            need = words(v)
            found += [(kind, v, t) for t, have in texts if need <= have and whole_word_in(v, t)]
    assert found == []


def test_template_walk_sees_fillers_and_templates():
    texts = template_texts()
    for sample in ("Scratch that, it's  | .", "Thanks for telling me.", "lentil soup", "Monday",
                   " |  reports to  | ."):
        assert sample in texts, sample


def test_matcher_catches_what_it_must():
    assert whole_word_in("208", "Peugeot 208") and not whole_word_in("20", "Peugeot 208")
    assert whole_word_in("Chiang Mai", "a trip to Chiang Mai.") and not whole_word_in("Mai", "Maine")


@pytest.mark.parametrize("n, text", [(2, "2nd"), (11, "11th"), (12, "12th"), (13, "13th"), (21, "21st"), (22, "22nd"),
                                     (30, "30th"), (33, "33rd"), (40, "40th")])
def test_ordinals(n, text):
    assert ordinal(n) == text


def test_aliases():
    assert date_aliases("June 15") == ["15 June", "June 15th", "15th of June"]
    assert date_aliases("March 1") == ["1 March", "March 1st", "1st of March"]
    for kind in ("person", "pet", "number"):
        assert all(value_forms(KINDS[kind].render(v)) == (KINDS[kind].render(v),) for v in KINDS[kind].pool), kind


# Kinds whose values are words (not numbers, dates or ordinals). Their other forms are shortened
# or other names ("Northwind" for "Northwind Labs", "Bengaluru"), as unambiguous as the values.
WORD_KINDS = ("city", "person", "pet", "company", "car")


def word_aliases() -> list[tuple[str, str, str]]:
    return [(kind, KINDS[kind].render(v), alias) for kind in WORD_KINDS for v in KINDS[kind].pool
            for alias in value_forms(KINDS[kind].render(v))[1:]]


def test_word_aliases_are_unambiguous():
    pool = {kind: values()[kind] for kind in WORD_KINDS}
    found = []
    for kind, value, alias in word_aliases():
        for other_kind, others in pool.items():
            for other in others:
                if other != value and words(alias) & words(other) and (whole_word_in(alias, other) or whole_word_in(other, alias)):
                    found.append((kind, value, alias, other_kind, other))
    assert found == []


def test_word_aliases_not_in_template_text():
    texts = [(t, words(t)) for t in template_texts()]
    found = [(kind, value, alias, t) for kind, value, alias in word_aliases()
             for t, have in texts if words(alias) <= have and whole_word_in(alias, t)]
    assert found == []


def test_car_names_are_whole():
    """Regression: two-word models such as "Model 3" were once split into two cars."""
    assert {"Tesla Model", "Tesla 3"}.isdisjoint(values()["car"])
