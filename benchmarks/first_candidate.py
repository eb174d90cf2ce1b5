#!/usr/bin/env python3
"""What a model that trusts the memory system's order scores with each system (docs/timeline.md,
"End to end"), on every task of update, contradiction and temporal.

The reply rule is the scripted model's of tests/test_env_timeline.py (`first_candidate`): it
answers with the first value of the asked fact (the answer, its aliases, the superseded
values) that it reads in the memories the system retrieved, shown as the environment shows
them; the reply is scored by the task's own scorer. That test runs the rule through the real
`vf-eval` on five tasks per category; this script applies it in process to all of them.

    python benchmarks/first_candidate.py [--systems hybrid,timeline] [--dataset DIR] [--k 10]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the scripted model's reply rule

from scripted_server import first_candidate  # noqa: E402
from vf_eval_runner import scripted_reply  # noqa: E402

from memory_arena.envs import core  # noqa: E402
from memory_arena.systems import MissingExtra, build_system, check_name, retrieve_for_task  # noqa: E402
from memory_arena.tasks.schema import load_tasks  # noqa: E402
from memory_arena.verifier.scoring import score  # noqa: E402

CATEGORIES = ("update", "contradiction", "temporal")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", default="hybrid,timeline", help="comma-separated built-in systems")
    parser.add_argument("--dataset", default=None, help="folder of <category>.jsonl (default: the shipped set)")
    parser.add_argument("--k", type=int, default=10, help="memories retrieved per question (default 10)")
    args = parser.parse_args()
    names = [n.strip() for n in args.systems.split(",") if n.strip()]
    try:
        for name in names:
            check_name(name)
        tasks = load_tasks(args.dataset, CATEGORIES)
        systems = {name: build_system(name) for name in names}
    except (ValueError, OSError, MissingExtra) as exc:
        print(f"first_candidate: {exc}", file=sys.stderr)
        return 2
    print(f"{len(tasks)} tasks, K = {args.k}; correct replies of the model that answers with the first candidate")
    print(f"{'system':<12}" + "".join(f"{c:>15}" for c in CATEGORIES))
    for name, system in systems.items():
        settings = core.make_settings(memory_system=name)
        correct = dict.fromkeys(CATEGORIES, 0.0)
        total = dict.fromkeys(CATEGORIES, 0)
        for task in tasks:
            shown = core.memories_text(retrieve_for_task(system, task, args.k))
            reply = scripted_reply(first_candidate(shown, [task.answer, *task.aliases, *task.stale]), settings)
            correct[task.category] += score(task, reply).value
            total[task.category] += 1
        print(f"{name:<12}" + "".join(f"{f'{correct[c]:g} / {total[c]}':>15}" for c in CATEGORIES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
