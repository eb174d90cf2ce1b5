"""A server worker keeps its cache out of the garbage collector's full collections
(contract/heap.py): after loading users, the objects a full collection would scan do not grow
with the users cached, garbage cycles made before a load are still collected, and a service
that is a library object in a larger program leaves the collector alone; a worker settles after
each load of new messages and only then."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path
from typing import Iterator

import pytest

pytest.importorskip("bm25s", reason="the reference server's default backend needs bm25s")

from memory_arena.contract.server import MemoryService  # noqa: E402
from memory_arena.contract.store import SQLiteStore  # noqa: E402
from memory_arena.contract.validation import validate_add  # noqa: E402

USERS = 60
MESSAGES = 12


@pytest.fixture
def collector() -> Iterator[None]:
    """Automatic collections off (so that only the code under test collects) and, afterwards,
    the test process's collector as it was."""
    gc.disable()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.enable()


def _service(tmp_path: Path, settle_heap: bool) -> MemoryService:
    store = SQLiteStore(tmp_path / f"settle-{settle_heap}.sqlite3")
    store.commit_batch([validate_add({
        "request_id": "r", "user_id": f"u{user}", "session_id": "s",
        "messages": [{"role": "user", "content": f"my dog number {i} is called Rex {user}"} for i in range(MESSAGES)],
    }) for user in range(USERS)])
    return MemoryService(store, "bm25", settle_heap=settle_heap)


def _scanned_growth(service: MemoryService) -> int:
    """How many more objects a full collection scans once every user is loaded and cached."""
    gc.collect()
    before = len(gc.get_objects())  # the tracked objects of generations 0-2, not the frozen ones
    for user in range(USERS):
        assert service.search(f"u{user}", "dog", 3)
    gc.collect()
    return len(gc.get_objects()) - before


def test_a_worker_cache_is_out_of_full_collections(tmp_path: Path, collector: None) -> None:
    library = _service(tmp_path, settle_heap=False)
    worker = _service(tmp_path, settle_heap=True)
    # Without settling, every cached record is scanned by each full collection...
    assert _scanned_growth(library) > USERS * MESSAGES
    # ...with it, what a worker caches is frozen right after it is loaded.
    assert _scanned_growth(worker) < USERS
    assert gc.get_freeze_count() > USERS * MESSAGES


def test_garbage_cycles_are_collected_before_a_load_is_frozen(tmp_path: Path, collector: None) -> None:
    worker = _service(tmp_path, settle_heap=True)

    class Node:
        pass

    cycle = Node()
    cycle.self = cycle  # type: ignore[attr-defined]
    alive = weakref.ref(cycle)
    del cycle  # unreachable now, but only the cycle collector can free it
    assert alive() is not None
    worker.search("u0", "dog", 3)  # loads u0, then settles
    assert alive() is None


def test_a_worker_settles_after_each_load_and_only_then(tmp_path: Path, collector: None,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from memory_arena.contract import heap

    calls: list[int] = []
    monkeypatch.setattr(heap, "settle", lambda: calls.append(1))
    worker = _service(tmp_path, settle_heap=True)
    worker.search("u0", "dog", 3)
    assert len(calls) == 1  # u0 loaded
    worker.search("u0", "dog", 3)
    assert len(calls) == 1  # its version did not move: nothing loaded
    worker._store.commit_batch([validate_add({"request_id": "r2", "user_id": "u0", "session_id": "s",
                                              "messages": [{"role": "user", "content": "one more"}]})])
    worker.search("u0", "dog", 3)
    assert len(calls) == 2  # the new message loaded
    library = _service(tmp_path, settle_heap=False)
    library.search("u1", "dog", 3)
    assert len(calls) == 2
