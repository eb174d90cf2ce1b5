"""The README's scoring examples are what the scorer really does (docs that cannot drift)."""

from __future__ import annotations

import re
from pathlib import Path

from memory_arena.verifier.scoring import WORD_LIMIT, score

README = Path(__file__).resolve().parent.parent / "README.md"


def example_rows():
    text = README.read_text(encoding="utf-8")
    table = text[text.index("| reply | verdict |"):]
    table = table[: table.index("\n\n")]
    rows = []
    for line in table.splitlines()[2:]:
        reply_cell, verdict_cell = line.strip("|").split("|")[:2]
        reply = re.search(r"`([^`]*)`", reply_cell)
        reason = re.search(r"`(\w+)`", verdict_cell)
        rows.append((reply.group(1) if reply else reply_cell.strip(), reason.group(1)))
    return text, rows


def test_readme_scoring_examples(tasks_by_id):
    text, rows = example_rows()
    answer = re.search(r"answer `([^`]+)`", text[text.index("Examples for"):]).group(1)
    task = next(t for t in tasks_by_id.values() if t.answer == answer and t.category == "update")
    assert len(rows) >= 8
    for reply, reason in rows:
        if reply.startswith("a 40-word paragraph"):
            reply = " ".join(["word"] * 38) + " " + answer
            assert 38 >= WORD_LIMIT
        assert score(task, reply).reason == reason, reply


def test_readme_states_the_word_limit():
    assert f"at most **{WORD_LIMIT} words**" in README.read_text(encoding="utf-8")
