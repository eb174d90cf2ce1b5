"""`longmemeval:FILE`: LongMemEval's `longmemeval_s`, `_m` and `_oracle` JSON files, original
and cleaned releases (docs/datasets.md, "LongMemEval").

The file is one array of questions, each with its own haystack: `question_id`,
`question_type`, `question`, `answer`, `question_date` ("2023/05/30 (Tue) 23:40"),
`haystack_session_ids`, `haystack_dates`, `haystack_sessions` (lists of `{role, content}`
turns; evidence turns carry `has_answer: true`) and `answer_session_ids`.

- The task's category is the `question_type`, so every metric is reported per type.
- Ids ending in `_abs` are abstention questions: LongMemEval leaves them out of its retrieval
  metrics, and so does the bench (`meta.scored` false).
- Gold sessions are the `answer_session_ids` found in the haystack, as LongMemEval's own
  retrieval evaluation finds its gold among the haystack's sessions; an answer session the
  haystack lacks is listed in `meta.gold_not_in_haystack`.
- The cleaned release drops some noisy sessions and turns and not every turn carries
  `has_answer`: a missing key means "not evidence", and a question without any evidence turn
  is scored at session level only.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Iterator

from memory_arena.importers.common import Fields, Session, build_conversation, iter_json_array, make_task, utc_ms
from memory_arena.tasks.schema import Task

FORMAT = "longmemeval"
QUESTION_TYPES = ("single-session-user", "single-session-assistant", "single-session-preference",
                  "temporal-reasoning", "knowledge-update", "multi-session")
"""The question types LongMemEval defines, in the order of its paper; others are kept as given."""

_DATE = re.compile(r"\s*(\d{4})/(\d{1,2})/(\d{1,2})\s*(?:\([A-Za-z]{3}\))?\s*(\d{1,2}):(\d{2})\s*")


def parse_date(text: str) -> int | None:
    """Unix ms (UTC) of a LongMemEval date such as "2023/05/30 (Tue) 23:40"; None if not one."""
    match = _DATE.fullmatch(text)
    if not match:
        return None
    year, month, day, hour, minute = (int(g) for g in match.groups())
    try:
        return utc_ms(datetime(year, month, day, hour, minute))
    except ValueError:  # 2023/02/30
        return None


def read(path: Path) -> Iterator[Task]:
    """The questions of `path` as tasks, in file order; ImportFormatError on the first bad field."""
    for index, record in enumerate(iter_json_array(path)):
        yield _task(Fields(path, index, record, "question_id"))


def _date(f: Fields, field: str, value: str | None = None) -> int:
    text = f.text(field, value)
    stamp = parse_date(text)
    if stamp is None:
        raise f.fail(field, f"must be a date like \"2023/05/30 (Tue) 23:40\", got {text!r}")
    return stamp


def _task(f: Fields) -> Task:
    qid = f.get("question_id", str)
    qtype = f.get("question_type", str)
    question = f.text("question")
    answer = f.text("answer")
    question_date = f.text("question_date")
    _date(f, "question_date", question_date)
    ids = f.strings("haystack_session_ids")
    dates = f.strings("haystack_dates")
    raw_sessions = f.get("haystack_sessions", list)
    if not len(ids) == len(dates) == len(raw_sessions):
        raise f.fail("haystack_sessions", f"has {len(raw_sessions)} sessions for {len(ids)} haystack_session_ids "
                                          f"and {len(dates)} haystack_dates")
    sessions = []
    for s, (sid, raw) in enumerate(zip(ids, raw_sessions)):
        turns = []
        for t, turn in enumerate(f.get(f"haystack_sessions[{s}]", list, raw)):
            where = f"haystack_sessions[{s}][{t}]"
            f.get(where, dict, turn)
            role = f.get(f"{where}.role", str, turn.get("role"))
            if role not in ("user", "assistant"):
                raise f.fail(f"{where}.role", f"must be 'user' or 'assistant', got {role!r}")
            content = f.get(f"{where}.content", str, turn.get("content"))
            flag = turn.get("has_answer", False)
            f.get(f"{where}.has_answer", bool, flag)
            turns.append((role, content, flag))
        sessions.append(Session(sid, _date(f, f"haystack_dates[{s}]", dates[s]), turns))
    answer_ids = f.strings("answer_session_ids")
    in_haystack = set(ids)
    gold = [sid for sid in dict.fromkeys(answer_ids) if sid in in_haystack]
    missing = [sid for sid in dict.fromkeys(answer_ids) if sid not in in_haystack]
    abstention = qid.endswith("_abs")
    extra = {"question_type": qtype, "question_date": question_date, "abstention": abstention}
    if missing:
        extra["gold_not_in_haystack"] = missing
    return make_task(qid, qtype, build_conversation(sessions), question, answer, FORMAT, gold,
                     scored=not abstention and bool(gold), **extra)
