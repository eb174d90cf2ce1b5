"""What the user tells: slots (home city, dog's name, employer, ...) and the many ways each
is stated, changed, asked about, and mentioned for other people (near-distractors).

Templates use `{v}` for the value and, in `other`, `{who}` for another person ("my sister",
"Tomas"). Several templates per slot, some of the update templates without the slot's noun,
so that no single regular expression solves a category.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Slot:
    """One fact about the user that can be stated, updated, corrected and asked."""

    name: str
    """Identifier recorded in `meta.slot` and in the event log."""
    kind: str
    """Value kind, a key of vocab.KINDS."""
    noun: str
    """How corrections refer to it ("the dentist appointment")."""
    state: tuple[str, ...]
    """First statements."""
    update: tuple[str, ...]
    """Natural changes; the ones without the slot's noun come last (see `bare_updates`)."""
    bare_updates: int
    """How many of the last `update` templates do not repeat the slot's noun."""
    question: tuple[str, ...]
    """Questions about the current value."""
    other: tuple[str, ...]
    """The same slot for someone else: near-distractors."""
    phrase: str = "{v}"
    """How a bare value reads inside a correction ("the {v} floor", "spot {v}")."""


SLOTS: tuple[Slot, ...] = (
    Slot(
        "home_city", "city", "where I live",
        state=("I live in {v}.", "Home for me is {v} these days.", "I'm based in {v}.",
               "We've been living in {v} for a few years now.", "My flat is in {v}, close to the old town."),
        update=("Big news: my home is now in {v}.", "My new home city is {v}.", "We changed cities, home is {v} now.",
                "I moved to {v} last month.", "We finally relocated to {v}.", "Just finished unpacking in {v}, the move is done.",
                "The movers dropped the last boxes off in {v} yesterday."),
        bare_updates=4,
        question=("Which city do I live in now?", "Where am I living these days? Just the city, please.",
                  "What city is home for me at the moment?"),
        other=("{who} lives in {v}.", "{who} just moved to {v}.", "{who} keeps telling me how much they love living in {v}."),
    ),
    Slot(
        "dog_name", "pet", "the dog's name",
        state=("My dog is called {v}.", "Our dog's name is {v}.", "We named our puppy {v}.",
               "{v}, my dog, chewed through another slipper today.", "I have a terrier named {v}."),
        update=("We ended up renaming the dog {v}.", "The dog goes by {v} now; we changed his name.",
                "We started calling him {v} instead, and it stuck.", "The kids voted and he is {v} from now on.",
                "He answers to {v} now, the old name never suited him."),
        bare_updates=3,
        question=("What is my dog's name?", "What do we call our dog now?", "Remind me, what's the name of my dog?"),
        other=("{who}'s dog is called {v}.", "{who} adopted a dog and named it {v}.", "{who} has a beagle named {v}."),
    ),
    Slot(
        "employer", "company", "where I work",
        state=("I work at {v}.", "I'm an engineer at {v}.", "My employer is {v}.", "I've been at {v} for three years."),
        update=("I just started a new job at {v}.", "My new employer is {v}.", "I accepted the offer from {v} and started this week.",
                "First week at {v} went well, everyone is friendly.", "Handed in my badge at the old place; {v} onboarding starts Monday."),
        bare_updates=3,
        question=("Which company do I work for now?", "Who is my current employer?", "Where do I work at the moment? Just the company."),
        other=("{who} works at {v}.", "{who} got a job at {v}.", "{who} interviewed at {v} last week."),
    ),
    Slot(
        "dentist", "date", "my dentist appointment",
        state=("My dentist appointment is on {v}.", "I booked the dentist for {v}.", "Dentist check-up is on {v}, I put it in my calendar."),
        update=("The dentist moved my appointment to {v}.", "I had to reschedule the dentist, it's on {v} now.",
                "The clinic called and pushed it to {v}.", "They had a cancellation, so I'm going in on {v} instead."),
        bare_updates=2,
        question=("When is my dentist appointment?", "What date am I seeing the dentist?", "On which day is my dental check-up?"),
        other=("{who} has a dentist appointment on {v}.", "{who}'s dentist visit is on {v}."),
    ),
    Slot(
        "floor", "floor", "my floor",
        state=("My apartment is on the {v} floor.", "I live on the {v} floor of my building.", "Our flat is up on the {v} floor."),
        update=("We switched units, our apartment is on the {v} floor now.", "New apartment is up on the {v} floor.",
                "We took the unit on the {v} floor when it came free.", "The lift now takes me to the {v} floor when I get home."),
        bare_updates=2,
        question=("Which floor is my apartment on?", "What floor do I live on now?"),
        other=("{who} lives on the {v} floor.", "{who}'s office is on the {v} floor."),
        phrase="the {v} floor",
    ),
    Slot(
        "car", "car", "my car",
        state=("I drive a {v}.", "My car is a {v}.", "I get around in a {v}."),
        update=("I traded in my car for a {v}.", "My new car is a {v}.", "Picked up a {v} from the dealer yesterday, the old one is gone.",
                "Sold the old one; I'm in a {v} now."),
        bare_updates=2,
        question=("What car do I drive now?", "Which car do I have at the moment?"),
        other=("{who} drives a {v}.", "{who} just bought a {v}."),
        phrase="a {v}",
    ),
    Slot(
        "running_partner", "person", "my running partner",
        state=("My running partner is {v}.", "I go running with {v} every Saturday.", "{v} and I train together for the half marathon."),
        update=("My new running partner is {v}.", "I run with {v} now.", "These days {v} joins me for the Saturday long run.",
                "{v} took over as my Saturday running buddy."),
        bare_updates=2,
        question=("Who is my running partner?", "Who do I go running with these days?"),
        other=("{who}'s running partner is {v}.", "{who} runs with {v} on weekends."),
    ),
    Slot(
        "parking_spot", "number", "my parking spot",
        state=("My parking spot is number {v}.", "I park in spot {v} at work.", "I was assigned parking space {v}."),
        update=("Building management moved me to parking spot {v}.", "My new parking space is {v}.",
                "I got moved to spot {v}.", "From now on I'm in {v}, right by the exit."),
        bare_updates=2,
        question=("What is my parking spot number?", "Which parking space is mine now?"),
        other=("{who} parks in spot {v}.", "{who}'s parking space is {v}."),
        phrase="spot {v}",
    ),
)

ACKS = ("Got it, thanks for telling me.", "Noted.", "Thanks, I'll keep that in mind.", "Understood.", "Okay, good to know.",
        "Sounds good.", "Thanks for the update.", "All right.", "Good to know!", "Okay.")
