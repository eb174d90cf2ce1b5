"""`memory-arena bench` on the long-horizon suite (docs/suites.md): each history is ingested once
per system and searched for each of its questions; the summary adds the metrics by token
distance and the timing the ingest of one history."""

from __future__ import annotations

import json

from memory_arena.bench import bench_system, write_system
from memory_arena.suites import generate_suite
from memory_arena.systems import build_system
from memory_arena.systems.ingest import task_sessions


def test_each_history_is_ingested_once(tmp_path):
    tasks = generate_suite("long", n=4, histories=2, turns=600)
    system = build_system("grep")
    adds = []
    add = system.add
    system.add = lambda user, session, messages: (adds.append(user), add(user, session, messages))[1]
    records, timings = bench_system(system, tasks, 10)
    histories = {t.meta["history"]: t for t in tasks}
    assert len(adds) == sum(len(task_sessions(t)) for t in histories.values())
    assert len(set(adds)) == 2  # one user per history, shared by its questions
    assert all("distance" in r for r in records) and len(records) == len(tasks)
    assert sum(1 for t in timings if t.get("history_ingest")) == 2
    summary, timing = write_system(tmp_path, "grep", system, 10, records, timings)
    assert sum(cell["tasks"] for cell in summary["distance"].values()) == len(tasks)
    assert timing["history_ingest"]["histories"] == 2
    written = json.loads((tmp_path / "grep" / "summary.json").read_text())
    assert written["distance"] == summary["distance"]
    assert "token distance" in (tmp_path / "grep" / "scorecard.md").read_text()
