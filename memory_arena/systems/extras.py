"""Optional extras: import what an extra provides, or fail with one line naming the
`pip install` that brings it.

Every command and system that needs an optional package goes through `require`, so a
missing package reads the same everywhere ("the bm25 system needs the optional extra: pip
install 'memory-arena[bm25]' (bm25s is not installed)") instead of a bare "No module
named ...". The extras themselves are declared in `pyproject.toml`.
"""

from __future__ import annotations

import importlib
from types import ModuleType


class MissingExtra(ImportError):
    """An optional package is not installed; the message says which extra brings it."""


def hint(needed_by: str, extra: str, missing: str) -> str:
    """The one-line message of a missing extra."""
    return f"{needed_by} needs the optional extra: pip install 'memory-arena[{extra}]' ({missing} is not installed)"


def require(module: str, extra: str, needed_by: str) -> ModuleType:
    """`module`, imported; MissingExtra naming `extra` when it is not installed.

    Only the absence of `module` itself (or of its top-level package) is a missing extra:
    an ImportError raised from inside an installed package is a broken install, and is
    re-raised as it is so that its traceback is not hidden behind a wrong hint."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        top = module.split(".")[0]
        if exc.name not in (module, top):
            raise
        raise MissingExtra(hint(needed_by, extra, top)) from None
