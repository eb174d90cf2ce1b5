"""A MemoryArena memory system in 30 lines: SQLite's full-text search (FTS5, standard library).

    memory-arena bench --system fts_memory:FtsMemory          # with this folder on PYTHONPATH
    memory-arena bench --system sqlite-fts                    # after `pip install examples/memory_plugin`
    memory-arena bench --system sqlite-fts --system-option path=memories.sqlite3
"""

import re
import sqlite3

from memory_arena.systems import MemorySystem


class FtsMemory(MemorySystem):
    name = "sqlite-fts"

    def __init__(self, path: str = ":memory:") -> None:
        self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)  # autocommit
        self.db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS memories USING fts5(content, user_id UNINDEXED, at UNINDEXED)")

    def add(self, user_id, session_id, messages):
        self.db.executemany("INSERT INTO memories VALUES (?, ?, ?)",
                            [(m["content"], user_id, m.get("timestamp")) for m in messages])

    def search(self, user_id, query, top_k):
        words = re.findall(r"\w+", query.lower())  # any query word; BM25 weighs the rare ones
        if not words:
            return []
        rows = self.db.execute("SELECT rowid, content, bm25(memories), at FROM memories WHERE memories MATCH ? "
                               "AND user_id = ? ORDER BY bm25(memories), rowid DESC LIMIT ?",
                               (" OR ".join(f'"{w}"' for w in words), user_id, top_k))
        return [{"id": str(i), "content": c, "score": -s, "created_at": at} for i, c, s, at in rows]

    def reset(self, user_id=None):
        self.db.execute("DELETE FROM memories" + ("" if user_id is None else " WHERE user_id = ?"),
                        () if user_id is None else (user_id,))

    def close(self):
        self.db.close()
