#!/usr/bin/env python3
"""What a full in-context run costs a model: prompt tokens of all tasks in full delivery.

No offline tokenizer ships with the standard library (and none may be downloaded), so tokens
are estimated two ways and both are printed: characters / 4, and words x 4/3, the usual rules
of thumb for English BPE tokenizers, plus 4 tokens of chat-template overhead per message.

    python3 benchmarks/prompt_tokens.py [--data DIR]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memory_arena.tasks.schema import CATEGORIES, DatasetError, load_tasks  # noqa: E402

PER_MESSAGE = 4


def estimate(texts: list[str]) -> tuple[int, int]:
    chars = sum(len(t) for t in texts)
    words = sum(len(t.split()) for t in texts)
    overhead = PER_MESSAGE * len(texts)
    return chars // 4 + overhead, words * 4 // 3 + overhead


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None, help="dataset folder (default: shipped)")
    args = parser.parse_args()
    try:
        tasks = load_tasks(args.data)
    except DatasetError as exc:
        parser.error(str(exc))
    print(f"{'category':<14}{'tasks':>6}{'messages':>10}{'tokens (chars/4)':>18}{'tokens (words*4/3)':>20}{'max per task':>14}")
    totals = [0, 0, 0, 0]
    for category in CATEGORIES:
        group = [t for t in tasks if t.category == category]
        texts = [[turn.content for turn in t.turns] + [t.question] for t in group]
        per_task = [estimate(x)[0] for x in texts]
        a, b = estimate([s for x in texts for s in x])
        messages = sum(len(x) for x in texts)
        print(f"{category:<14}{len(group):>6}{messages:>10}{a:>18,}{b:>20,}{max(per_task):>14,}")
        totals = [totals[0] + len(group), totals[1] + messages, totals[2] + a, totals[3] + b]
    print(f"{'all':<14}{totals[0]:>6}{totals[1]:>10}{totals[2]:>18,}{totals[3]:>20,}")
    print("(system prompt not included: add its tokens once per task)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
