"""Public-format importers (docs/datasets.md): LongMemEval, LoCoMo and agentmemory's
coding-agent-life files read as MemoryArena task records, so that `memory-arena bench` and
any code written for the task record run on them unchanged.

A dataset is named `FORMAT:PATH` (`longmemeval:longmemeval_s.json`, `locomo:locomo10.json`,
`agentmemory:coding-agent-life/`). `open_dataset(spec)` reads the whole file once to check
it (a malformed file raises `ImportFormatError`, one line naming the file, the record and
the field, before anything is used) and then streams its tasks as often as asked, holding
one source record at a time; `load(spec)` returns them as a list. Standard library only.
"""

from __future__ import annotations

import importlib
from collections import Counter
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

from memory_arena.importers.common import ImportFormatError
from memory_arena.tasks.schema import Task

# format -> module with `read(path) -> Iterator[Task]`; the order of `--help`.
FORMATS: dict[str, str] = {
    "longmemeval": "memory_arena.importers.longmemeval",
    "locomo": "memory_arena.importers.locomo",
    "agentmemory": "memory_arena.importers.agentmemory",
}


def split_spec(spec: str) -> tuple[str, Path] | None:
    """(format, path) of `FORMAT:PATH`, or None when `spec` names no known format (a folder of
    MemoryArena JSONL files); ValueError for `FORMAT:` with no path."""
    head, sep, tail = spec.partition(":")
    if not sep or head not in FORMATS:
        return None
    if not tail:
        raise ValueError(f"--dataset {spec}: give the path after '{head}:'")
    return head, Path(tail)


class ImportedDataset:
    """A checked public-format file: its size per category, and its tasks streamed on demand."""

    def __init__(self, fmt: str, path: Path, report: Callable[[str], None] | None = None) -> None:
        """Check the whole file; `report` gets a progress line every 10,000 questions and a
        last one with the total (reading a LongMemEval-M file takes a while)."""
        if fmt not in FORMATS:
            raise ValueError(f"unknown dataset format {fmt!r}; choose from {', '.join(FORMATS)}")
        self.format, self.path = fmt, path
        self._read = importlib.import_module(FORMATS[fmt]).read
        if not path.exists():
            raise ImportFormatError(f"{path}: no such file or folder")
        self.counts: Counter[str] = Counter()
        for n, task in enumerate(self._read(path), 1):
            self.counts[task.category] += 1
            if report is not None and n % 100 == 0:
                report(f"checking {path}: {n} questions read")
        if not self.counts:
            raise ImportFormatError(f"{path}: holds no questions")
        if report is not None:
            report(f"{path}: {len(self)} questions in {len(self.counts)} categories, all well-formed")

    def __iter__(self) -> Iterator[Task]:
        return self._read(self.path)

    def __len__(self) -> int:
        return sum(self.counts.values())

    @property
    def categories(self) -> list[str]:
        """The categories (question types) present, sorted."""
        return sorted(self.counts)

    def select(self, categories: Sequence[str] | None = None, limit: int | None = None) -> "Selection":
        """The tasks of `categories` (default all), at most `limit` per category, in file order.
        ValueError naming the choices for a category the file does not have."""
        if categories is not None:
            unknown = [c for c in categories if c not in self.counts]
            if unknown:
                raise ValueError(f"{self.path} has no questions of category '{unknown[0]}'; "
                                 f"choose from {', '.join(self.categories)}")
        return Selection(self, categories, limit)


class Selection:
    """A filtered view of an ImportedDataset; iterable any number of times, with a length."""

    def __init__(self, dataset: ImportedDataset, categories: Iterable[str] | None, limit: int | None) -> None:
        self.dataset, self.limit = dataset, limit
        self.categories = set(categories) if categories is not None else set(dataset.counts)
        self.size = sum(min(n, limit) if limit is not None else n
                        for c, n in dataset.counts.items() if c in self.categories)

    def __len__(self) -> int:
        return self.size

    def __iter__(self) -> Iterator[Task]:
        kept: Counter[str] = Counter()
        for task in self.dataset:
            if task.category in self.categories and (self.limit is None or kept[task.category] < self.limit):
                kept[task.category] += 1
                yield task


def open_dataset(spec: str) -> ImportedDataset:
    """The dataset `FORMAT:PATH`, checked; ValueError when `spec` has no known format."""
    parsed = split_spec(spec)
    if parsed is None:
        raise ValueError(f"--dataset {spec}: expected FORMAT:PATH with FORMAT one of {', '.join(FORMATS)}")
    return ImportedDataset(*parsed)


def load(spec: str) -> list[Task]:
    """Every task of `FORMAT:PATH` as a list (for small files; the bench streams instead)."""
    return list(open_dataset(spec))


__all__ = ["FORMATS", "ImportFormatError", "ImportedDataset", "Selection", "load", "open_dataset", "split_spec"]
