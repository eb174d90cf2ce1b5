"""Task generation: an explicit registry of the five category builders and the functions that
turn (seed, n, categories) into tasks or JSONL files.

Each builder is `build(rng, index, config) -> Task`, a pure function of its RNG; the RNG of
task `i` of a category comes from `task_rng(seed, category, i)`, so any task can be rebuilt on
its own and a smaller `n` is always a prefix of a larger one.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Iterable, Iterator

from . import contradiction, recall, relational, temporal, update
from .common import DEFAULT_MAX_NOISE, GENERATOR_VERSION, BuildConfig, task_rng
from .schema import CATEGORIES, Task, load_tasks

DEFAULT_SEED = 42
DEFAULT_N = 100

# Category name -> builder module. Explicit on purpose: nothing registers itself on import.
BUILDERS: dict[str, ModuleType] = {
    "recall": recall,
    "update": update,
    "contradiction": contradiction,
    "temporal": temporal,
    "relational": relational,
}


def build_task(category: str, index: int, seed: int = DEFAULT_SEED, config: BuildConfig | None = None) -> Task:
    """Task `index` of `category` for `seed`, built on its own (`config.seed` is set to `seed`)."""
    if config is None or config.seed != seed:
        config = BuildConfig(max_noise=config.max_noise if config else DEFAULT_MAX_NOISE, seed=seed)
    return BUILDERS[category].build(task_rng(seed, category, index), index, config)


def iter_tasks(seed: int = DEFAULT_SEED, n: int = DEFAULT_N, categories: Iterable[str] | None = None,
               max_noise: int = DEFAULT_MAX_NOISE) -> Iterator[Task]:
    """Tasks category by category (in CATEGORIES order), `n` each; one at a time, so that
    long-horizon sets of any size stream with flat memory."""
    wanted = _categories(categories)
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    config = BuildConfig(max_noise=max_noise, seed=seed)
    for category in wanted:
        for index in range(n):
            yield build_task(category, index, seed, config)


def generate(seed: int = DEFAULT_SEED, n: int = DEFAULT_N, categories: Iterable[str] | None = None,
             max_noise: int = DEFAULT_MAX_NOISE) -> list[Task]:
    """All tasks of `iter_tasks` as a list."""
    return list(iter_tasks(seed, n, categories, max_noise))


def write_dataset(out: Path, seed: int = DEFAULT_SEED, n: int = DEFAULT_N, categories: Iterable[str] | None = None,
                  max_noise: int = DEFAULT_MAX_NOISE) -> dict[str, int]:
    """Write `out/<category>.jsonl` for each category; returns the task count per file."""
    out.mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    for category in _categories(categories):
        path = out / f"{category}.jsonl"
        # Write to a temporary name and rename, so an interrupted run never leaves a half file.
        tmp = path.with_suffix(".jsonl.tmp")
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            for task in iter_tasks(seed, n, [category], max_noise):
                fh.write(task.to_json())
                fh.write("\n")
        tmp.replace(path)
        counts[category] = n
    return counts


def _categories(categories: Iterable[str] | None) -> list[str]:
    wanted = list(CATEGORIES) if categories is None else list(categories)
    unknown = [c for c in wanted if c not in BUILDERS]
    if unknown:
        raise ValueError(f"unknown category {unknown[0]!r}; choose from {', '.join(CATEGORIES)}")
    if not wanted:
        raise ValueError("no categories selected")
    return [c for c in CATEGORIES if c in wanted]  # canonical order, duplicates dropped


__all__ = ["BUILDERS", "CATEGORIES", "DEFAULT_MAX_NOISE", "DEFAULT_N", "DEFAULT_SEED", "GENERATOR_VERSION", "BuildConfig", "Task",
           "build_task", "generate", "iter_tasks", "load_tasks", "task_rng", "write_dataset"]
