"""`dense` and `hybrid`: the fusion and expansion rules on hand-made rankings (no model
needed), a clear error without the `dense` extra, and both systems on small histories
(skipped when the extra is not installed; the first run distils the model, ~30 s)."""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("bm25s")

from memory_arena.systems import build_system, ingest_task, task_user_id  # noqa: E402
from memory_arena.systems import hybrid  # noqa: E402
from memory_arena.systems.store import Record, UserLog  # noqa: E402
from memory_arena.tasks.schema import Task, Turn  # noqa: E402
from system_deps import require  # noqa: E402


def make_log(sessions: list[str]) -> UserLog:
    log = UserLog()
    for position, sid in enumerate(sessions):
        log.records.append(Record(position, sid, f"m{position}", position))
        log.sessions.setdefault(sid, []).append(position)
    return log


def test_fuse_is_weighted_reciprocal_rank_with_k_60():
    fused = hybrid.fuse([([2, 0, 1], 1.0), ([0], 0.5)], 3)
    assert fused[0] == pytest.approx(1 / 62 + 0.5 / 61)
    assert fused[1] == pytest.approx(1 / 63)
    assert fused[2] == pytest.approx(1 / 61)


def test_expand_lists_seeds_then_same_session_neighbours_then_the_rest(monkeypatch):
    monkeypatch.setattr(hybrid, "SEEDS", 2)
    # sessions: a a a | b b b ; fused order 4, 1, 3, 0, 5, 2
    log = make_log(["a", "a", "a", "b", "b", "b"])
    fused = hybrid.np.array([0.3, 0.5, 0.1, 0.35, 0.6, 0.2])
    got = hybrid.expand(log, fused, top_k=10)
    # seeds 4, 1; neighbours of 4 (3, 5), of 1 (0, 2); nothing left to fill.
    assert [p for p, _ in got] == [4, 1, 3, 5, 0, 2]
    assert [s for _, s in got] == [0.6, 0.5, 0.5, 0.5, 0.5, 0.5]
    # a session boundary stops the expansion: 2 and 3 are adjacent but in different sessions
    log = make_log(["a", "a", "a", "b", "c", "c"])
    assert [p for p, _ in hybrid.expand(log, fused, top_k=10)] == [4, 1, 5, 0, 2, 3]
    assert [p for p, _ in hybrid.expand(log, fused, top_k=3)] == [4, 1, 5]


def test_dense_without_the_extra_says_how_to_install(monkeypatch, tmp_path):
    from memory_arena.systems.embedding import Encoder, MissingExtra

    monkeypatch.setitem(sys.modules, "model2vec", None)  # makes `import model2vec` fail
    with pytest.raises(MissingExtra, match=r"pip install 'memory-arena\[dense\]'"):
        Encoder(tmp_path)


@pytest.fixture(scope="module")
def encoder():
    require("hybrid")
    from memory_arena.systems.embedding import shared_encoder

    return shared_encoder()


def pet_task() -> Task:
    texts = ["I had pasta for lunch today.", "Sounds tasty.", "We adopted a golden retriever puppy.",
             "How lovely!", "The train was late again.", "Annoying."]
    turns = tuple(Turn("user" if i % 2 == 0 else "assistant", t, 1_000 * (i + 1), i // 2) for i, t in enumerate(texts))
    return Task("recall-0001", "recall", 4, turns, "Which dog breed do we own?", "golden retriever", (),
                {"evidence": [2], "stale": []})


def test_dense_ranks_by_cosine_of_the_static_embeddings(encoder):
    system = build_system("dense")
    task = pet_task()
    ingest_task(system, task)
    got = system.search(task_user_id(task), task.question, 6)
    assert got[0]["content"] == "We adopted a golden retriever puppy."  # no content word in common
    vectors = encoder.encode([t.content for t in task.turns])
    query = encoder.encode([task.question])[0]
    expected = sorted(((float(vectors[i] @ query), -i) for i in range(6)), reverse=True)
    assert [m["score"] for m in got] == pytest.approx([s for s, _ in expected], abs=1e-6)
    assert [m["created_at"] for m in got] == [1_000 * (1 - i) for _, i in expected]


def test_dense_embeds_new_messages_incrementally(encoder):
    system = build_system("dense")
    system.add("u", "0", [{"role": "user", "content": "I play the cello."}])
    assert system.search("u", "instrument", 5)[0]["content"] == "I play the cello."
    system.add("u", "1", [{"role": "user", "content": "Our cat sleeps all day."}])
    assert system.search("u", "pet", 1)[0]["content"] == "Our cat sleeps all day."
    assert system.search("other", "pet", 5) == []


def test_hybrid_follows_the_fusion_of_dense_and_bm25(encoder, monkeypatch):
    monkeypatch.setattr(hybrid, "SEEDS", 1)
    task = pet_task()
    ranks = {}
    for name in ("dense", "bm25"):
        system = build_system(name)
        ingest_task(system, task)
        ranks[name] = {m["created_at"]: r for r, m in enumerate(system.search(task_user_id(task), task.question, 10), 1)}
    fused = {ts: 1.0 / (60 + ranks["dense"][ts]) + (0.5 / (60 + ranks["bm25"][ts]) if ts in ranks["bm25"] else 0.0)
             for ts in ranks["dense"]}
    order = sorted(fused, key=lambda ts: (-fused[ts], -ts))
    seed = order[0]
    same_session = [ts for ts in order[1:] if (ts - 1) // 2_000 == (seed - 1) // 2_000]
    expected = [seed, *sorted(same_session), *(ts for ts in order[1:] if ts not in same_session)]
    system = build_system("hybrid")
    ingest_task(system, task)
    assert [m["created_at"] for m in system.search(task_user_id(task), task.question, 10)] == expected
