"""The environment's shared core and the memory tools, without verifiers: settings checks,
task selection, message building, chunking, eviction, and the tool logic (bounds, closest
keys, double-encoded arguments, never raising)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory_arena.envs import core
from memory_arena.tasks.schema import Task, Turn
from memory_arena.memory_tools import (
    MAX_ENTRIES,
    MAX_KEY_CHARS,
    MAX_LIST_CHARS,
    MAX_VALUE_CHARS,
    TOOL_NAMES,
    MemoryStore,
    parse_arguments,
    tool_schemas,
)

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("kwargs, field", [
    ({"delivery": "batch"}, "delivery"),
    ({"memory_tool": "yes"}, "memory_tool"),
    ({"categories": ["recall", "gossip"]}, "categories"),
    ({"categories": []}, "categories"),
    ({"categories": [3]}, "categories"),
    ({"categories": " , "}, "categories"),
    ({"num_examples": 0}, "num_examples"),
    ({"num_examples": -2}, "num_examples"),
    ({"chunk_turns": 0}, "chunk_turns"),
    ({"window": 0}, "window"),
    ({"seed": -1}, "seed"),
    ({"n": 0}, "n"),
    ({"n": True}, "n"),
])
def test_bad_settings_name_the_field(kwargs, field):
    with pytest.raises(ValueError, match=field):
        core.make_settings(**kwargs)


def test_selection_interleaves_categories_and_cuts(shipped_tasks):
    tasks = core.select_tasks(core.make_settings(num_examples=7))
    assert [t.category for t in tasks] == [*core.CATEGORIES, "recall", "update"]
    assert [t.id for t in tasks[:2]] == ["recall-0000", "update-0000"]
    only = core.select_tasks(core.make_settings(categories="temporal, relational"))
    assert {t.category for t in only} == {"temporal", "relational"} and len(only) == 200
    assert len(core.select_tasks(core.make_settings())) == len(shipped_tasks)


def test_regenerated_tasks_match_the_shipped_prefix(tasks_by_id):
    tasks = core.select_tasks(core.make_settings(seed=42, n=2, categories=["update"]))
    assert [t.to_json() for t in tasks] == [tasks_by_id[f"update-000{i}"].to_json() for i in range(2)]


def test_full_messages_keep_roles_then_question(tasks_by_id):
    task = tasks_by_id["temporal-0000"]
    messages = core.full_messages(task)
    assert [m["role"] for m in messages] == [t.role for t in task.turns] + ["user"]
    assert messages[-1]["content"] == f"Question: {task.question}"
    # Every session starts with a day header, since temporal questions name days.
    headers = [m["content"].split("\n", 1)[0] for m in messages if m["content"].startswith("[Session ")]
    assert headers[:2] == ["[Session 1, Monday]", "[Session 2, Tuesday]"]
    assert len(headers) == len({t.session for t in task.turns})


def test_parts_cover_every_turn_in_order(tasks_by_id):
    task = tasks_by_id["relational-0000"]
    parts = core.chunk_texts(task, 16)
    assert len(parts) == -(-len(task.turns) // 16)
    lines = []
    for i, part in enumerate(parts, 1):
        assert core.part_number("user", part) == (i, len(parts))
        lines.append(part.split("\n", 1)[1])
    joined = "\n".join(lines)
    assert all(t.content in joined for t in task.turns)


def _transcript(parts: int) -> list[dict]:
    messages = [{"role": "system", "content": "instructions"}]
    for i in range(1, parts + 1):
        messages += [
            {"role": "user", "content": core.PART_HEADER.format(index=i, total=parts) + f"\nUser: fact {i}"},
            {"role": "assistant", "content": None, "tool_calls": [{"id": f"c{i}", "name": "store_memory"}]},
            {"role": "tool", "tool_call_id": f"c{i}", "content": f"stored 'part_{i}'"},
            {"role": "assistant", "content": "OK"},
        ]
    return messages


def test_eviction_replaces_old_parts_with_their_replies():
    messages = _transcript(4) + [{"role": "user", "content": "Question: which fact?"}]
    out = core.evict(messages, window=2)
    assert [m["content"] for m in out[:3]] == [
        "instructions", "[Conversation part 1 of 4: removed from view]", "[Conversation part 2 of 4: removed from view]"]
    assert out[3:] == messages[9:]  # parts 3 and 4 with their tool calls, then the question
    assert "fact 1" not in json.dumps(out) and "part_1" not in json.dumps(out)
    assert core.evict(out, window=2) == out  # idempotent: placeholders count as parts
    assert core.evict(messages, window=4) == messages
    assert core.parts_delivered([(m["role"], m["content"]) for m in out]) == 4


def _task(num_turns: int, evidence: list[int]) -> Task:
    turns = tuple(Turn("user" if i % 2 == 0 else "assistant", f"turn {i}", 1_000 * (i + 1), 0) for i in range(num_turns))
    return Task(id="recall-0000", category="recall", noise_turns=num_turns - 1, turns=turns, question="q?",
                answer="a", meta={"evidence": evidence})


def test_evidence_eviction_follows_the_window():
    task = _task(20, [3])  # 5 parts of 4 turns; the evidence is in the first part
    assert not core.evidence_evicted(task, 4, 5)
    assert core.evidence_evicted(task, 4, 4)
    assert not core.evidence_evicted(_task(20, [17]), 4, 1)
    assert core.evidence_evicted(_task(20, [3, 17]), 4, 1)  # every hop must stay in view


def test_default_window_hides_most_evidence(shipped_tasks):
    evicted = [core.evidence_evicted(t, core.DEFAULT_CHUNK_TURNS, core.DEFAULT_WINDOW) for t in shipped_tasks]
    share = sum(evicted) / len(evicted)
    print(f"evidence evicted with the defaults: {sum(evicted)}/{len(evicted)} = {share:.1%}")
    assert share > 0.5


def test_turns_delivered(tasks_by_id):
    task = tasks_by_id["relational-0000"]
    assert core.turns_delivered(task, "full", 8, 0) == len(task.turns)
    assert core.turns_delivered(task, "stream", 8, 2) == 16
    assert core.turns_delivered(task, "stream", 8, 0) == 0


def test_prompts_explain_the_delivery():
    stream_tools = core.system_prompt(core.make_settings(delivery="stream", memory_tool=True, window=3))
    assert "3 most recent" in stream_tools and "store_memory" in stream_tools and "gone for good" in stream_tools
    assert "store_memory" not in core.system_prompt(core.make_settings(delivery="stream"))
    assert core.system_prompt(core.make_settings(system_prompt="Be brief.")) == "Be brief."


ALL_MODES = [dict(), dict(memory_tool=True), dict(delivery="stream"), dict(delivery="stream", memory_tool=True),
             dict(memory_system="grep")]


@pytest.mark.parametrize("kwargs", ALL_MODES, ids=lambda k: ",".join(f"{a}={b}" for a, b in k.items()) or "full")
def test_every_mode_asks_for_a_final_answer_line(kwargs):
    text = core.system_prompt(core.make_settings(**kwargs))
    assert text.endswith(core.ANSWER_FORMAT) and "'Answer: <value>'" in text
    assert "Answer the question with the value only" not in text


@pytest.mark.parametrize("delivery", ["full", "stream"])
def test_tool_prompts_lead_with_the_memory_duty(delivery):
    """The memory duty (what to store, when, overwrite on change) opens the instructions, the
    tools are named as the only way to keep what leaves the view, and only then comes how to
    acknowledge (a small model follows the first instruction it reads: issue #16)."""
    text = core.system_prompt(core.make_settings(delivery=delivery, memory_tool=True))
    first_sentence = text.split(". ")[0]
    assert "store_memory" in first_sentence and "memory" in first_sentence
    duty = text.index("call store_memory")
    assert duty < text.index("same key") < text.index("only way to keep")
    if delivery == "stream":
        assert duty < text.index("acknowledgement") and text.index("first store") < text.index("acknowledgement")
    no_tools = core.system_prompt(core.make_settings(delivery=delivery))
    assert no_tools.startswith(("You will see a conversation", "A conversation between"))


def test_streamed_parts_carry_one_reminder_line_only_with_tools(tasks_by_id):
    task = tasks_by_id["update-0000"]
    with_tools = core.stream_parts(task, core.make_settings(delivery="stream", memory_tool=True))
    without = core.stream_parts(task, core.make_settings(delivery="stream"))
    assert without == core.chunk_texts(task, core.DEFAULT_CHUNK_TURNS)
    assert len(with_tools) == len(without)
    for plain, reminded in zip(without, with_tools):
        assert reminded == plain + "\n" + core.PART_REMINDER
        assert core.part_number("user", reminded) == core.part_number("user", plain)
    assert "store_memory" in core.PART_REMINDER and "\n" not in core.PART_REMINDER and len(core.PART_REMINDER) < 100


def test_label_metrics_one_hot(tasks_by_id):
    labels = core.label_metrics(tasks_by_id["update-0000"], "hedged")
    assert set(labels) == set(core.label_metric_names())
    assert {k for k, v in labels.items() if v == 1.0} == {"category_update", "reason_hedged"}


# --- memory tools ----------------------------------------------------------------------

def test_store_retrieve_list_and_overwrite():
    data: dict = {}
    store = MemoryStore(data)
    assert store.call("list_memories", {}) == "the memory is empty"
    assert store.call("store_memory", {"key": "city", "value": "Pune"}) == "stored 'city'"
    assert store.call("store_memory", '{"key": "city", "value": "Chennai"}') == "updated 'city'"
    assert store.call("retrieve_memory", {"key": "city"}) == "Chennai"
    store.call("store_memory", {"key": "dog", "value": "Max"})
    assert store.call("list_memories", None) == "city: Chennai\ndog: Max"
    assert data["calls"] == 6 and data["entries"] == {"city": "Chennai", "dog": "Max"}


def test_not_found_lists_the_closest_keys():
    store = MemoryStore({})
    for key in ("user_city", "user_car", "sister_dog", "pet"):
        store.store(key, "x")
    answer = store.retrieve("users_city")
    assert answer.startswith("error: no memory under 'users_city'; closest keys: user_city")
    assert MemoryStore({}).retrieve("a") == "error: no memory under 'a'; the memory is empty"


def test_sizes_are_bounded_with_tool_errors():
    store = MemoryStore({})
    assert store.store("k" * (MAX_KEY_CHARS + 1), "v").startswith("error: key is")
    assert store.store("k", "v" * (MAX_VALUE_CHARS + 1)).startswith("error: value is")
    assert store.store("  ", "v").startswith("error:")
    for i in range(MAX_ENTRIES):
        assert not store.store(f"k{i}", "v").startswith("error")
    assert store.store("one-more", "v").startswith("error: memory is full")
    assert store.store("k0", "overwrite is fine") == "updated 'k0'"
    assert store.data["errors"] == 4


def test_listing_is_cut_to_its_budget():
    store = MemoryStore({})
    for i in range(20):
        store.store(f"k{i}", "v" * 2000)
    listing = store.list()
    assert len(listing) < MAX_LIST_CHARS + 200 and listing.endswith("more keys; retrieve them by key)")


def test_double_encoded_and_bad_arguments():
    inner = json.dumps({"key": "city", "value": "Oslo"})
    assert parse_arguments(json.dumps(inner)) == {"key": "city", "value": "Oslo"}
    store = MemoryStore({})
    assert store.call("store_memory", json.dumps(inner)) == "stored 'city'"
    assert store.call("store_memory", "{not json").startswith("error: tool arguments are not valid JSON")
    assert store.call("store_memory", "[1, 2]").startswith("error: tool arguments must be a JSON object")
    assert store.call("store_memory", {"key": "a", "value": "b", "ttl": 3}).startswith("error: unexpected argument")
    assert store.call("forget", {}).startswith("error: unknown tool")
    assert store.call("store_memory", {"key": "n", "value": 42}) == "stored 'n'"  # numbers are text


def test_tool_schemas_document_every_argument():
    schemas = {s["name"]: s for s in tool_schemas()}
    assert tuple(schemas) == TOOL_NAMES
    for schema in schemas.values():
        assert len(schema["description"]) > 40
        assert all(p["description"] for p in schema["parameters"]["properties"].values())


_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                     max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from([*TOOL_NAMES, "other"]),
       raw=_json | _json.map(json.dumps) | _json.map(lambda v: json.dumps(json.dumps(v))) | st.text(max_size=40))
def test_tools_never_raise(name, raw):
    answer = MemoryStore({}).call(name, raw)
    assert isinstance(answer, str) and answer


def test_import_is_cheap_and_needs_no_verifiers():
    """`import memory_arena` on a bare interpreter: no verifiers import, v1 names unavailable
    as AttributeError, load_environment asks for verifiers in one sentence."""
    code = (
        "import sys; sys.modules['verifiers'] = None\n"  # as if verifiers were not installed
        "import memory_arena\n"
        "assert not any(m.startswith('verifiers') and sys.modules[m] for m in sys.modules)\n"
        "assert getattr(memory_arena, 'MemoryArenaTaskset', None) is None\n"
        "from memory_arena.envs import core\n"
        "print(len(core.select_tasks(core.make_settings(num_examples=3))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "3"
