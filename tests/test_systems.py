"""The in-process memory systems: registry, ranking on hand-made histories, strict user
isolation under concurrency, lazy re-indexing, and the task ingestion glue."""

from __future__ import annotations

import sys
import threading

import pytest

from memory_arena.systems import SYSTEMS, build_system, ingest_task, retrieve_for_task, task_sessions, task_user_id
from memory_arena.systems.extras import MissingExtra, require
from system_deps import built
from memory_arena.systems.text import tokenize
from memory_arena.tasks.schema import Task, Turn

LEXICAL = ["grep", "bm25"]


def make_task(task_id: str = "update-0000") -> Task:
    contents = [
        ("user", "My dog is called Rex.", 0),
        ("assistant", "Rex is a lovely name.", 0),
        ("user", "I had pasta for lunch today.", 1),
        ("user", "We renamed the dog, he is called Max now.", 1),
        ("assistant", "Max it is.", 1),
        ("user", "My sister's cat is called Luna.", 2),
    ]
    turns = tuple(Turn(role, text, 1_000 * (i + 1), session) for i, (role, text, session) in enumerate(contents))
    return Task(task_id, "update", 3, turns, "What is the dog called now?", "Max", (),
                {"evidence": [3], "stale": ["Rex"], "distractors": ["Luna"]})


def test_registry_builds_each_name_and_rejects_unknown():
    assert len(SYSTEMS) == len(set(SYSTEMS))
    with pytest.raises(ValueError, match="unknown memory system 'nope'"):
        build_system("nope")
    for url in ("http://", "https://:80", "http://host:0", "http://host:70000", "http://ho st"):
        with pytest.raises(ValueError, match="is not a usable URL"):
            build_system(url)
    for name in SYSTEMS:  # last: skips here where an extra is missing
        assert built(name).name == name


def test_tokenize_drops_function_words_and_splits_apostrophes():
    assert tokenize("What is my sister's DOG called?") == ["sister", "dog", "called"]


def test_task_sessions_groups_consecutive_turns_and_keeps_timestamps():
    sessions = task_sessions(make_task())
    assert [sid for sid, _ in sessions] == ["0", "1", "2"]
    assert [len(m) for _, m in sessions] == [2, 3, 1]
    assert sessions[1][1][1] == {"role": "user", "content": "We renamed the dog, he is called Max now.",
                                 "timestamp": 4_000}


def test_grep_scores_distinct_overlap_ties_newest_first():
    got = retrieve_for_task(build_system("grep"), make_task(), 10)
    # "dog" + "called" in turns 3 and 0 (tie -> newer first); "called" alone in turn 5.
    assert [(m["created_at"], m["score"]) for m in got] == [(4_000, 2.0), (1_000, 2.0), (6_000, 1.0)]


def test_bm25_ranks_by_bm25s_and_drops_non_matching():
    system = built("bm25")
    import bm25s

    task = make_task()
    got = retrieve_for_task(system, task, 10)
    retriever = bm25s.BM25()
    retriever.index([tokenize(t.content) for t in task.turns], show_progress=False)
    expected = retriever.get_scores(tokenize(task.question))
    assert [m["score"] for m in got] == sorted((float(s) for s in expected if s > 0), reverse=True)
    assert {m["created_at"] for m in got} == {1_000, 4_000, 6_000}
    assert got[0]["created_at"] == 1_000  # the short turn wins on length normalisation: the stale fact


def test_full_context_returns_newest_first_up_to_top_k():
    got = retrieve_for_task(build_system("full-context"), make_task(), 4)
    assert [m["created_at"] for m in got] == [6_000, 5_000, 4_000, 3_000]


@pytest.mark.parametrize("name", ["full-context", *LEXICAL])
def test_top_k_unknown_user_and_reset(name):
    system = built(name)
    task = make_task()
    ingest_task(system, task)  # as task_user_id(task)
    user = task_user_id(task)
    assert len(system.search(user, "dog called", 1)) == 1
    assert system.search(user, "dog called", 0) == []
    assert system.search(task.id, "dog called", 5) == []
    ingest_task(system, task)  # re-ingesting replaces, never duplicates
    assert len(system.search(user, "dog called rex max lunch pasta cat luna lovely", 50)) <= len(task.turns)
    system.reset(user)
    assert system.search(user, "dog", 5) == []


@pytest.mark.parametrize("name", LEXICAL)
def test_new_messages_are_searchable_on_the_next_search(name):
    system = built(name)
    system.add("u", "s1", [{"role": "user", "content": "my car is blue"}])
    assert [m["content"] for m in system.search("u", "car", 5)] == ["my car is blue"]
    system.add("u", "s2", [{"role": "user", "content": "the car is red now", "timestamp": 7}])
    got = system.search("u", "car", 5)
    assert sorted(m["content"] for m in got) == ["my car is blue", "the car is red now"]
    assert {m["created_at"] for m in got} == {None, 7}


@pytest.mark.parametrize("name", LEXICAL)
def test_bad_messages_are_rejected_with_one_sentence(name):
    system = built(name)
    with pytest.raises(ValueError, match=r"messages\[1\] must be an object with a string 'content'"):
        system.add("u", "s", [{"content": "ok"}, {"content": 3}])
    with pytest.raises(ValueError, match="timestamp must be an integer"):
        system.add("u", "s", [{"content": "ok", "timestamp": True}])


@pytest.mark.parametrize("name", ["full-context", *LEXICAL])
def test_users_stay_isolated_under_concurrent_add_and_search(name):
    system = built(name)
    errors: list[str] = []

    def worker(w: int) -> None:
        user = f"user-{w}"
        for i in range(40):
            system.add(user, str(i // 10), [{"role": "user", "content": f"secret token{w} item {i}"}])
            for m in system.search(user, f"secret token{w} item", 100):
                if f"token{w} " not in m["content"]:
                    errors.append(f"{user} saw {m['content']}")
        if len(system.search(user, f"secret token{w} item", 100)) != 40:
            errors.append(f"{user} lost messages")

    threads = [threading.Thread(target=worker, args=(w,)) for w in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


@pytest.mark.parametrize("name", LEXICAL)
def test_query_without_known_words_returns_nothing(name):
    system = built(name)
    ingest_task(system, make_task(), "u")
    assert system.search("u", "zebra?", 5) == []
    assert system.search("u", "", 5) == []


@pytest.mark.parametrize("name", ["grep", "bm25"])
def test_retrieve_for_task_is_safe_for_concurrent_rollouts_of_one_task(name):
    system = built(name)
    task = make_task()
    expected = retrieve_for_task(system, task, 3)
    results: list[list] = []

    def rollout() -> None:
        for _ in range(30):
            results.append(retrieve_for_task(system, task, 3))

    threads = [threading.Thread(target=rollout) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 180 and all(r == expected for r in results)
    assert system._users == {}  # every scratch user was forgotten


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n == "minilm" else n for n in SYSTEMS])
def test_history_without_content_words_is_searchable(name):
    # Regression: bm25s cannot index a corpus with an empty vocabulary, so bm25 and hybrid
    # raised "max() arg is an empty sequence" (a 500 on the server) until a content word came.
    system = built(name)
    system.add("u", "0", [{"role": "user", "content": "👍", "timestamp": 1}, {"role": "user", "content": "the, a!"}])
    got = system.search("u", "thumbs", 5)
    if name in LEXICAL:
        assert got == []
    else:  # the ranking systems still return every memory, in a fixed order
        assert sorted(m["content"] for m in got) == ["the, a!", "👍"]
    if name != "minilm":  # the others read content words only; minilm reads "👍" too, and finds it
        assert system.search("u", "👍", 5) == got
    system.add("u", "1", [{"role": "user", "content": "thumbs up from the team"}])
    assert system.search("u", "thumbs", 5)[0]["content"] == "thumbs up from the team"


@pytest.mark.parametrize("name, missing, extra", [
    ("bm25", "bm25s", "bm25"), ("bm25", "numpy", "bm25"), ("hybrid", "bm25s", "dense"), ("dense", "model2vec", "dense"),
    ("http://127.0.0.1:9", "httpx", "server"),
])
def test_a_missing_extra_is_one_line_with_the_pip_install(name, missing, extra, monkeypatch):
    # Regression: these were bare "No module named 'bm25s'" errors with no hint.
    monkeypatch.setitem(sys.modules, missing, None)  # makes `import <missing>` fail
    with pytest.raises(MissingExtra) as caught:
        build_system(name)
    message = str(caught.value)
    assert f"pip install 'memory-arena[{extra}]'" in message and f"({missing} is not installed)" in message
    assert "\n" not in message


def test_an_import_error_inside_an_installed_package_is_not_called_a_missing_extra(tmp_path, monkeypatch):
    (tmp_path / "zq_installed_extra.py").write_text("import zq_not_a_real_dependency\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ImportError) as caught:
        require("zq_installed_extra", "bm25", "a test")
    assert not isinstance(caught.value, MissingExtra) and caught.value.name == "zq_not_a_real_dependency"
    with pytest.raises(MissingExtra, match=r"\(zq_absent is not installed\)"):
        require("zq_absent.sub", "bm25", "a test")


def test_a_system_that_cannot_forget_keeps_tasks_of_one_id_but_other_content_apart():
    # Regression (#17.1, the environment's path): a service without delete was asked about a
    # task under its bare id, so a second dataset's `update-0000` was searched in the first's.
    from memory_arena.systems.grep import GrepSystem

    class Keeper(GrepSystem):
        can_forget = False

        def reset(self, user_id=None):  # like `http`: nothing can be deleted
            pass

    system = Keeper()
    first, second = make_task(), make_task()
    second = Task(second.id, second.category, second.noise_turns,
                  tuple(Turn(t.role, t.content.replace("Max", "Bruno"), t.timestamp, t.session) for t in second.turns),
                  second.question, "Bruno", (), second.meta)
    assert "Max" in retrieve_for_task(system, first, 1)[0]["content"]
    got = retrieve_for_task(system, second, 10)
    assert "Bruno" in got[0]["content"] and not any("Max" in m["content"] for m in got)
