"""Shared fixtures: the shipped dataset, loaded once per session."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # tests run from a checkout without installing the package
    sys.path.insert(0, str(ROOT))

from memory_arena.tasks.schema import load_tasks  # noqa: E402


@pytest.fixture(scope="session")
def shipped_tasks():
    return load_tasks()


@pytest.fixture(scope="session")
def tasks_by_id(shipped_tasks):
    return {t.id: t for t in shipped_tasks}
