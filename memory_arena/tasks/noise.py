"""Noise: the filler between the facts that matter, and the near-distractors hidden in it.

Three kinds of filler pair (a user turn and the assistant's reply):
- small talk about food, shows, hobbies, chores, weather, everyday topics;
- typed mentions: values of the same kind as the asked slot that mean something else
  ("a friend sent me a postcard from Lyon");
- the same slot for someone else ("my sister's dog is called Pretzel").
Every value a filler pair introduces is logged in the conversation's events (`mention`,
`other`) so the distractor list is exactly what the conversation contains.
"""

from __future__ import annotations

from typing import Callable

from .common import Conversation, pick
from .slots import Slot
from .vocab import CHORES, FOODS, HOBBIES, RELATIVES, SHOWS, TOPICS, WEATHER, WEEKDAYS

SMALL_TALK: tuple[tuple[str, str], ...] = (
    ("I made {food} for dinner last night and it turned out great.", "That sounds delicious. Did you follow a recipe?"),
    ("Any tips for making {food} less bland?", "Salt in layers, a splash of acid at the end, and fresh herbs go a long way."),
    ("It's been {weather} all day here.", "Days like that are perfect for staying in with a good book."),
    ("The forecast says {weather} weather for the whole weekend.", "Might be a good weekend for indoor plans then."),
    ("I've been getting into {hobby} lately.", "That's a great way to unwind. What got you started?"),
    ("Is it too late to get into {hobby} as an adult?", "Not at all. Short, regular practice matters more than talent."),
    ("Watched {show} yesterday, it was better than I expected.", "Nice! It's always fun when something surprises you."),
    ("Can you recommend something like {show}?", "If you liked that, try something with a similar pace and a strong narrator."),
    ("I spent the whole afternoon {chore}.", "Not glamorous, but it feels good once it's done."),
    ("I keep putting off {chore}.", "Maybe set a fifteen-minute timer and just start; that usually breaks the spell."),
    ("What do you know about {topic}?", "Quite a bit. The short version: start small and stay consistent."),
    ("I read a blog post about {topic} this morning.", "Anything in it you want to try?"),
    ("How long should I steep green tea?", "About two to three minutes, with water a little below boiling."),
    ("Is it worth buying a second-hand bike?", "Often yes, if the frame is sound; budget a little for new tyres and brakes."),
    ("I can't decide whether to repaint the hallway.", "A lighter colour would make it feel bigger, if that's what bothers you."),
    ("My plants keep dropping leaves.", "Usually that's too much water or too little light; check the soil first."),
    ("What's a good stretch after sitting all day?", "Try a hip flexor stretch and a few slow cat-cow movements."),
    ("I finally finished the book I was reading.", "Congratulations! Did the ending hold up?"),
    ("How do I stop procrastinating on emails?", "Batch them: two fixed slots a day, and reply to anything under two minutes at once."),
    ("I'm thinking about learning to cook {food}.", "Good choice; it's forgiving and scales well for leftovers."),
    ("The neighbours were drilling again this morning.", "That's rough. Noise-cancelling headphones might save your mornings."),
    ("Should I get a standing desk?", "Only if you'll alternate; standing all day isn't better than sitting all day."),
    ("I had the strangest dream last night.", "Dreams can be wild. Anything you remember clearly?"),
    ("I'm trying to drink more water.", "A bottle within reach and a refill habit at each meal helps a lot."),
    ("We're planning a picnic for {day}.", "Fingers crossed for good weather. Bring something for shade."),
    ("What's the best way to store fresh herbs?", "Treat soft herbs like flowers in a glass of water; wrap hardy ones in a damp towel."),
    ("I signed up for a class on {hobby}.", "Exciting! A class is a great way to stay motivated."),
    ("My phone battery dies so fast lately.", "Check which apps use the most power; old batteries also lose capacity."),
    ("Do you have a quick lunch idea?", "A grain bowl with whatever vegetables you have and a fried egg on top."),
    ("I've been sleeping badly this week.", "A fixed wake-up time and less screen time before bed usually help."),
    ("The coffee machine at home broke.", "A simple pour-over set is cheap and makes great coffee in the meantime."),
    ("Is it too late to plant tomatoes?", "Depends on your climate; a fast-maturing variety can still make it."),
    ("I'm organising a board game night on {day}.", "Fun! Pick one easy game to warm up before anything heavy."),
    ("What's a good podcast for a long drive?", "A narrative history series makes the kilometres fly by."),
)

GENERIC_REPLIES = ("Sounds lovely.", "Ha, that's fun.", "Interesting!", "Nice.", "Oh, I see.", "That's good to hear.",
                   "Thanks for sharing.", "How nice.")

# Typed mentions: (user template, assistant template or None for a generic reply).
# `{a}` and `{b}` are values of the kind; a template with `{b}` mentions two.
MENTIONS: dict[str, tuple[tuple[str, str | None], ...]] = {
    "city": (
        ("A friend sent me a postcard from {a}.", None),
        ("I read a long article about the food scene in {a}.", None),
        ("I'm torn between {a} and {b} for a long weekend.", "Both are great; it depends on whether you want museums or the sea."),
        ("My connecting flight goes through {a}.", "Hopefully the layover is short."),
        ("Which city would you pick for a conference?", "{a} has a good conference centre, and {b} is cheaper."),
        ("There's a documentary about the old markets of {a}.", None),
    ),
    "pet": (
        ("At the park I met a poodle called {a}.", None),
        ("The café downstairs has a cat named {a} that sleeps on the counter.", "A café cat is the best kind of regular."),
        ("Give me a cute name for a hamster.", "How about {a}? Or {b}, if you want something sillier."),
        ("The rescue shelter posted photos of two puppies, {a} and {b}.", "Hopefully they find homes quickly."),
    ),
    "company": (
        ("I saw a billboard for {a} on the train.", None),
        ("There's a talk by someone from {a} next week.", "Sounds worth attending."),
        ("Who makes good project management tools?", "{a} has a popular one, and {b} is catching up."),
        ("I read that {a} is merging with {b}.", "That would shake up their market."),
    ),
    "date": (
        ("The library book is due back on {a}.", None),
        ("There's a street festival on {a}.", "That should be fun if the weather holds."),
        ("Tickets for the concert on {a} sold out, but there's another one on {b}.", "Worth grabbing the second date then."),
        ("When does spring cleaning season start?", "Many people aim for {a}, but any sunny weekend works."),
    ),
    "floor": (
        ("The gym in our office building is on the {a} floor.", None),
        ("The conference room we booked is on the {a} floor.", "Hopefully the lifts are working."),
        ("The café in the mall moved from the {a} floor to the {b} floor.", None),
    ),
    "number": (
        ("The bus I take to the market is the number {a}.", None),
        ("My gym locker this week was number {a}.", None),
        ("The hotel gave us room {a}, then moved us to {b}.", "At least they fixed it quickly."),
        ("The pharmacy queue ticket said {a}.", "Hopefully it moved fast."),
    ),
    "car": (
        ("I rented a {a} on holiday once.", None),
        ("Which is more reliable, a {a} or a {b}?", "Both have good records; check the service history more than the badge."),
        ("A {a} was parked across two spaces at the supermarket.", "Some people!"),
    ),
    "person": (
        ("I had coffee with {a} this morning.", None),
        ("{a} sent me a funny video of a goat.", "Goat videos never get old."),
        ("{a} and {b} are coming over for dinner.", "Lovely, what are you cooking?"),
        ("Who should I invite to the quiz night?", "You could ask {a}, they always know the trivia."),
    ),
}


FILLS: dict[str, tuple[str, ...]] = {"food": FOODS, "hobby": HOBBIES, "show": SHOWS, "weather": WEATHER,
                                     "chore": CHORES, "topic": TOPICS, "day": WEEKDAYS}
# The one placeholder each small-talk pair uses (or None), found once: only that value is drawn.
_FIELD = tuple(next((f for f in FILLS if "{" + f + "}" in user + assistant), None) for user, assistant in SMALL_TALK)


def small_talk(conv: Conversation) -> None:
    rng = conv.rng
    index = int(rng.random() * len(SMALL_TALK))
    user, assistant = SMALL_TALK[index]
    field = _FIELD[index]
    if field is not None:
        mark, value = "{" + field + "}", pick(rng, FILLS[field])
        user, assistant = user.replace(mark, value), assistant.replace(mark, value)
    conv.pair(user, assistant, noise=True)


def typed_mention(kind: str) -> Callable[[Conversation], None]:
    """A filler pair naming one or two values of `kind` that mean nothing about the user's slot."""

    def make(conv: Conversation) -> None:
        user, assistant = conv.rng.choice(MENTIONS[kind])
        text = user + (assistant or "")
        values = {key: conv.draw(kind) for key in ("a", "b") if "{" + key + "}" in text}
        turn = conv.pair(user.format(**values),
                         assistant.format(**values) if assistant else conv.rng.choice(GENERIC_REPLIES), noise=True)
        for value in values.values():
            conv.log(turn, {"op": "mention", "kind": kind, "value": value})

    return make


def someone_else(slot: Slot) -> Callable[[Conversation], None]:
    """The same slot stated for another person: the nearest of near-distractors."""

    def make(conv: Conversation) -> None:
        rng = conv.rng
        if rng.random() < 0.6:
            who = f"My {rng.choice(RELATIVES)}"
        else:
            who = conv.draw("person")
        value = conv.draw(slot.kind)
        turn = conv.pair(rng.choice(slot.other).format(who=who, v=value), rng.choice(GENERIC_REPLIES), noise=True)
        if not who.startswith("My "):
            conv.log(turn, {"op": "mention", "kind": "person", "value": who})
        conv.log(turn, {"op": "other", "slot": slot.name, "kind": slot.kind, "subject": who, "value": value})

    return make


def distractor_queue(conv: Conversation, slot: Slot, others: int, mentions: int) -> list[Callable[[Conversation], None]]:
    """`others` same-slot-other-person pairs and `mentions` typed mentions, in a random order."""
    queue = [someone_else(slot) for _ in range(others)] + [typed_mention(slot.kind) for _ in range(mentions)]
    conv.rng.shuffle(queue)
    return queue


class Filler:
    """The filler of one conversation: `total` turns in all, handed out gap by gap, with the
    queued distractors at pair positions drawn up front, so they spread over the whole
    conversation instead of crowding the first gap."""

    def __init__(self, conv: Conversation, total: int, queue: list[Callable[[Conversation], None]]):
        pairs = total // 2
        self.conv = conv
        self.queue = queue[:pairs]
        self.positions = set(conv.rng.sample(range(pairs), len(self.queue)))
        self.position = 0

    def add(self, turns: int) -> None:
        """Append `turns` (even) filler turns."""
        for _ in range(turns // 2):
            if self.position in self.positions:
                self.queue.pop()(self.conv)
            else:
                small_talk(self.conv)
            self.position += 1


def distractors_of(conv: Conversation, kind: str, exclude: set[str]) -> list[str]:
    """Values of `kind` the conversation's filler introduced, in order of appearance."""
    seen: list[str] = []
    for event in conv.events:
        if event["op"] in ("mention", "other") and event["kind"] == kind:
            if event["value"] not in exclude and event["value"] not in seen:
                seen.append(event["value"])
    return seen
