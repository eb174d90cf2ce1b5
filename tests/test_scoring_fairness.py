"""The fairness corpus (tests/fairness_corpus.py): the scorer agrees with a careful human grader
on every labelled reply, right and wrong, over the shipped tasks of every category and the
hand-written cases of the audit. Every disagreement is printed."""

from __future__ import annotations

from collections import Counter

import pytest

from fairness_corpus import LITERAL, TEMPLATES, build
from memory_arena.verifier.scoring import score


@pytest.fixture(scope="module")
def corpus(shipped_tasks):
    return build(shipped_tasks)


def test_corpus_is_large_and_balanced(corpus):
    labels = Counter(label for _, _, label, _ in corpus)
    assert labels[True] >= 200 and labels[False] >= 200, labels
    categories = Counter(task.category for task, _, _, _ in corpus if not isinstance(task, dict))
    assert set(categories) == {"recall", "update", "contradiction", "temporal", "relational"}, categories
    # Every template applies somewhere: one that never fills tests nothing.
    used = {template for _, _, _, template in corpus}
    assert [t.text for t in TEMPLATES if t.text not in used] == []


def test_scorer_agrees_with_every_label(corpus):
    disagreements = []
    for task, reply, label, template in corpus:
        result = score(task, reply)
        if (result.value == 1.0) != label:
            name = task["answer"] if isinstance(task, dict) else task.id
            disagreements.append(f"{name}: {reply!r} labelled {'right' if label else 'wrong'}, scored "
                                 f"{result.reason} (template {template!r})")
    print("\n".join(disagreements))
    assert not disagreements, f"{len(disagreements)} of {len(corpus)} replies misjudged:\n" + "\n".join(disagreements)


def test_wrong_replies_that_assert_a_superseded_value_are_flagged_stale():
    replies = {"Reykjavik/Cologne", "Probably Reykjavik, but possibly Cologne.", "Lyon and Porto."}
    cases = [(task, reply) for task, reply, _ in LITERAL if reply in replies]
    # Every reply named must still be in the corpus, or the loop below checks nothing.
    assert {reply for _, reply in cases} == replies
    for task, reply in cases:
        assert score(task, reply).stale, reply
