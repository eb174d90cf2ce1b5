"""The scorer: one test per reason, extraction, normalisation, framing, and property tests that
it never raises, that asserting a superseded value beside the answer always costs the point and
that naming it as history never does. The labelled fairness corpus is in test_scoring_fairness.py."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_arena.tasks.schema import Task
from memory_arena.verifier.scoring import REASONS, WORD_LIMIT, Score, extract_answer, normalize, score, score_reply


def make_task(answer="Bangalore", aliases=(), stale=("Chennai",), distractors=("Lyon", "Porto")) -> Task:
    return Task(id="update-0000", category="update", noise_turns=0, turns=(), question="Which city do I live in now?",
                answer=answer, aliases=tuple(aliases), meta={"stale": list(stale), "distractors": list(distractors)})


TASK = make_task()


@pytest.mark.parametrize("reply, reason, value", [
    ("Bangalore", "exact", 1.0),
    ("bangalore.", "exact", 1.0),
    ("You live in Bangalore now.", "contained", 1.0),
    ("My apartment is in Bangalore, close to the lake these days.", "contained", 1.0),
    ("Bangalore, not Chennai.", "contained", 1.0),
    ("Bangalore (your sister lives in Lyon)", "contained", 1.0),
    ("Chennai or Bangalore", "hedged", 0.0),
    ("Bangalore and Chennai", "hedged", 0.0),
    ("Bangalore (or Lyon)", "hedged", 0.0),
    ("Maybe Bangalore.", "hedged", 0.0),
    ("Chennai", "missing", 0.0),
    ("It's not Bangalore.", "missing", 0.0),
    ("You moved away from Bangalore.", "missing", 0.0),
    ("I don't know.", "missing", 0.0),
    ("", "empty", 0.0),
    ("   ", "empty", 0.0),
    ("<think>maybe Bangalore</think>", "empty", 0.0),
    (" ".join(["word"] * WORD_LIMIT) + " Bangalore", "too_long", 0.0),
])
def test_each_reason(reply, reason, value):
    result = score(TASK, reply)
    assert (result.reason, result.value) == (reason, value)


def test_word_limit_boundary():
    assert score(TASK, " ".join(["so"] * (WORD_LIMIT - 1)) + " Bangalore").reason == "contained"
    assert score(TASK, " ".join(["so"] * WORD_LIMIT) + " Bangalore").reason == "too_long"


def test_sentences_small_models_give_are_accepted():
    floor = make_task(answer="12th", aliases=("12", "twelfth"), stale=("3rd",), distractors=("7th",))
    birthday = make_task(answer="March 14", aliases=("14 March",), stale=("March 4",), distractors=())
    assert score(floor, "My apartment is on the 12th floor.").value == 1.0
    assert score(floor, "You're on the twelfth floor now.").value == 1.0
    assert score(birthday, "Her birthday is on March 14.").value == 1.0
    assert score(birthday, "It's the 14th of March.").value == 1.0
    assert score(birthday, "March 4").reason == "missing"


def test_stale_flag_is_set_when_a_superseded_value_is_asserted():
    assert score(TASK, "Chennai").stale is True
    assert score(TASK, "Chennai or Bangalore").stale is True
    assert score(TASK, "Bangalore").stale is False
    assert score(TASK, "Bangalore, after you moved from Chennai").stale is False  # history, not an assertion
    assert score(TASK, "Lyon").stale is False  # a distractor is not a superseded value


def test_extraction_prefers_final_answer_marker_and_drops_reasoning():
    assert extract_answer("<think>Chennai? no</think>\nAnswer: Bangalore") == "Bangalore"
    assert extract_answer("reasoning without an opening tag</think> Bangalore") == "Bangalore"
    assert extract_answer("Answer: Chennai. Wait. Final answer: Bangalore") == "Bangalore"
    assert score(TASK, "<think>It was Chennai before, then Bangalore.</think>Answer: Bangalore").reason == "exact"
    assert score(TASK, "**Answer:** Bangalore").reason == "exact"
    assert score(TASK, "I went through it.\n**Final Answer**: Bangalore").reason == "exact"


def test_a_marker_must_open_a_line_or_sentence():
    reply = "Short answer: Bangalore. Longer answer: you moved there from Chennai."
    assert extract_answer(reply) == reply
    assert score(TASK, reply).value == 1.0


@pytest.mark.parametrize("a, b", [
    ("June 15", "15 June"), ("June 15th", "the 15th of June"), ("Jun. 15", "june 15"), ("12th", "twelfth"),
    ("23rd", "twenty-third"), ("1,450", "1450"), ("Ｂｉｓｃｕｉｔ", "biscuit"), ("Dog’s", "dog's"), ("The Lyon", "lyon"),
    ("Zürich", "Zurich"), ("Kraków", "Krakow"), ("København", "Kobenhavn"), ("floor nineteen", "floor 19"),
    ("the second floor", "2nd floor"), ("June second", "June 2"), ("the third of May", "May 3"),
    ("floor twenty-seven", "floor 27th"),
])
def test_normalisation_unifies_spellings(a, b):
    assert normalize(a) == normalize(b)


def test_everyday_ordinals_are_numbers_only_beside_floor_or_a_month():
    assert normalize("a second-hand bike") == "second hand bike"
    assert normalize("third time lucky") == "third time lucky"
    assert normalize("the nineteenth") == "19"  # not an everyday word: a number anywhere
    floor = make_task(answer="2nd", aliases=("2nd floor", "second floor", "floor 2", "floor two", "2"), stale=("5th",),
                      distractors=())
    assert score(floor, "You bought a second-hand bike.").value == 0.0
    assert score(floor, "You're on the second floor.").value == 1.0


def test_two_dates_in_a_row_stay_two_dates():
    assert normalize("June 15 May 15") == "june 15 may 15"
    assert normalize("15 June, 16 July") == "june 15 july 16"


def test_a_stale_value_inside_the_answer_is_not_a_hedge():
    task = make_task(answer="Mini Countryman", stale=("Mini",), distractors=())
    assert score(task, "a Mini Countryman").value == 1.0
    assert score(task, "a Mini Countryman, not the Mini").value == 1.0
    assert score(task, "a Mini Countryman or the Mini").reason == "hedged"


def test_aliases_accepted():
    task = make_task(answer="November 26", aliases=("26 November", "November 26th"), stale=("June 1",))
    assert score(task, "26th of November").value == 1.0


def test_dict_rows_and_message_lists():
    row = {"answer": "Bangalore", "aliases": [], "meta": {"stale": ["Chennai"], "distractors": []}}
    assert score(row, "Bangalore").value == 1.0
    assert score(TASK, [{"role": "user", "content": "q"}, {"role": "assistant", "content": "Bangalore"}]).value == 1.0
    assert score(TASK, {"role": "assistant", "content": "Bangalore"}).value == 1.0
    assert score(TASK, b"Bangalore").value == 1.0


def test_unreadable_tasks_score_zero_without_raising():
    assert score(None, "x") == Score(0.0, "missing")
    assert score(42, "Bangalore") == Score(0.0, "missing")
    assert score({"no": "answer"}, "x") == Score(0.0, "missing")


def test_score_reply_is_the_same_rule_field_by_field():
    assert score_reply("Chennai or Bangalore", "Bangalore", stale=["Chennai"]).reason == "hedged"
    assert score_reply("Tobias manages Stefan.", "Stefan", subject="Tobias").reason == "missing"
    assert score_reply("Stefan manages Tobias.", "Stefan", subject="Tobias").value == 1.0


def test_values_are_recognised_by_every_form():
    car = make_task(answer="Mazda MX-5", aliases=("MX-5",), stale=("Dovetail Software",), distractors=("Volkswagen Golf",))
    assert score(car, "Mazda Miata").reason == "exact"
    assert score(car, "the Miata, or the VW Golf").reason == "hedged"  # a distractor by another name
    assert score(car, "Either MX-5 or Dovetail.").reason == "hedged"  # a stale value by its short form
    assert score(car, "MX-5 or Toyota Yaris").reason == "hedged"  # a value the task never names
    assert score(make_task(), "Bengaluru").reason == "exact"


ANY_REPLY = st.one_of(
    st.text(), st.binary(), st.none(), st.integers(), st.floats(allow_nan=True),
    st.lists(st.dictionaries(st.sampled_from(["role", "content", "x"]), st.one_of(st.text(), st.none(), st.integers()))),
    st.dictionaries(st.text(), st.text()),
)


@settings(max_examples=400, deadline=None)
@given(ANY_REPLY)
def test_never_raises_on_any_reply(reply):
    result = score(TASK, reply)
    assert result.value in (0.0, 1.0)
    assert result.reason in REASONS


@settings(max_examples=200, deadline=None)
@given(st.text(), st.text(), st.lists(st.text(), max_size=3), st.lists(st.text(), max_size=3))
def test_never_raises_on_any_task_fields(answer, reply, stale, distractors):
    result = score({"answer": answer, "aliases": [], "meta": {"stale": stale, "distractors": distractors}}, reply)
    assert result.value in (0.0, 1.0)


GLUE = st.text(alphabet=st.characters(whitelist_categories=("Zs", "Po")), max_size=5)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_adding_a_stale_value_to_a_correct_reply_makes_it_wrong(shipped_tasks, data):
    task = data.draw(st.sampled_from([t for t in shipped_tasks if t.meta["stale"]]))
    correct = data.draw(st.sampled_from([task.answer, f"It's {task.answer}.", f"I believe it is {task.answer} now."]))
    assert score(task, correct).value == 1.0
    stale = data.draw(st.sampled_from(task.meta["stale"]))
    glue = data.draw(GLUE)
    hedged = data.draw(st.sampled_from([f"{correct}{glue} {stale}", f"{stale}{glue} {correct}", f"{correct} or {stale}",
                                        f"either {stale} or {correct}"]))
    result = score(task, hedged)
    assert result.value == 0.0 and result.stale


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_naming_a_superseded_value_as_history_keeps_a_correct_reply_correct(shipped_tasks, data):
    task = data.draw(st.sampled_from([t for t in shipped_tasks if t.meta["stale"] and t.category != "temporal"]))
    stale = data.draw(st.sampled_from(task.meta["stale"]))
    reply = data.draw(st.sampled_from([f"{task.answer}, not {stale} any more.", f"{task.answer} (previously {stale}).",
                                       f"It used to be {stale}, but now it's {task.answer}.",
                                       f"{stale} was a mistake; it's {task.answer}."]))
    result = score(task, reply)
    assert result.value == 1.0 and not result.stale, reply


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_case_and_trailing_punctuation_do_not_change_the_verdict(shipped_tasks, data):
    task = data.draw(st.sampled_from(shipped_tasks))
    reply = data.draw(st.sampled_from([task.answer, f"it is {task.answer}", *task.meta["stale"][:1], "no idea"]))
    base = score(task, reply)
    assert score(task, reply.upper() + "!").value == base.value
    assert score(task, f"  {reply}.  ").value == base.value


def test_every_shipped_answer_and_alias_scores_exact(shipped_tasks):
    for task in shipped_tasks:
        for form in (task.answer, *task.aliases):
            assert score(task, form).reason == "exact", (task.id, form)


def test_every_shipped_stale_value_alone_is_wrong(shipped_tasks):
    for task in shipped_tasks:
        for value in task.meta["stale"] + task.meta["distractors"]:
            assert score(task, value).value == 0.0, (task.id, value)


def test_frozen_result():
    with pytest.raises(dataclasses.FrozenInstanceError):
        score(TASK, "Bangalore").value = 0.0  # type: ignore[misc]
