"""The memory tools at their boundary: whatever a model sends as arguments (any string, any
JSON, numbers past Python's int-string limit, deep nesting, several layers of encoding), the
answer is one text for the model, never an exception; and a value means the same thing on
both verifiers versions (the classic adapter passes raw argument strings, the v1 toolset
arguments its framework already decoded)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from memory_arena.memory_tools import TOOL_NAMES, MemoryStore, parse_arguments


def _call(name, raw):
    return MemoryStore({}).call(name, raw)


def test_a_number_past_the_int_string_limit_is_a_tool_error():
    answer = _call("store_memory", '{"key": "k", "value": ' + "1" * 5000 + "}")
    assert answer.startswith("error: ") and "digits" in answer


def test_a_huge_integer_value_that_arrived_parsed_is_a_tool_error():
    answer = _call("store_memory", {"key": "k", "value": 10 ** 5000})
    assert answer.startswith("error: ") and "value" in answer


def test_deep_nesting_is_a_tool_error():
    for raw in ("[" * 100_000 + "]" * 100_000, '{"key": ' + "[" * 100_000 + "]" * 100_000 + "}"):
        answer = _call("store_memory", raw)
        assert answer.startswith("error: tool arguments"), answer[:200]


def test_triple_encoded_arguments_are_read():
    args = {"key": "city", "value": "Oslo"}
    assert parse_arguments(json.dumps(json.dumps(json.dumps(args)))) == args
    assert _call("store_memory", json.dumps(json.dumps(json.dumps(args)))) == "stored 'city'"


def test_a_json_string_that_is_not_an_object_is_called_what_it_is():
    answer = _call("store_memory", '"just a string"')
    assert answer == "error: tool arguments must be a JSON object, got a string"
    assert _call("store_memory", "7") == "error: tool arguments must be a JSON object, got a number"
    assert _call("store_memory", "[1, 2]") == "error: tool arguments must be a JSON object, got a list"


def test_a_quoted_value_is_stored_without_its_quotes_on_both_paths():
    """0.3 hands the tool the raw argument string, 0.4 the decoded object: the same model
    output `{"key": "city", "value": "\\"Chennai\\""}` must store the same note."""
    raw = json.dumps({"key": "city", "value": json.dumps("Chennai")})
    classic, v1 = MemoryStore({}), MemoryStore({})
    classic.call("store_memory", raw)
    v1.call("store_memory", json.loads(raw))
    assert classic.entries == v1.entries == {"city": "Chennai"}
    # A value that only looks quoted at one end, or quotes inside text, is kept as sent.
    store = MemoryStore({})
    store.call("store_memory", {"key": "q", "value": 'He said "hi"'})
    assert store.entries["q"] == 'He said "hi"'


def test_unknown_arguments_of_any_type_are_named():
    answer = _call("store_memory", {1: "a", "b": 2, None: 3})
    assert answer.startswith("error: unexpected argument(s) 1, None, b for store_memory")


# -- properties ------------------------------------------------------------------------------
_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30)
_json = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4)
                     | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)
# Numbers written out digit by digit, as a model may: past 4300 digits Python refuses to parse
# them (the text stays text here, so hypothesis never has to print such an int).
_long_number = st.integers(min_value=1, max_value=6000).map(lambda d: '{"key": "k", "value": ' + "9" * d + "}")


@settings(max_examples=400, deadline=None)
@given(name=st.sampled_from([*TOOL_NAMES, "other", ""]), raw=st.text(max_size=200))
def test_any_argument_string_gets_a_text_answer(name, raw):
    answer = _call(name, raw)
    assert isinstance(answer, str) and answer


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(TOOL_NAMES), raw=_json.map(json.dumps) | _long_number,
       layers=st.integers(min_value=0, max_value=5), depth=st.integers(min_value=0, max_value=3000))
def test_any_json_at_any_encoding_depth_gets_a_text_answer(name, raw, layers, depth):
    raw = "[" * depth + raw + "]" * depth
    for _ in range(layers):
        raw = json.dumps(raw)
    store = MemoryStore({})
    answer = store.call(name, raw)
    assert isinstance(answer, str) and answer
    assert store.data["calls"] == 1
