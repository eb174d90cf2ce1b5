#!/usr/bin/env python3
"""Generate the MemoryArena dataset, or check a dataset folder.

    python3 generator.py --n 100 --seed 42 --out memory_arena/dataset   # the shipped files
    python3 generator.py --check memory_arena/dataset                    # validate a folder
    python3 generator.py --suite forget --out forget/                    # an optional suite (docs/suites.md)
    python3 generator.py --suite long --tokens 32k --out long/

Standard library only. Each task's RNG comes from a hash of (seed, category, index), so the
output is byte-identical on every machine and `--n 50` is exactly the first 50 of `--n 100`.
The shipped folder (the default `--out`) only ever holds what the default command writes:
other `--n`, `--seed` or `--max-noise` values are refused there unless `--force` is given.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from memory_arena.cli import UsageParser, comma_list, file_in_the_way, positive_int
from memory_arena.tasks import CATEGORIES, DEFAULT_MAX_NOISE, DEFAULT_N, DEFAULT_SEED, write_dataset
from memory_arena.suites import SUITE_NAMES, get_suite, write_suite
from memory_arena.suites.long import DEFAULT_QUESTIONS, TOKEN_SIZES, parse_tokens
from memory_arena.tasks.check import check_folder
from memory_arena.tasks.schema import dataset_dir




def _max_noise(text: str) -> int:
    value = positive_int(text)
    if value < 10:
        raise argparse.ArgumentTypeError(f"must be at least 10 (the shortest recall depth bucket), got {value}")
    return value


def _seed(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer seed, got {text!r}") from None


def build_parser() -> argparse.ArgumentParser:
    parser = UsageParser(prog="generator.py", description="Generate or check the MemoryArena task files.")
    parser.add_argument("--suite", choices=SUITE_NAMES, default="canonical",
                        help="canonical (the shipped 500), long or forget (docs/suites.md; default %(default)s)")
    parser.add_argument("--n", type=positive_int, default=None,
                        help=f"tasks per category (default {DEFAULT_N}); long: questions per kind and history (default {DEFAULT_QUESTIONS})")
    parser.add_argument("--seed", type=_seed, default=DEFAULT_SEED, help="dataset seed (default %(default)s)")
    parser.add_argument("--out", type=Path, default=None, help="output folder (default: the shipped memory_arena/dataset)")
    parser.add_argument("--histories", type=positive_int, default=None, help="long: histories (default 10)")
    parser.add_argument("--tokens", type=parse_tokens, default=None, metavar="SIZE",
                        help=f"long: tokens per history, {'|'.join(TOKEN_SIZES)} (default 128k)")
    parser.add_argument("--turns", type=positive_int, default=None, help="long: turns per history instead of --tokens")
    parser.add_argument("--categories", type=comma_list(CATEGORIES, "category"), default=None, metavar="A,B",
                        help="comma-separated subset of " + ",".join(CATEGORIES))
    parser.add_argument("--max-noise", type=_max_noise, default=DEFAULT_MAX_NOISE, metavar="TURNS",
                        help="most filler turns per task (default %(default)s; e.g. 1000 for long horizons)")
    parser.add_argument("--check", type=Path, metavar="DIR", help="validate DIR against the task record instead of generating")
    parser.add_argument("--force", action="store_true",
                        help="write other than the default tasks into the shipped dataset folder anyway")
    return parser


def _error(message: str) -> int:
    sys.stderr.write(f"generator.py: error: {message}\n")
    return 2


def _overwrites_shipped(out: Path, args: argparse.Namespace) -> str | None:
    """The flags that make this run write other tasks than the default command into the
    shipped folder, or None. The output is a pure function of the flags, so other values
    always mean other bytes."""
    if out.resolve() != dataset_dir().resolve():
        return None
    changed = [f"--{name.replace('_', '-')} {value}" for name, value, default in
               (("n", args.n, DEFAULT_N), ("seed", args.seed, DEFAULT_SEED), ("max_noise", args.max_noise, DEFAULT_MAX_NOISE))
               if value != default]
    return " ".join(changed) or None


def _shown(path: Path) -> str:
    """The path relative to the working folder when it lies below it, else as given."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.check is not None:
        if not args.check.is_dir():
            return _error(f"{args.check} is not a folder")
        problems = check_folder(args.check)
        if not problems:
            from memory_arena.suites.check import check_suite  # a suite's own rules, once the records are sound

            problems = check_suite(args.check)
        for problem in problems:
            print(problem)
        print(f"{len(problems)} problem(s) in {args.check}" if problems else f"{args.check}: OK")
        return 1 if problems else 0
    if args.suite != "canonical":
        return _write_suite(args)
    for flag in ("histories", "tokens", "turns"):
        if getattr(args, flag) is not None:
            return _error(f"--{flag} applies to --suite long only")
    args.n = DEFAULT_N if args.n is None else args.n
    args.categories = list(CATEGORIES) if args.categories is None else args.categories
    out = args.out if args.out is not None else dataset_dir()
    blocker = file_in_the_way(out)
    if blocker is not None:
        return _error(f"--out {out}: {blocker} is a file, not a folder")
    changed = _overwrites_shipped(out, args)
    if changed and not args.force:
        return _error(f"refusing to overwrite the shipped dataset in {_shown(out)} with other tasks than the "
                      f"default command writes ({changed}); give --out DIR for another folder, or --force")
    try:
        counts = write_dataset(out, seed=args.seed, n=args.n, categories=args.categories, max_noise=args.max_noise)
    except OSError as exc:
        return _error(f"cannot write into {_shown(out)}: {exc.strerror or exc}")
    for category, count in counts.items():
        print(f"{count:>6} tasks  {_shown(out / (category + '.jsonl'))}")
    return 0


def _write_suite(args: argparse.Namespace) -> int:
    """`--suite long|forget`: a suite folder with its manifest (docs/suites.md)."""
    given = {"categories": args.categories, "max-noise": args.max_noise if args.max_noise != DEFAULT_MAX_NOISE else None}
    if args.suite != "long":
        given.update(histories=args.histories, tokens=args.tokens, turns=args.turns)
    wrong = [flag for flag, value in given.items() if value is not None]
    if wrong:
        return _error(f"--{wrong[0]} does not apply to --suite {args.suite}")
    if args.tokens is not None and args.turns is not None:
        return _error("give --tokens or --turns, not both")
    out = args.out if args.out is not None else Path(f"memory-arena-{args.suite}")
    if out.resolve() == dataset_dir().resolve():
        return _error(f"refusing to write the {args.suite} suite into the shipped dataset folder; give --out DIR")
    blocker = file_in_the_way(out)
    if blocker is not None:
        return _error(f"--out {out}: {blocker} is a file, not a folder")
    options = {}
    if args.suite == "long":
        options = {"histories": args.histories, "tokens": args.tokens, "turns": args.turns}
        options = {k: v for k, v in options.items() if v is not None}
    try:
        write_suite(out, args.suite, seed=args.seed, n=args.n, progress=lambda line: print(line, flush=True), **options)
    except OSError as exc:
        return _error(f"cannot write into {_shown(out)}: {exc.strerror or exc}")
    print(f"suite {args.suite} ({get_suite(args.suite).version}) in {_shown(out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
