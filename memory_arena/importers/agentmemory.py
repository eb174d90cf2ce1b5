"""`agentmemory:DIR`: the coding-agent-life pair of JSON files, `DIR/sessions.json` and
`DIR/queries.json` (docs/datasets.md, "agentmemory").

- `sessions.json`: an array of `{id, timestamp, content}`; `timestamp` is ISO 8601
  ("2026-01-01T00:00:00Z"); `content` is one string of lines, a line opening with `[user]` or
  `[assistant]` starting a message of that role, other lines continuing the message before
  (text before the first prefixed line is a user message).
- `queries.json`: an array of `{id, type, question, answer, goldSessionIds}`. Every query is
  asked of all the sessions; its category is `type`; gold is at session level only, so the
  bench scores these queries with the session metrics (the turn metrics need gold turns).

A gold session id that is no session's id is an error: the pair is read as a whole, and a
query whose gold cannot be found would score zero for a reason that is not the system's.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Iterator

from memory_arena.importers.common import (Conversation, Fields, ImportFormatError, Session, build_conversation,
                                           iter_json_array, make_task, utc_ms)
from memory_arena.tasks.schema import Task

FORMAT = "agentmemory"
SESSIONS, QUERIES = "sessions.json", "queries.json"
_PREFIX = re.compile(r"\[(user|assistant)\]\s?")


def parse_timestamp(text: str) -> int | None:
    """Unix ms of an ISO 8601 time ("2026-01-01T00:00:00Z"; no zone means UTC); None if not one."""
    try:
        return utc_ms(datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace("z", "+00:00")))
    except ValueError:
        return None


def split_messages(content: str) -> list[tuple[str, str]]:
    """(role, text) of each message of a session's content (see the module docstring)."""
    messages: list[tuple[str, list[str]]] = []
    for line in content.splitlines():
        match = _PREFIX.match(line)
        if match:
            messages.append((match.group(1), [line[match.end():]]))
        elif messages:
            messages[-1][1].append(line)
        elif line.strip():
            messages.append(("user", [line]))
    return [(role, "\n".join(lines).strip()) for role, lines in messages if "\n".join(lines).strip()]


def _sessions(path: Path) -> Conversation:
    sessions, seen = [], set()
    for index, record in enumerate(iter_json_array(path)):
        f = Fields(path, index, record, "id")
        sid = f.get("id", str)
        if sid in seen:
            raise f.fail("id", "repeats the id of an earlier session")
        seen.add(sid)
        stamp = parse_timestamp(f.get("timestamp", str))
        if stamp is None:
            raise f.fail("timestamp", f"must be an ISO 8601 time like \"2026-01-01T00:00:00Z\", got {record['timestamp']!r}")
        turns = [(role, text, False) for role, text in split_messages(f.get("content", str))]
        sessions.append(Session(sid, stamp, turns))
    if not sessions:
        raise ImportFormatError(f"{path}: no sessions")
    return build_conversation(sessions)


def read(folder: Path) -> Iterator[Task]:
    """One task per query, each over all the sessions; ImportFormatError on the first bad field."""
    if not folder.is_dir():
        raise ImportFormatError(f"{folder}: expected a folder holding {SESSIONS} and {QUERIES}")
    conversation = _sessions(folder / SESSIONS)
    known = set(conversation.session_ids)
    path = folder / QUERIES
    for index, record in enumerate(iter_json_array(path)):
        f = Fields(path, index, record, "id")
        qid = f.get("id", str)
        qtype = f.get("type", str)
        question = f.text("question")
        answer = f.text("answer")
        gold = list(dict.fromkeys(f.strings("goldSessionIds")))
        unknown = [g for g in gold if g not in known]
        if unknown:
            raise f.fail("goldSessionIds", f"names {unknown[0]!r}, which is no session of {SESSIONS}")
        yield make_task(qid, qtype, conversation, question, answer, FORMAT, gold, scored=bool(gold))
