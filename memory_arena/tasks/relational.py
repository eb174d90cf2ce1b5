"""relational: the reporting lines of a small org chart, stated out of order in mixed
phrasing; the question needs one to three hops (manager, skip-level, top of the chain).

The chart is a tree, so every question has exactly one correct answer by construction. The
default set has no re-orgs, so a reader that keeps the first statement still solves it.
Chart names also turn up in unrelated filler ("Sam brought cake to the office").
"""

from __future__ import annotations

import random

from . import noise
from .common import BuildConfig, Conversation, even_between, split_total
from .schema import Task
from .vocab import FOODS

NAME = "relational"
VERSION = 1
KINDS = ("manager", "skip_level", "top")

EDGE = ("{e} reports to {m}.", "{m} is {e}'s manager.", "{e}'s manager is {m}.", "{m} manages {e}.",
        "{e} works directly under {m}.", "{m} has {e} as a direct report.",
        "On our org chart, {e} sits right below {m}.", "{e}'s boss is {m}.")
EDGE_INTRO = ("Some context on my new team at work: ", "Still learning who is who at work. ", "", "", "")
QUESTIONS = {
    "manager": ("Who is {p}'s direct manager?", "Who does {p} report to?"),
    "skip_level": ("Who is {p}'s skip-level manager, that is, their manager's manager?",
                   "Who does {p}'s manager report to?"),
    "top": ("Who is at the top of {p}'s reporting chain?",
            "If you follow {p}'s reporting line all the way up, who is at the top?"),
}
CHART_SMALL_TALK = ("{n} brought homemade {food} to the team lunch.", "{n} and I got stuck in the lift for ten minutes.",
                    "{n} is running a marathon next month.", "{n} recommended {food} at the new canteen.")
ACK = ("Got it.", "Okay, noted.", "Thanks, that helps me keep track.", "Understood.")


def _chart(rng: random.Random, depth: int, size: int) -> dict[int, int]:
    """A random tree over nodes 0..size-1 rooted at 0 with a path of exactly `depth` edges
    from node `depth` up to the root: returns child -> parent."""
    parent = {i: i - 1 for i in range(1, depth + 1)}  # the spine 0 <- 1 <- ... <- depth
    level = {i: i for i in range(depth + 1)}
    for node in range(depth + 1, size):
        up = rng.choice([n for n in level if level[n] < 3])  # keep the chart at most four levels deep
        parent[node] = up
        level[node] = level[up] + 1
    return parent


def build(rng: random.Random, index: int, config: BuildConfig) -> Task:
    kind = KINDS[index % len(KINDS)]
    hops = {"manager": 1, "skip_level": 2, "top": rng.choice((2, 3))}[kind]
    # The subject sits `depth` levels down; for manager/skip questions there may be more above.
    depth = hops if kind == "top" else rng.randint(hops, 3)
    size = rng.randint(6, 9)
    parent = _chart(rng, depth, size)
    conv = Conversation(rng)
    names = [conv.draw("person") for _ in range(size)]
    subject = depth
    chain = [subject]
    while chain[-1] in parent and len(chain) <= hops:
        chain.append(parent[chain[-1]])
    answer = names[chain[hops]]
    edges = list(parent.items())
    rng.shuffle(edges)
    total = even_between(rng, 8, config.max_noise)
    gaps = split_total(rng, total, len(edges) + 1)
    # Chart names reused in small talk, plus outside names: distractors of the person kind.
    queue = [noise.typed_mention("person") for _ in range(rng.randint(2, 4))]
    queue += [_chart_name_small_talk(names[rng.randrange(size)]) for _ in range(rng.randint(1, 3))]
    rng.shuffle(queue)
    filler = noise.Filler(conv, total, queue)
    edge_turn: dict[int, int] = {}
    for (child, boss), gap in zip(edges, gaps):
        filler.add(gap)
        text = rng.choice(EDGE_INTRO) + rng.choice(EDGE).format(e=names[child], m=names[boss])
        edge_turn[child] = conv.fact(text, {"op": "reports_to", "kind": "person", "employee": names[child], "manager": names[boss]},
                                     assistant=rng.choice(ACK))
    filler.add(gaps[-1])
    question = rng.choice(QUESTIONS[kind]).format(p=names[subject])
    outsiders = noise.distractors_of(conv, "person", set(names))
    return conv.task(
        category=NAME, index=index, question=question, answer=answer, aliases=[],
        slot="manager_chain", evidence=[edge_turn[n] for n in chain[:hops]], stale=[],
        distractors=[n for n in names if n != answer] + outsiders, builder_version=VERSION,
        subject=names[subject], question_kind=kind, hops=hops,
    )


def _chart_name_small_talk(name: str):
    def make(conv: Conversation) -> None:
        text = conv.rng.choice(CHART_SMALL_TALK).format(n=name, food=conv.rng.choice(FOODS))
        conv.pair(text, conv.rng.choice(noise.GENERIC_REPLIES), noise=True)

    return make
