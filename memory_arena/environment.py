"""`load_environment` (docs/design.md, the environment): validate the arguments once, then hand them to the adapter
for the installed verifiers: the v1 Taskset API from 0.4 on, the classic API before.

The module imports nothing from verifiers at import time, so `import memory_arena` stays
cheap and works on a bare Python without verifiers (the offline, standard-library path).
"""

from __future__ import annotations

import inspect
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Iterable

from memory_arena.envs import core


def verifiers_api() -> str:
    """`"v1"` for verifiers >= 0.4, `"classic"` for older releases. Raises ImportError with
    an install hint when verifiers is missing."""
    try:
        installed = version("verifiers")
    except PackageNotFoundError:
        raise ImportError("load_environment needs verifiers: pip install 'verifiers>=0.3.1,<0.5'") from None
    parts = []
    for piece in installed.split(".")[:2]:
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits or 0))
    return "v1" if tuple(parts) >= (0, 4) else "classic"


def load_environment(**kwargs: Any):
    """Build the MemoryArena environment for the installed verifiers.

    Arguments (all optional; the defaults are `core.make_settings`'s):
        memory_tool: give the agent store_memory / retrieve_memory / list_memories.
        delivery: "full" (the whole conversation, then the question) or "stream"
            (parts of `chunk_turns` turns, only the last `window` parts kept in view).
        categories: subset of recall, update, contradiction, temporal, relational
            (a list or a comma-separated string); default all five.
        num_examples: first k tasks (categories interleaved); -1 for all.
        seed, n: regenerate n tasks per category with this seed instead of the shipped files.
        system_prompt: replaces the built-in instructions.
        chunk_turns, window: stream delivery shape (defaults in `memory_arena.envs.core`).
        memory_system: a built-in memory system (full-context, grep, bm25, dense, hybrid, minilm),
            a library adapter (mem0, chroma, qdrant), a plugin ("package.module:ClassName" or a
            name an installed package registers in the `memory_arena.systems` entry points) or
            the http(s) URL of an Add/Search service: the conversation is ingested there and
            the model sees the `top_k` memories it retrieves for the question (in the system's
            order, each with its time) instead of the conversation. Not with stream delivery
            or memory_tool.
        top_k: memories shown with `memory_system` (default 10).
        suite: "canonical" (default, the shipped 500), "long" or "forget" (docs/suites.md): an
            optional suite, generated on demand (`n` tasks per file, `seed`); `categories`
            then picks among the suite's files. Scored apart from the Memory Score.
        memory_system_options: constructor options of `memory_system`, a dict.
        any keyword the framework's environment takes: verifiers 0.3's environment constructor
            arguments (`max_turns`, `timeout_seconds`, `sampling_args`, ...); verifiers 0.4's env
            config fields (`timeout`, `retries`, `agent`, ...) and agent settings (`max_turns`,
            `max_output_tokens`, ...), merged into the environment's agent. `max_turns` overrides
            the environment's own default. Any other keyword is a ValueError naming it.
    """
    names = inspect.signature(core.make_settings).parameters
    settings = core.make_settings(**{k: kwargs.pop(k) for k in list(kwargs) if k in names})
    if verifiers_api() == "v1":
        from memory_arena.envs import v1 as adapter
    else:
        from memory_arena.envs import classic as adapter  # type: ignore[no-redef]
    check_framework_keywords(kwargs, names, *adapter.framework_keywords())
    return adapter.load_environment(settings, **kwargs)


def check_framework_keywords(kwargs: dict[str, Any], ours: Iterable[str], accepted: set[str],
                             reserved: set[str]) -> None:
    """ValueError, in one sentence naming the keyword, for the first keyword that is neither
    MemoryArena's (`ours`) nor one the installed framework's environment takes (`accepted`),
    or that MemoryArena sets itself (`reserved`: the dataset, the rubric, the tools)."""
    framework = f"verifiers {version('verifiers')}"
    for key in kwargs:
        if key in reserved:
            raise ValueError(f"load_environment: {key!r} is set by MemoryArena itself and cannot be passed")
        if key not in accepted:
            raise ValueError(f"load_environment: unknown argument {key!r}; MemoryArena takes {', '.join(ours)}, "
                             f"and {framework} environments also take {', '.join(sorted(set(accepted) - set(ours)))}")
