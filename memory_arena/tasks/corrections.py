"""The words of a correction, shared by the user's own corrections (contradiction tasks) and by
decoys that correct someone else's value, so that the form of a correction never tells whose
value it fixes: only the value it names does (docs/design.md, "Generator 2.0").

`{new}` and `{old}` are values in the slot's phrase ("the 12th floor"), `{noun}` how the fixed
value is referred to ("where I live", "where my sister lives").
"""

from __future__ import annotations

from .slots import Slot

DIRECT = ("Actually it's {new}, not {old}.", "Sorry, I got {noun} wrong earlier: it's {new}, not {old}.",
          "Correction: {new}, not {old}. I mixed it up.",
          "I need to fix something I told you about {noun}: it's actually {new}. {old} was a mistake.",
          "Hold on, I misremembered {noun}. Not {old}, {new}.")
SCRATCH = ("Scratch that, it's {new}.", "Wait, no. Scratch that: {new}.", "Ignore what I just said, it's {new}.",
           "Oops, I meant {new}.")
RECAP_ASK = ("Can you recap what I told you about {noun}?", "Quick check: what do you have down for {noun}?",
             "Remind me what I said about {noun}?", "What did I tell you about {noun} again?",
             "Could you read back what you have for {noun}?", "Do you remember what I said about {noun}?",
             "What's in your notes about {noun}?", "Sorry, what did I say about {noun}?")
"""Each asked at most once in a conversation: enough of them that someone else's values are recapped
and corrected as often as the user's."""
RECAP_SAY = ("You told me {old}.", "My notes say {old}.", "From what you said earlier: {old}.")
RECAP_FIX = ("No, that's wrong, it's {new}. I misspoke before.", "Not quite. It's {new}, I said the wrong thing earlier.",
             "That's not right: {new}, not {old}.")
AGAIN = ("Ugh, I was wrong again about {noun}. It's {new}, not {old}.", "Sorry, one more fix on {noun}: not {old} either, it's {new}.",
         "Let me correct my correction about {noun}: it's {new}.")


def fill(slot: Slot, template: str, new: str = "", old: str = "", noun: str | None = None) -> str:
    """A correction template with its values in the slot's phrase and the noun (default: the user's)."""
    return template.format(new=slot.phrase.format(v=new), old=slot.phrase.format(v=old),
                           noun=slot.noun if noun is None else noun)
