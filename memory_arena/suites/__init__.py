"""Optional suites beyond the canonical 500 (docs/suites.md): an explicit registry and the
functions that turn (suite, seed, size) into tasks or a dataset folder.

- `canonical`: the five categories of the shipped dataset (`memory_arena.tasks`), unchanged.
- `forget`: retractions whose answer is that there is none, their answerable twins, and
  forgetting pressure (`forget.py`).
- `long`: one user's life over months in many sessions, many questions per history (`long.py`).

A suite's folder holds one JSONL per file name and a manifest (`suite.json`: suite, seed, size,
files, versions) that `tasks.schema.load_tasks` reads, so every reader of a dataset folder
(`run_offline.py --data`, the bench, `score`) takes a suite like the canonical set. Every task of
a suite carries `meta.suite`, and the metrics keep suite tasks out of the headline Memory Score.
Seeding is the canonical generator's: task `i` of a file comes from a hash of (seed, stream, i),
so a smaller size is a prefix of a larger one and any task can be rebuilt alone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from .. import tasks as canonical
from ..tasks.common import BuildConfig, GENERATOR_VERSION, task_rng
from ..tasks.schema import MANIFEST, Task
from . import forget, long

SUITE_NAMES = ("canonical", "long", "forget")


@dataclass(frozen=True)
class Suite:
    """One suite: its files and how to build task `index` of a file."""

    name: str
    files: tuple[str, ...]
    version: int
    default_n: int
    """Tasks per file by default."""
    tasks: Callable[..., Iterator[Task]]
    """(seed, n, **options) -> the tasks, file by file, each file in index order."""


def _forget_tasks(seed: int, n: int, files: tuple[str, ...] = forget.FILES) -> Iterator[Task]:
    config = BuildConfig(seed=seed)
    for name in files:
        # A retraction and its twin are built from the same RNG: the same history up to the two
        # pairs where they differ.
        stream = "forget-pressure" if name == "pressure" else "forget"
        for index in range(n):
            yield forget.build(name, task_rng(seed, stream, index), index, config)


def _canonical_tasks(seed: int, n: int, files: tuple[str, ...] = canonical.CATEGORIES) -> Iterator[Task]:
    return canonical.iter_tasks(seed, n, files)


SUITES: dict[str, Suite] = {
    "canonical": Suite("canonical", canonical.CATEGORIES, 0, canonical.DEFAULT_N, _canonical_tasks),
    "long": Suite("long", long.FILES, long.VERSION, long.DEFAULT_QUESTIONS, long.iter_tasks),
    "forget": Suite("forget", forget.FILES, forget.VERSION, 100, _forget_tasks),
}


def get_suite(name: str) -> Suite:
    """The suite called `name`; ValueError naming the choices otherwise."""
    if name not in SUITES:
        raise ValueError(f"unknown suite {name!r}; choose from {', '.join(SUITE_NAMES)}")
    return SUITES[name]


def generate_suite(name: str, seed: int = canonical.DEFAULT_SEED, n: int | None = None, **options) -> list[Task]:
    """Every task of a suite as a list (`n` tasks per file; `long` takes `histories` and `tokens`)."""
    suite = get_suite(name)
    return list(suite.tasks(seed, suite.default_n if n is None else n, **options))


def manifest(name: str, seed: int, n: int, **options) -> dict:
    """What `suite.json` says about a suite folder."""
    suite = get_suite(name)
    return {"suite": name, "seed": seed, "n": n, **options, "files": list(suite.files),
            "generator_version": GENERATOR_VERSION, "suite_version": suite.version}


def write_suite(out: Path, name: str, seed: int = canonical.DEFAULT_SEED, n: int | None = None,
                progress: Callable[[str], None] | None = None, **options) -> dict[str, int]:
    """Write `out/<file>.jsonl` for each file of the suite and `out/suite.json`; returns the
    task count per file. Files are written under temporary names and renamed, and the manifest
    comes last, so an interrupted run never leaves a folder that reads as complete."""
    suite = get_suite(name)
    n = suite.default_n if n is None else n
    out.mkdir(parents=True, exist_ok=True)
    (out / MANIFEST).unlink(missing_ok=True)
    # One pass over the tasks, each to its file: a long history is built once for all its questions.
    tmp = {file: out / f"{file}.jsonl.tmp" for file in suite.files}
    counts = dict.fromkeys(suite.files, 0)
    handles = {file: open(path, "w", encoding="utf-8", newline="\n") for file, path in tmp.items()}
    try:
        for task in suite.tasks(seed, n, **options):
            handles[task.category].write(task.to_json())
            handles[task.category].write("\n")
            counts[task.category] += 1
            if progress is not None and sum(counts.values()) % 100 == 0:
                progress(f"{sum(counts.values()):>6} tasks written")
    finally:
        for handle in handles.values():
            handle.close()
    for file, path in tmp.items():
        path.replace(out / f"{file}.jsonl")
        if progress is not None:
            progress(f"{counts[file]:>6} tasks  {out / (file + '.jsonl')}")
    (out / MANIFEST).write_text(json.dumps(manifest(name, seed, n, **options), indent=2) + "\n", encoding="utf-8")
    return counts


def history_user(task: Task) -> str | None:
    """The user a long-horizon history is ingested as, shared by every question of it, so that a
    memory system ingests a history once and answers many questions (LoCoMo-style); None for a
    task that is its own conversation. Like `systems.task_user_id`, it ends with a hash of the
    turns: another history is always another user."""
    if task.meta.get("suite") != "long":
        return None
    from ..systems.ingest import task_user_id  # the systems stage is only needed by its callers

    return f"long-history-{task.meta['history']:03d}-{task_user_id(task).rsplit('-', 1)[1]}"


def suite_of(task: Task) -> str:
    """The suite a task belongs to (`meta.suite`; the canonical set has none)."""
    return task.meta.get("suite") or "canonical"


__all__ = ["SUITES", "SUITE_NAMES", "Suite", "generate_suite", "get_suite", "history_user", "manifest", "suite_of",
           "write_suite"]
