"""The `memory-arena` command: one subcommand per concern, each living in its own module.

Every subcommand module exposes `configure(parser)` (adds its arguments to an argparse
subparser) and `run(args) -> int` (the exit code). They are imported lazily so that
`memory-arena report` does not pay for the server's imports and vice versa.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path
from typing import Callable, Sequence

# name -> (module, one-line help). The order is the order of `memory-arena --help`.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "score": ("memory_arena.results", "Memory Score report of any result: vf-eval folder, run_offline JSON or bench output"),
    "serve": ("memory_arena.contract.server", "run the reference Add/Search memory server"),
    "check-endpoint": ("memory_arena.contract.checker", "check any Add/Search service against the contract"),
    "bench": ("memory_arena.bench", "retrieval bench of a memory system on the MemoryArena tasks"),
    "report": ("memory_arena.report", "HTML and PNG report from any MemoryArena results"),
}


class UsageParser(argparse.ArgumentParser):
    """argparse, but a usage error is one clear line on stderr and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(2)


def positive_int(text: str) -> int:
    """argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def comma_list(choices: Sequence[str], what: str) -> Callable[[str], list[str]]:
    """argparse type: a comma-separated, non-empty subset of `choices` ("recall,update")."""

    def parse(text: str) -> list[str]:
        names = [name.strip() for name in text.split(",") if name.strip()]
        unknown = [name for name in names if name not in choices]
        if unknown or not names:
            raise argparse.ArgumentTypeError(f"unknown {what} {', '.join(unknown) or repr(text)}; choose from {','.join(choices)}")
        return names

    return parse


def file_in_the_way(folder: Path) -> Path | None:
    """The file that keeps `folder` from being a folder or becoming one (`folder` itself, or
    its nearest existing parent, when that is not a folder), or None. Scripts check this
    before a long run, so that a mistyped output path fails at once and in one line."""
    for path in (folder, *folder.parents):
        if path.exists():
            return None if path.is_dir() else path
    return None


def build_parser() -> argparse.ArgumentParser:
    parser = UsageParser(prog="memory-arena", description="MemoryArena: does a memory keep the newest truth?")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=UsageParser)
    sub.required = True
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        sp = sub.add_parser(name, help=help_text, description=help_text)
        sp.set_defaults(_module=module_name)
        # configure() is called lazily below for the chosen command only.
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    # Parse the command name first, then let the chosen module add its own arguments.
    if argv and argv[0] in SUBCOMMANDS:
        module = importlib.import_module(SUBCOMMANDS[argv[0]][0])
        sp = UsageParser(prog=f"memory-arena {argv[0]}", description=SUBCOMMANDS[argv[0]][1])
        module.configure(sp)
        args = sp.parse_args(argv[1:])
        try:
            return int(module.run(args) or 0)
        except KeyboardInterrupt:  # Ctrl-C during a long bench or check: no traceback
            sys.stderr.write(f"memory-arena {argv[0]}: interrupted\n")
            return 130
        except BrokenPipeError:  # the reader went away (`| head`): nothing left to say
            # Point stdout at /dev/null so that the flush at exit does not fail a second time.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 1
    parser.parse_args(argv)  # prints help / the usage error for an unknown command
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
