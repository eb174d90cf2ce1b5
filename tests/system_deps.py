"""The optional packages each built-in memory system needs, so that a test of a system
skips with a reason, rather than fails, where its extra is not installed."""

from __future__ import annotations

import pytest

from memory_arena.systems import NEEDS, MemorySystem, build_system


def require(name: str) -> None:
    """Skip the calling test unless system `name` can be built here."""
    for module in NEEDS.get(name, ("", ()))[1]:
        pytest.importorskip(module, reason=f"the {name} system needs {module} (an optional extra)")


def built(name: str) -> MemorySystem:
    require(name)
    return build_system(name)
