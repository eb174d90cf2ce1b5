"""`locomo:FILE`: LoCoMo's `locomo10.json` (docs/datasets.md, "LoCoMo").

The file is one array of samples `{sample_id, conversation, qa, ...}` (event summaries and
observations are ignored). `conversation` holds `speaker_a`, `speaker_b`, the sessions
`session_N` (lists of `{speaker, dia_id, text}`, some turns with an image's `blip_caption`)
and their times `session_N_date_time` ("1:56 pm on 8 May, 2023"). Each `qa` item
`{question, answer, evidence, category}` becomes one task over its sample's conversation.

- Roles: `speaker_a` speaks as `user`, everyone else as `assistant`; each turn's content is
  "<speaker>: <text>" so that names stay searchable, and a shared image adds
  " [shares <caption>]", as LoCoMo's own retrieval setup puts captions into the text.
- Categories are named by the numbering of LoCoMo's official evaluation code: 1 multi-hop,
  2 temporal, 3 open-domain, 4 single-hop, 5 adversarial. Harnesses disagree about this
  numbering; this is the one the dataset's authors use.
- Adversarial items (category 5) may carry `adversarial_answer` instead of `answer`: the
  answer is then empty and the misleading one is kept as `meta.adversarial_answer`.
- Evidence: the public file has ids that are malformed ("D", "D:3"), several ids in one string
  ("D8:6; D9:17"), or ids of no turn. Each string is split on `;`, `,` and white space; a
  piece that is not `D<session>:<turn>` of an existing turn is dropped and listed in
  `meta.dropped_evidence`. Gold sessions are the sessions of the kept evidence turns; a
  question with no evidence left is not scored (`meta.scored` false), and the bench counts it.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any, Iterator

from memory_arena.importers.common import (Conversation, Fields, Session, build_conversation, iter_json_array,
                                           make_task, utc_ms)
from memory_arena.tasks.schema import Task

FORMAT = "locomo"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
"""Category numbers as LoCoMo's official evaluation code uses them."""

_MONTHS = {m: i for i, m in enumerate(("january", "february", "march", "april", "may", "june", "july", "august",
                                       "september", "october", "november", "december"), 1)}
_DATE = re.compile(r"\s*(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*", re.IGNORECASE)
_SESSION = re.compile(r"session_(\d+)")
_DIA_ID = re.compile(r"D(\d+):(\d+)")
_EVIDENCE_SPLIT = re.compile(r"[;,\s]+")


def parse_date(text: str) -> int | None:
    """Unix ms (UTC) of a LoCoMo time such as "1:56 pm on 8 May, 2023"; None if not one."""
    match = _DATE.fullmatch(text)
    if not match:
        return None
    hour, minute, half, day, month, year = match.groups()
    month_number = _MONTHS.get(month.casefold())
    hour_number = int(hour) % 12 + (12 if half.casefold() == "pm" else 0)
    if month_number is None or int(hour) > 12:
        return None
    try:
        return utc_ms(datetime(int(year), month_number, int(day), hour_number, int(minute)))
    except ValueError:
        return None


def read(path: Path) -> Iterator[Task]:
    """One task per qa item of every sample of `path`; ImportFormatError on the first bad field."""
    for index, record in enumerate(iter_json_array(path)):
        yield from _sample_tasks(Fields(path, index, record, "sample_id"))


def _conversation(f: Fields) -> tuple[Conversation, dict[tuple[int, int], int]]:
    """The conversation, and each dia_id's (session, turn) numbers -> turn index."""
    conv = f.get("conversation", dict)
    speaker_a = f.get("conversation.speaker_a", str, conv.get("speaker_a"))
    f.get("conversation.speaker_b", str, conv.get("speaker_b"))
    numbers = sorted(int(m.group(1)) for key in conv if (m := _SESSION.fullmatch(key)))
    sessions, dia_ids = [], []
    for n in numbers:
        key = f"conversation.session_{n}"
        when = f.text(f"{key}_date_time", conv.get(f"session_{n}_date_time"))
        start = parse_date(when)
        if start is None:
            raise f.fail(f"{key}_date_time", f"must be a time like \"1:56 pm on 8 May, 2023\", got {when!r}")
        turns = []
        for t, turn in enumerate(f.get(key, list, conv[f"session_{n}"])):
            where = f"{key}[{t}]"
            f.get(where, dict, turn)
            speaker = f.get(f"{where}.speaker", str, turn.get("speaker"))
            text = f.text(f"{where}.text", turn.get("text"))
            dia_ids.append(f.get(f"{where}.dia_id", str, turn.get("dia_id")))
            caption = turn.get("blip_caption")
            content = f"{speaker}: {text}" + (f" [shares {caption}]" if isinstance(caption, str) and caption else "")
            turns.append(("user" if speaker == speaker_a else "assistant", content, False))
        sessions.append(Session(f"session_{n}", start, turns))
    if not sessions:
        raise f.fail("conversation", "has no session_N lists")
    conversation = build_conversation(sessions)
    index: dict[tuple[int, int], int] = {}
    flat = 0
    for i, session in enumerate(sessions):
        for t in range(len(session.turns)):
            match = _DIA_ID.fullmatch(dia_ids[flat].strip())
            if match:  # the first turn wins when a dia_id repeats
                index.setdefault((int(match.group(1)), int(match.group(2))), conversation.first_turn[i] + t)
            flat += 1
    return conversation, index


def _sample_tasks(f: Fields) -> Iterator[Task]:
    sample_id = f.get("sample_id", str)
    conversation, turn_of = _conversation(f)
    tasks = []
    for j, item in enumerate(f.get("qa", list)):
        where = f"qa[{j}]"
        f.get(where, dict, item)
        number = f.get(f"{where}.category", int, item.get("category"))
        if number not in CATEGORIES:
            raise f.fail(f"{where}.category", f"must be 1 to 5, got {number}")
        question = f.text(f"{where}.question", item.get("question"))
        answer = f.text(f"{where}.answer", item.get("answer"), required=False)
        adversarial = f.text(f"{where}.adversarial_answer", item.get("adversarial_answer"), required=False)
        if answer is None and adversarial is None:
            raise f.fail(f"{where}.answer", "is missing (and there is no adversarial_answer)")
        evidence, dropped = _evidence(f, f"{where}.evidence", item.get("evidence", []), turn_of)
        session_of = [t.session for t in conversation.turns]
        gold = list(dict.fromkeys(conversation.session_ids[session_of[i]] for i in sorted(evidence)))
        extra: dict[str, Any] = {"locomo_category": number, "sample_id": sample_id}
        if adversarial is not None:
            extra["adversarial_answer"] = adversarial
        if dropped:
            extra["dropped_evidence"] = dropped
        tasks.append(make_task(f"{sample_id}-q{j:03d}", CATEGORIES[number], conversation, question, answer or "",
                               FORMAT, gold, scored=bool(evidence), evidence=sorted(evidence), **extra))
    yield from tasks  # only once the whole sample is read: a bad qa item must not follow good ones out


def _evidence(f: Fields, field: str, value: Any, turn_of: dict[tuple[int, int], int]) -> tuple[set[int], list[str]]:
    """The evidence turn indices and the pieces dropped (see the module docstring)."""
    kept: set[int] = set()
    dropped: list[str] = []
    for piece in (p for text in f.strings(field, value) for p in _EVIDENCE_SPLIT.split(text) if p):
        match = _DIA_ID.fullmatch(piece)
        turn = turn_of.get((int(match.group(1)), int(match.group(2)))) if match else None
        if turn is None:
            dropped.append(piece)
        else:
            kept.add(turn)
    return kept, dropped
