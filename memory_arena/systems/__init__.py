"""Memory systems (SPEC §10): the adapter interface, the built-in systems, and the glue that
feeds a task to any of them.

`build_system(name_or_url)` is the one way to get a system: a name from `SYSTEMS`, or an
`http://` / `https://` base URL of any Add/Search service. The registry is explicit and
imports each system's module only when it is built, so that `grep` needs nothing beyond
the standard library and `dense` pulls in its model only when asked for.
"""

from __future__ import annotations

import importlib
from typing import Any

from memory_arena.systems.base import Memory, MemorySystem, Message
from memory_arena.systems.extras import MissingExtra, require
from memory_arena.systems.ingest import ingest_task, retrieve_for_task, task_sessions, task_user_id

# name -> (module, class). The order is the order of the scorecard and of `--help`.
SYSTEMS: dict[str, tuple[str, str]] = {
    "full-context": ("memory_arena.systems.full_context", "FullContextSystem"),
    "grep": ("memory_arena.systems.grep", "GrepSystem"),
    "bm25": ("memory_arena.systems.bm25", "BM25System"),
    "dense": ("memory_arena.systems.dense", "DenseSystem"),
    "hybrid": ("memory_arena.systems.hybrid", "HybridSystem"),
}

# name -> (the extra that brings them, the optional modules a system imports), checked before
# its module is imported, so that a missing one is a `pip install` hint and not a bare
# "No module named 'numpy'" from the module's first line.
NEEDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "bm25": ("bm25", ("numpy", "bm25s")),
    "dense": ("dense", ("numpy", "model2vec")),
    "hybrid": ("dense", ("numpy", "bm25s", "model2vec")),
}
URL_EXTRA = ("server", ("httpx",))


def is_url(name: str) -> bool:
    return name.startswith(("http://", "https://"))


def check_name(name: Any) -> None:
    """Raise ValueError naming the choices unless `name` is a registry name or a URL."""
    if not isinstance(name, str) or not (is_url(name) or name in SYSTEMS):
        raise ValueError(f"unknown memory system {name!r}; choose from {', '.join(SYSTEMS)} "
                         "or give an http:// URL of an Add/Search service")


def build_system(name: str, **kw: Any) -> MemorySystem:
    """A fresh system by registry name, or an `http` client when `name` is a URL (keyword
    arguments go to the system's constructor, e.g. `api_key=` for `http`). Raises
    ValueError naming the choices for an unknown name, and `extras.MissingExtra` (one line
    with the `pip install` that fixes it) when an optional package is missing."""
    check_name(name)
    extra, modules = URL_EXTRA if is_url(name) else NEEDS.get(name, ("", ()))
    for module in modules:
        require(module, extra, f"the {'http' if is_url(name) else name} memory system")
    if is_url(name):
        from memory_arena.systems.http import HttpSystem

        return HttpSystem(name, **kw)
    module_name, class_name = SYSTEMS[name]
    return getattr(importlib.import_module(module_name), class_name)(**kw)


__all__ = ["SYSTEMS", "Memory", "MemorySystem", "Message", "MissingExtra", "build_system", "check_name", "ingest_task", "is_url",
           "retrieve_for_task", "task_sessions", "task_user_id"]
