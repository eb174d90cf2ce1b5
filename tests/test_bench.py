"""`memory-arena bench`: the command end to end on hand-made and shipped tasks, its files,
determinism, usage errors, progress output, every built-in system on a handful of tasks,
and the `http` system against the real reference server giving the in-process numbers."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from memory_arena import bench
from memory_arena.cli import main
from memory_arena.systems import SYSTEMS, task_user_id
from memory_arena.systems.text import tokenize
from memory_arena.tasks.schema import Task, Turn, load_tasks
from system_deps import built, require


def write_dataset(folder: Path) -> Path:
    """Two update tasks: grep finds the current car in one, only the stale one in the other."""
    def task(index: int, texts: list[str], evidence: int) -> Task:
        turns = tuple(Turn("user" if i % 2 == 0 else "assistant", t, 10_000 * index + 100 * i, i // 2)
                      for i, t in enumerate(texts))
        return Task(f"update-{index:04d}", "update", 1, turns, "Which car do I drive now?", "Mazda", (),
                    {"evidence": [evidence], "stale": ["Volvo"]})

    folder.mkdir(parents=True, exist_ok=True)
    rows = [
        task(0, ["My car is a Volvo.", "Noted.", "I drive a Mazda now.", "Nice."], 2),
        task(1, ["My car is a Volvo.", "Noted.", "Swapped it for a Mazda.", "Nice."], 2),
    ]
    (folder / "update.jsonl").write_text("".join(t.to_json() + "\n" for t in rows), encoding="utf-8")
    return folder


def run_cli(*argv: str) -> int:
    try:
        return main(["bench", *argv])
    except SystemExit as exc:  # argparse usage errors
        return int(exc.code)


def test_bench_writes_scored_files_and_scorecard(tmp_path, capsys):
    data = write_dataset(tmp_path / "data")
    out = tmp_path / "out"
    assert run_cli("--system", "grep", "--k", "2", "--categories", "update", "--dataset", str(data),
                   "--out", str(out)) == 0
    rows = [json.loads(line) for line in (out / "grep" / "tasks.jsonl").read_text().splitlines()]
    # Task 0: "car" + "drive" match turn 2 (2 words) over turn 0 (1 word). Task 1: only turn 0 says "car".
    assert [r["ranking"] for r in rows] == [[2, 0], [0]]
    assert [(r["hit"], r["mrr"], r["stale_ranked_above"]) for r in rows] == [(1, 1.0, False), (0, 0.0, True)]
    summary = json.loads((out / "grep" / "summary.json").read_text())
    assert summary["k"] == 2 and summary["system"] == {"name": "grep"}
    assert summary["metrics"]["overall"] == summary["metrics"]["update"] == {
        "tasks": 2, "precision": 0.25, "recall": 0.5, "hit": 0.5, "mrr": 0.5,
        "median_first_gold_rank": 1, "stale_tasks": 2, "stale_rank_rate": 0.5}
    timing = json.loads((out / "grep" / "timing.json").read_text())
    assert timing["overall"]["adds"] == 4 and timing["overall"]["searches"] == 2
    card = capsys.readouterr().out
    assert card == (out / "scorecard.md").read_text()
    assert "| grep | 2 | 0.250 | 0.500 | 0.500 | 0.500 | 1 | 0.500 |" in card
    assert "| update |" in (out / "grep" / "scorecard.md").read_text()


def test_same_system_same_tasks_gives_identical_scored_files(tmp_path, capsys):
    require("bm25")
    for run in ("a", "b"):
        assert run_cli("--system", "bm25,grep", "--limit", "3", "--out", str(tmp_path / run)) == 0
    card_a, card_b = (tmp_path / "a" / "scorecard.md").read_text(), (tmp_path / "b" / "scorecard.md").read_text()
    assert card_a.split("Latency")[0] == card_b.split("Latency")[0]
    for name in ("bm25", "grep"):
        for file in ("tasks.jsonl", "summary.json"):
            assert (tmp_path / "a" / name / file).read_bytes() == (tmp_path / "b" / name / file).read_bytes()
    assert len((tmp_path / "a" / "bm25" / "tasks.jsonl").read_text().splitlines()) == 15


@pytest.mark.parametrize("argv, message", [
    (["--system", "nope"], "unknown memory system 'nope'"),
    (["--system", "bm25", "--categories", "recall", "gossip"], "unknown category 'gossip'"),
    (["--system", "bm25", "--k", "0"], "expected a positive integer, got 0"),
    (["--system", "bm25", "--limit", "many"], "expected a positive integer, got 'many'"),
    (["--system", "http://127.0.0.1:9", "--api-key-env", "MA_BENCH_UNSET_KEY"], "environment variable is empty"),
    (["--k", "3"], "the following arguments are required: --system"),
    # Found while hunting #17's class of bug: these were retried six times (about 8 s) as
    # transport errors, or ran nothing and blamed the dataset.
    (["--system", "http://"], "'http://' is not a usable URL: it has no host"),
    (["--system", "grep,http://127.0.0.1:99999"], "its port is not a number from 1 to 65535"),
    (["--system", "http://exa mple"], "white space"),
    (["--system", "grep", "--categories", ""], "--categories needs at least one of"),
    (["--system", "grep", "--categories", ","], "--categories needs at least one of"),
])
def test_usage_errors_are_one_line_and_exit_2(argv, message, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("MA_BENCH_UNSET_KEY", raising=False)
    assert run_cli(*argv, "--out", str(tmp_path)) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_missing_dataset_file_is_one_line_and_exit_1(tmp_path, capsys):
    assert run_cli("--system", "grep", "--dataset", str(tmp_path), "--categories", "recall") == 1
    err = capsys.readouterr().err
    assert "recall.jsonl: no such dataset file" in err and err.count("\n") == 1


def test_unreachable_service_is_one_line_and_exit_1(tmp_path, capsys):
    # Port 9 (discard) on loopback: nothing listens; the client gives up after its retries.
    import memory_arena.systems.http as http_system

    original = http_system.HttpSystem.__init__

    def fast(self, base_url, **kw):
        from memory_arena.contract.client import RetryPolicy

        original(self, base_url, retry=RetryPolicy(max_attempts=1), **kw)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(http_system.HttpSystem, "__init__", fast)
        assert run_cli("--system", "http://127.0.0.1:9", "--limit", "1", "--categories", "recall",
                       "--out", str(tmp_path)) == 1
    err = capsys.readouterr().err
    assert err.startswith("memory-arena bench: error: http://127.0.0.1:9: ") and err.count("\n") == 1


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_a_bar_on_a_tty_and_lines_otherwise():
    plain = io.StringIO()
    progress = bench.Progress(20, "bench x", plain)
    for done in range(1, 21):
        progress.update(done)
    lines = plain.getvalue().splitlines()
    assert len(lines) == 10 and lines[0].startswith("bench x: 2/20 tasks") and lines[-1].startswith("bench x: 20/20")
    tty = Tty()
    progress = bench.Progress(3, "bench x", tty)
    for done in range(1, 4):
        progress.update(done)
    text = tty.getvalue()
    assert text.startswith("\rbench x [") and "3/3" in text and text.endswith("\n")
    assert "#" * 30 in text


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n == "minilm" else n for n in SYSTEMS])
def test_every_built_in_system_on_a_handful_of_tasks(name, shipped_tasks):  # minilm embeds ~1,000 turns: slow
    system = built(name)
    tasks = [t for t in shipped_tasks if t.index < 3]
    records, timings = bench.bench_system(system, tasks, 10)
    assert [r["id"] for r in records] == [t.id for t in tasks]
    assert len(timings) == len(tasks) and all(t["add_ms"] and t["search_ms"] >= 0 for t in timings)
    for r, task in zip(records, tasks):
        assert len(r["ranking"]) <= 10 and None not in r["ranking"]  # every memory maps to a turn
        assert len(set(r["ranking"])) == len(r["ranking"])
        assert 0.0 <= r["precision"] <= r["hit"] and r["mrr"] <= r["hit"]
    if name == "full-context":  # newest first: the last ten turns, and a current value is never outranked
        assert all(r["ranking"] == list(range(len(t.turns) - 1, max(len(t.turns) - 11, -1), -1))
                   for r, t in zip(records, tasks))
        assert not any(r["stale_ranked_above"] for r in records if r["category"] in ("update", "contradiction"))
    assert sum(r["hit"] for r in records) > 0
    for task in tasks:  # the bench leaves each task ingested under its user
        found = system.search(task_user_id(task), task.question, 10)
        assert [m["score"] for m in found] == sorted((m["score"] for m in found), reverse=True)
        if name in ("grep", "bm25"):  # lexical: only memories sharing a content word
            assert all(set(tokenize(m["content"])) & set(tokenize(task.question)) for m in found)
        elif name in ("dense", "hybrid"):  # every memory is ranked
            assert len(found) == min(10, len(task.turns))


@pytest.mark.slow
def test_http_system_against_the_reference_server_gives_the_in_process_numbers(tmp_path, capsys):
    from contract_procs import start_reference

    require("bm25")
    server = start_reference(tmp_path, "--backend", "bm25")
    try:
        argv = ["--limit", "4", "--k", "10"]
        assert run_cli("--system", "bm25", *argv, "--out", str(tmp_path / "local")) == 0
        for run in ("http1", "http2"):  # the second run re-ingests: idempotent, same numbers
            assert run_cli("--system", server.url, *argv, "--out", str(tmp_path / run)) == 0
    finally:
        server.stop()
    local = tmp_path / "local" / "bm25"
    for run in ("http1", "http2"):
        remote = next((tmp_path / run).glob("http-*"))
        assert (remote / "tasks.jsonl").read_bytes() == (local / "tasks.jsonl").read_bytes()
        assert json.loads((remote / "summary.json").read_text())["metrics"] == \
            json.loads((local / "summary.json").read_text())["metrics"]
    assert "| http://127.0.0.1:" in capsys.readouterr().out


def write_tasks(folder: Path, rows: list[tuple[list[str], str, str, int]]) -> Path:
    """update tasks from (texts, answer, stale value, first timestamp), evidence the third turn."""
    folder.mkdir(parents=True, exist_ok=True)
    tasks = [Task(f"update-{i:04d}", "update", 1,
                  tuple(Turn("user" if j % 2 == 0 else "assistant", text, start + 100 * j, j // 2)
                        for j, text in enumerate(texts)),
                  "Which car do I drive now?", answer, (), {"evidence": [2], "stale": [stale]})
             for i, (texts, answer, stale, start) in enumerate(rows)]
    (folder / "update.jsonl").write_text("".join(t.to_json() + "\n" for t in tasks), encoding="utf-8")
    return folder


def test_task_users_differ_with_the_conversation_and_only_with_it(tmp_path):
    first = write_tasks(tmp_path / "a", [(["My car is a Volvo.", "Noted.", "I drive a Mazda now."], "Mazda", "Volvo", 0)])
    again = write_tasks(tmp_path / "b", [(["My car is a Volvo.", "Noted.", "I drive a Mazda now."], "Mazda", "Volvo", 0)])
    other = write_tasks(tmp_path / "c", [(["My car is a Volvo.", "Noted.", "I drive a Kia now."], "Kia", "Volvo", 0)])
    later = write_tasks(tmp_path / "d", [(["My car is a Volvo.", "Noted.", "I drive a Mazda now."], "Mazda", "Volvo", 7)])
    users = [task_user_id(load_tasks(folder, ["update"])[0]) for folder in (first, again, other, later)]
    assert users[0] == users[1] and len(set(users)) == 3
    assert users[0].startswith("update-0000-")


@pytest.mark.slow
def test_a_service_that_holds_another_dataset_gives_the_in_process_numbers(tmp_path, capsys):
    # Regression (#17.1): the same task ids with other conversations on the same service. The
    # service used to answer the second run's Adds "already done" and search the first run's
    # text, and the bench matched those memories to turns by content: hit@10 0.167 against
    # 0.333 in process, silently.
    from contract_procs import start_reference

    require("bm25")
    earlier = write_tasks(tmp_path / "earlier", [
        (["My car is a Volvo.", "Noted.", "I drive a Mazda now.", "Nice car."], "Mazda", "Volvo", 1_000),
        (["I drive a Kia.", "Noted.", "Swapped it for a Fiat.", "Fun."], "Fiat", "Kia", 5_000)])
    current = write_tasks(tmp_path / "current", [
        (["I drive a Mazda now.", "Noted.", "Swapped it for a Kia.", "Nice car."], "Kia", "Mazda", 2_000),
        (["My car is a Volvo.", "Noted.", "I drive a Fiat now.", "Fun."], "Fiat", "Volvo", 5_000)])
    server = start_reference(tmp_path, "--backend", "bm25")
    try:
        for name, data in (("earlier", earlier), ("current", current)):
            assert run_cli("--system", server.url, "--categories", "update", "--dataset", str(data),
                           "--out", str(tmp_path / f"http-{name}")) == 0
    finally:
        server.stop()
    assert run_cli("--system", "bm25", "--categories", "update", "--dataset", str(current),
                   "--out", str(tmp_path / "local")) == 0
    remote = next((tmp_path / "http-current").glob("http-*"))
    assert (remote / "tasks.jsonl").read_text() == (tmp_path / "local" / "bm25" / "tasks.jsonl").read_text()
    capsys.readouterr()


def test_unwritable_output_is_one_line_and_exit_1(tmp_path, capsys):
    data = write_dataset(tmp_path / "data")
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert run_cli("--system", "grep", "--categories", "update", "--dataset", str(data), "--out", str(blocker)) == 1
    err = capsys.readouterr().err
    assert "cannot write the results under" in err and err.count("\n") == 1


@pytest.mark.slow
def test_http_system_sends_the_api_key_from_the_named_variable(tmp_path, capsys, monkeypatch):
    from contract_procs import start_reference

    require("bm25")
    server = start_reference(tmp_path, "--api-key-env", "MA_BENCH_KEY", env={"MA_BENCH_KEY": "s3cret"})
    try:
        argv = ["--system", server.url, "--limit", "1", "--categories", "recall", "--out", str(tmp_path / "out")]
        assert run_cli(*argv) == 1
        assert "failed with HTTP 401" in capsys.readouterr().err
        monkeypatch.setenv("MA_BENCH_KEY", "s3cret")
        assert run_cli(*argv, "--api-key-env", "MA_BENCH_KEY") == 0
    finally:
        server.stop()
