"""MemoryArena: a deterministic benchmark and RL environment for memory-state maintenance.

The public entry point is `load_environment` (docs/design.md, the environment). For verifiers 0.4 (v1 API), `__all__`
also names the taskset, its default env and its chat harness, which verifiers resolves when
loading the id `memory-arena`. Those three are imported on first access only, so
`import memory_arena` stays cheap and needs nothing beyond the standard library.
"""

from __future__ import annotations

import importlib
from typing import Any

from memory_arena.environment import load_environment

__all__ = ["load_environment", "MemoryArenaTaskset", "MemoryArenaEnv", "MemoryArenaHarness"]

_V1_EXPORTS = {
    "MemoryArenaTaskset": "memory_arena.envs.v1",
    "MemoryArenaEnv": "memory_arena.envs.v1",
    "MemoryArenaHarness": "memory_arena.envs.v1_harness",
}


def __getattr__(name: str) -> Any:
    module_name = _V1_EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'memory_arena' has no attribute {name!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        # AttributeError, not ImportError: verifiers' plugin lookup uses getattr(..., None)
        # over __all__, and a missing optional dependency must read as "not exported".
        raise AttributeError(f"memory_arena.{name} needs verifiers>=0.4 ({exc})") from None
    try:
        return getattr(module, name)
    except AttributeError:
        # The module is still initialising (verifiers resolves the harness id while the
        # env config class is being defined); report the name as not available yet.
        raise AttributeError(f"memory_arena.{name} is not available yet") from None
