"""Code comments cite the project's own documents (docs/design.md and the other files under
docs/), never numbered sections of a document outside the repository ("SPEC §7"), which a
reader of the package cannot open."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTSIDE_SECTION = re.compile(r"§|\b(?:SPEC|[Ss]pec(?:ification)?)\s+(?:[Ss]ection\s+)?\d|\b[Ss]ection\s+\d+(?:\.\d+)*\b")


def test_no_comment_cites_a_numbered_section_of_an_outside_document():
    offenders = []
    for folder in ("memory_arena", "tests", "benchmarks", "examples"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if OUTSIDE_SECTION.search(line) and path.name != "test_doc_citations.py":
                    offenders.append(f"{path.relative_to(ROOT)}:{lineno}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def test_the_design_document_is_in_the_repository():
    text = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    for heading in ("## Layout and data flow", "## The task record", "## Scoring", "## The environment",
                    "### The Add/Search contract", "### The retrieval bench"):
        assert heading in text, heading
