#!/usr/bin/env python3
"""Pretty-print MemoryArena tasks in a terminal: one per category, or one by id.

    python3 examples/sample_tasks.py                      # task 0 of each category
    python3 examples/sample_tasks.py --index 7            # task 7 of each category
    python3 examples/sample_tasks.py --id recall-0042     # one task
    python3 examples/sample_tasks.py --id update-0003 --full --data path/to/dataset

Each task shows a header (id, category, noise turns, depth, extras), the conversation (turn
index, session, role; `*` marks evidence turns, `+` the other statements about the asked
value, e.g. the superseded ones), then question, answer, aliases, stale values and
distractors. Long conversations keep their first and last turns and every marked turn, and
elide the filler in between with a count, unless --full. Standard library only.
"""

from __future__ import annotations

import argparse
import datetime
import os
import shutil
import sys
import textwrap
from pathlib import Path
from typing import Iterator

try:
    import memory_arena  # noqa: F401  (installed, or run from anywhere with the repo on the path)
except ImportError:  # running from a fresh clone: the package sits next to this folder
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory_arena.cli import UsageParser
from memory_arena.tasks.schema import CATEGORIES, DatasetError, Task, dataset_dir, iter_file

# Conversations up to this many turns are shown whole; longer ones keep EDGE turns at each end.
SHOW_ALL_UP_TO = 24
EDGE = 4
# meta keys shown in their own lines (or not at all: the event log is what the markers show).
SHOWN_ELSEWHERE = {"slot", "evidence", "stale", "distractors", "depth", "events", "generator_version", "builder_version"}
# Filler events name values in passing; every other event is a statement about the task's facts.
FILLER_OPS = {"mention", "other", "sibling", "musing"}


def find_task(folder: Path, category: str, match) -> Task | None:
    """The first task of `folder/<category>.jsonl` for which `match(index, task)` holds,
    reading only as far as needed (long-horizon files can be large)."""
    path = folder / f"{category}.jsonl"
    if not path.is_file():
        raise DatasetError(f"{path}: no such dataset file")
    for index, task in enumerate(iter_file(path)):
        if match(index, task):
            return task
    return None


def marked_turns(task: Task) -> dict[int, str]:
    """Turn index -> marker: `*` evidence, `+` another statement about the task's facts."""
    marks = {e["turn"]: "+" for e in task.meta.get("events", []) if e.get("op") not in FILLER_OPS}
    marks.update({i: "*" for i in task.evidence})
    return marks


def visible_turns(task: Task, marks: dict[int, str], full: bool) -> list[int]:
    """Indices of the turns to print: all, or the ends plus every marked turn with the other
    half of its user/assistant pair (a recap by the assistant needs the question it answers)."""
    count = len(task.turns)
    if full or count <= SHOW_ALL_UP_TO:
        return list(range(count))
    keep = set(range(EDGE)) | set(range(count - EDGE, count))
    for i in marks:
        keep.update((i, i + 1 if task.turns[i].role == "user" else i - 1))
    shown = sorted(keep)
    # Eliding a single user/assistant pair saves no space: show it instead.
    for a, b in zip(shown, shown[1:]):
        if 1 < b - a <= 3:
            keep.update(range(a + 1, b))
    return sorted(keep)


def _when(timestamp_ms: int) -> str:
    moment = datetime.datetime.fromtimestamp(timestamp_ms / 1000, datetime.timezone.utc)
    return moment.strftime("%a %d %b %Y, %H:%M UTC")


def _values(items) -> str:
    return ", ".join(str(v) for v in items) if items else "-"


def render(task: Task, width: int, full: bool = False) -> Iterator[str]:
    """The lines of one task's printout."""
    meta = task.meta
    sessions = len({t.session for t in task.turns})
    yield "=" * width
    yield f"{task.id}   category: {task.category}   noise turns: {task.noise_turns}   depth: {meta.get('depth')}"
    yield (f"{len(task.turns)} turns in {sessions} session{'s' * (sessions != 1)}   slot: {meta.get('slot')}   "
           f"generator {meta.get('generator_version')}")
    extras = [f"{k}={v}" for k, v in meta.items() if k not in SHOWN_ELSEWHERE and v is not None]
    if extras:
        yield "extras: " + ", ".join(extras)
    yield "-" * width
    marks = marked_turns(task)
    shown = visible_turns(task, marks, full)
    index_width = len(str(len(task.turns) - 1))
    prefix_width = index_width + 2 + 5 + 10 + 2  # index, session, role, marker
    starts: dict[int, int] = {}
    for turn in task.turns:
        starts.setdefault(turn.session, turn.timestamp)
    previous, session = -1, None
    for i in shown:
        if i > previous + 1:
            yield f"{'':>{index_width}}  ... {i - previous - 1} turns elided ({previous + 1}-{i - 1}) ..."
        turn = task.turns[i]
        if turn.session != session:
            session = turn.session
            yield f"{'':>{index_width}}  -- session {session}, from {_when(starts[session])} --"
        prefix = f"{i:>{index_width}}  s{turn.session:<3} {turn.role:<10}{marks.get(i, ' ')} "
        lines = textwrap.wrap(turn.content, max(20, width - prefix_width)) or [""]
        yield prefix + lines[0]
        yield from (" " * prefix_width + line for line in lines[1:])
        previous = i
    if previous < len(task.turns) - 1:
        yield f"{'':>{index_width}}  ... {len(task.turns) - 1 - previous} turns elided ..."
    if len(shown) < len(task.turns):
        yield f"({len(shown)} of {len(task.turns)} turns shown; --full shows all)"
    yield "-" * width
    yield "markers: * evidence turn   + other statement about the asked facts"
    for label, value in (("question", task.question), ("answer", task.answer), ("aliases", _values(task.aliases)),
                         ("stale", _values(task.stale)), ("distractors", _values(task.distractors))):
        yield from textwrap.wrap(value, width, initial_indent=f"{label:<12} ", subsequent_indent=" " * 13)


def build_parser() -> argparse.ArgumentParser:
    parser = UsageParser(prog="sample_tasks.py", description="Pretty-print MemoryArena tasks.")
    parser.add_argument("--id", default=None, metavar="ID", help="show this task only, e.g. recall-0042")
    parser.add_argument("--index", type=_index, default=0, help="without --id: which task of each category (default 0)")
    parser.add_argument("--data", type=Path, default=None, metavar="DIR", help="dataset folder (default: the shipped dataset)")
    parser.add_argument("--full", action="store_true", help="show every turn instead of eliding long conversations")
    parser.add_argument("--width", type=_width, default=None, help="line width (default: the terminal's, at most 120)")
    return parser


def _index(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"expected a task index (0, 1, 2, ...), got {text!r}")
    return int(text)


def _width(text: str) -> int:
    if not text.isdigit() or not 40 <= int(text) <= 400:
        raise argparse.ArgumentTypeError(f"expected a width from 40 to 400, got {text!r}")
    return int(text)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    folder = args.data if args.data is not None else dataset_dir()
    width = args.width or min(120, max(60, shutil.get_terminal_size((100, 24)).columns))
    if args.data is not None and not folder.is_dir():
        parser.error(f"{folder} is not a folder")
    if args.id is not None:
        category, _, number = args.id.rpartition("-")
        if category not in CATEGORIES or not number.isdigit():
            parser.error(f"no task {args.id!r}: ids look like recall-0042, with a category from {','.join(CATEGORIES)}")
        wanted = [(category, lambda index, task: task.id == args.id)]
    else:
        wanted = [(c, lambda index, task: index == args.index) for c in CATEGORIES]
    tasks = []
    for category, match in wanted:
        try:
            task = find_task(folder, category, match)
        except DatasetError as exc:
            parser.error(str(exc))
        if task is None:
            parser.error(f"no task {args.id if args.id else f'{category} #{args.index}'} in {folder / (category + '.jsonl')}")
        tasks.append(task)
    try:
        for task in tasks:
            print("\n".join(render(task, width, args.full)))
            print()
    except BrokenPipeError:  # `| head`: stop quietly, like other command-line tools
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
