"""value_forms: every accepted surface form of a vocabulary value, none an everyday English word,
none shared by two values (the scorer could not tell them apart)."""

from __future__ import annotations

from collections import defaultdict

import pytest

from memory_arena.tasks import vocab
from memory_arena.tasks.forms import (CAR_NAMES, CITY_NAMES, COMMON_WORDS, cardinal_word, ordinal_word, value_forms,
                                      value_kind, values_of_kind)
from memory_arena.verifier.scoring import normalize

ALL_VALUES = [v for kind in vocab.KINDS for v in values_of_kind(kind)]


@pytest.mark.parametrize("value, expected", [
    ("Northwind Labs", {"Northwind"}),
    ("Mazda MX-5", {"MX-5", "MX5", "Mazda MX5", "Mazda Miata", "Miata"}),
    ("Toyota RAV4", {"RAV4", "RAV 4"}),
    ("Volkswagen Golf", {"VW Golf"}),
    ("June 15", {"15 June", "June 15th", "15th of June"}),
    ("19th", {"19th floor", "nineteenth floor", "floor 19", "floor nineteen", "nineteenth"}),
    ("2nd", {"2nd floor", "second floor", "floor 2", "floor two"}),
    ("Bangalore", {"Bengaluru"}), ("Saigon", {"Ho Chi Minh City"}), ("Kolkata", {"Calcutta"}),
    ("Mysore", {"Mysuru"}), ("Kochi", {"Cochin"}), ("Cusco", {"Cuzco"}), ("Chennai", {"Madras"}),
    ("Quebec", {"Quebec City"}),
])
def test_forms_named_in_the_design(value, expected):
    forms = value_forms(value)
    assert forms[0] == value
    assert expected <= set(forms), set(forms)


@pytest.mark.parametrize("value, excluded", [
    ("2nd", "second"), ("3rd", "third"), ("Nissan Leaf", "Leaf"), ("Volkswagen Golf", "Golf"), ("Honda Jazz", "Jazz"),
    ("Ford Focus", "Focus"), ("Beacon Learning", "Beacon"), ("Peugeot 208", "208"),
])
def test_no_everyday_word_and_no_bare_model_number(value, excluded):
    assert excluded not in value_forms(value)


def test_every_form_of_every_value():
    for value in ALL_VALUES:
        forms = value_forms(value)
        assert forms[0] == value and len(set(forms)) == len(forms), forms
        for form in forms[1:]:
            assert form.casefold() not in COMMON_WORDS, (value, form)
            assert normalize(form), (value, form)


def test_no_two_values_share_a_form():
    owners = defaultdict(set)
    for value in ALL_VALUES:
        for form in value_forms(value):
            owners[normalize(form)].add(value)
    shared = {form: values for form, values in owners.items() if len(values) > 1}
    assert shared == {}


def test_other_names_are_not_values_themselves():
    values = {normalize(v) for v in ALL_VALUES}
    for table in (CITY_NAMES, CAR_NAMES):
        for value, names in table.items():
            assert value_kind(value) is not None, value  # an entry for a value the vocabulary has
            assert not values & {normalize(n) for n in names}, value


def test_values_outside_the_vocabulary_have_only_themselves():
    assert value_forms("Paris") == ("Paris",)
    assert value_forms("") == ("",)
    assert value_kind("Paris") is None and value_kind(None) is None


def test_kinds_and_number_words():
    assert [value_kind(v) for v in ("Lyon", "Ahmed", "Biscuit", "Northwind Labs", "Mazda MX-5", "May 5", "19th", "892")] \
        == ["city", "person", "pet", "company", "car", "date", "floor", "number"]
    assert [cardinal_word(n) for n in (1, 19, 20, 27)] == ["one", "nineteen", "twenty", "twenty-seven"]
    assert [ordinal_word(n) for n in (2, 19, 20, 27)] == ["second", "nineteenth", "twentieth", "twenty-seventh"]
    assert all(w == w.lower() and " " not in w for w in COMMON_WORDS)
