"""Every accepted surface form of a vocabulary value, and the common English words no form may be.

`value_forms(value)` recognises the kind of a value from the pools in `vocab.py` and returns the
value first, then the other spellings a careful human grader accepts for it: a company's short
name ("Northwind Labs" -> "Northwind"), a car's model alone, hyphen-free and well-known
alternative names ("Mazda MX-5" -> "MX-5", "MX5", "Mazda MX5", "Mazda Miata", "Miata"), a date
day-first and with ordinals ("June 15" -> "15 June", "June 15th", "15th of June"), a floor as
ordinal, word and "floor N" ("19th" -> "19th floor", "nineteenth floor", "floor 19", "floor
nineteen", "nineteenth", "19"), and a city's well-known other names ("Bangalore" ->
"Bengaluru"). A value outside the vocabulary has only itself.

No form other than the value itself is a word in COMMON_WORDS: a bare "second" for the 2nd
floor, "Leaf" for the Nissan Leaf or "Golf" for the Volkswagen Golf would also match ordinary
speech ("a second-hand bike", "a leaf", "golf on Sunday"), so those values are named in full
(docs/design.md, scoring). The generator fills a task's aliases with `value_forms(answer)[1:]`;
the scorer also uses the forms of superseded values and distractors, so a reply that names an
old value by its short form or another name is still seen naming it. Standard library only.
"""

from __future__ import annotations

from functools import lru_cache

from . import vocab

# Everyday English words, lowercase: function words, the most frequent nouns, verbs and
# adjectives, and every word that one of the vocabulary's short forms could otherwise be
# (car models and company first words that are ordinary nouns, small ordinals, month names).
COMMON_WORDS = frozenset("""
a about above across act action add after afternoon again against age ago agree ahead air all
allow almost alone along already also although always am among amount an and animal another
answer any anyone anything anyway appear apple april area arm around arrive art as ask at attack
august aunt autumn available away baby back bad bag ball bank bar base basket bath be bear beat
beautiful because become bed been before began begin behind being believe bell below best better
between big bike bill bird birthday bit black blood blue board boat body bone book born both bottom
box boy brain bread break breakfast bridge bright bring broke brother brown build building burn
bus business busy but buy by cake call came camp can capital car card care carry case cat catch
caught cause cell centre center certain chair chance change charge cheap check child children
choose church circle city class clean clear climb clock close cloud club coast coat cold colour
color come common company complete computer condition consider contain continue control cook cool
copy corner correct cost could count country course cover cow cross crowd cry cup current cut dad
dance dark date daughter day dead deal dear death december decide deep degree describe design
desk detail did die different difficult dinner direct direction discover do doctor does dog done
door double down draw dream dress drink drive drop dry during each ear early earth east easy eat
edge egg eight eighteen eighth eighty either eleven else end energy engine enough enter equal even
evening event ever every everyone everything exact example except expect experience explain eye
face fact fair fall family famous far farm fast father fear february feel feet few field fifteen
fifth fifty fight figure fill final find fine finger finish fire first fish five floor flower fly
follow food foot for force forest forget form forty forward found four fourteen fourth free
friday friend from front fruit full fun game garden gas gave general get girl give glass go gold
golf gone good got great green ground group grow guess gun had hair half hall hand happen happy
hard has hat have he head hear heard heart heat heavy held help her here high hill him his history
hit hold hole holiday home hope horse hospital hot hotel hour house how however huge hundred
hunt husband i ice idea if important in inch include indeed information inside instead interest
into iron is island it its january job join july jump june just keep kept key kid kill kind king
kitchen knew know lady lake land language large last late later laugh law lay lead leaf learn
least leave led left leg less let letter level lie life lift light like line list listen little
live long look lost lot loud love low lunch machine made main make man many map march mark market
matter may me mean meat meet member men middle might mile milk million mind minute miss model
moment monday money month moon more morning most mother mountain mouth move much mum music must my
name nation natural near need never new news next nice night nine nineteen ninety ninth no noon
nor north nose not note nothing notice november now number object ocean october of off offer
office often oil old on once one only open or order other our out over own page paint pair paper
park part party pass past pay people perhaps person pick picture piece place plan plant play
please point police poor position possible pound power present press pretty price problem produce
product pull push put quarter queen question quick quiet quite race radio rain raise ran rather
reach read ready real reason record red remember rest result return rich ride right ring rise
river road rock room round rule run said sale same saturday save saw say school sea season seat
second see seem seen sell send sense sent september serve set seven seventeen seventh seventy
several shall shape share she ship shoe shop short should shoulder show side sign simple since
sing sister sit six sixteen sixth sixty size skin sky sleep slow small smell smile snow so soft
soldier some someone something sometimes son song soon sound south space speak special spend
spring square stand star start state station stay step still stone stop store story street
strong student study such sudden summer sun sunday support sure surface table tail take talk
tall teach team tell ten tenth test than thank that the their them then there these they thing
think third thirteen thirty this those though thought thousand three through thursday till time
tiny to today together told tomorrow tonight too took top total touch toward town train travel
tree trip true try tuesday turn twelve twenty two type uncle under understand until up upon us use
usual valley very view village visit voice wait walk wall want war warm was wash watch water wave
way we wear weather wednesday week weight well went were west what wheel when where which while
white who whole why wide wife wild will win wind window winter wish with without woman women wood
word work world would write wrong yard year yellow yes yesterday yet you young your
accord beacon bolt cinder civic cobalt countryman driftwood evergreen fiesta focus glacier granite
heron indigo jasmine jazz juniper keystone kingfisher marigold mustang orchid outback panda pelican
polo puma quarry redwood saffron starling superb thistle zenith
""".split())

# Cities with well-known other names (native or former spellings still in wide use). Spellings
# that differ only by diacritics need no entry: the scorer folds them (Zürich = Zurich).
CITY_NAMES: dict[str, tuple[str, ...]] = {
    "Bangalore": ("Bengaluru",), "Chennai": ("Madras",), "Kolkata": ("Calcutta",), "Mysore": ("Mysuru",),
    "Kochi": ("Cochin",), "Pune": ("Poona",), "Saigon": ("Ho Chi Minh City", "HCMC"), "Yangon": ("Rangoon",),
    "Almaty": ("Alma-Ata",), "Busan": ("Pusan",), "Cebu": ("Cebu City",), "Cusco": ("Cuzco",),
    "Quebec": ("Quebec City",), "Marrakesh": ("Marrakech",), "Havana": ("La Habana",),
    "Cologne": ("Köln", "Koeln"), "Munich": ("München", "Muenchen"), "Zurich": ("Zuerich",),
    "Geneva": ("Genève", "Genf"), "Basel": ("Basle",), "Antwerp": ("Antwerpen",), "Prague": ("Praha",),
    "Belgrade": ("Beograd",), "Bucharest": ("București",), "Cluj": ("Cluj-Napoca",), "Krakow": ("Cracow",),
    "Copenhagen": ("København",), "Gothenburg": ("Göteborg",), "Lisbon": ("Lisboa",), "Porto": ("Oporto",),
    "Seville": ("Sevilla",), "Naples": ("Napoli",), "Florence": ("Firenze",), "Turin": ("Torino",),
    "Genoa": ("Genova",), "Lyon": ("Lyons",), "Marseille": ("Marseilles",), "Thessaloniki": ("Salonica",),
}

# Cars with other names in wide use (another market's name, the spaced model code).
CAR_NAMES: dict[str, tuple[str, ...]] = {
    "Mazda MX-5": ("Mazda Miata", "Miata", "MX-5 Miata"),
    "Mazda Mazda3": ("Mazda 3",),
    "Toyota RAV4": ("RAV 4", "Toyota RAV 4"),
    "Honda Jazz": ("Honda Fit",),
    "Nissan Qashqai": ("Nissan Rogue Sport",),
}
_MAKE_NAMES = {"Volkswagen": "VW"}

_UNITS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen " \
         "sixteen seventeen eighteen nineteen".split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
_ORDINAL_UNITS = "zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth " \
                 "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth".split()
_ORDINAL_TENS = "_ _ twentieth thirtieth fortieth fiftieth sixtieth seventieth eightieth ninetieth".split()


def cardinal_word(n: int) -> str:
    """1 <= n <= 99 in words: 19 -> 'nineteen', 27 -> 'twenty-seven'."""
    if n < 20:
        return _UNITS[n]
    return _TENS[n // 10] + (f"-{_UNITS[n % 10]}" if n % 10 else "")


def ordinal_word(n: int) -> str:
    """1 <= n <= 99 as an ordinal word: 2 -> 'second', 27 -> 'twenty-seventh'."""
    if n < 20:
        return _ORDINAL_UNITS[n]
    return f"{_TENS[n // 10]}-{_ORDINAL_UNITS[n % 10]}" if n % 10 else _ORDINAL_TENS[n // 10]


def _is_word(form: str) -> bool:
    return form.casefold() in COMMON_WORDS


def _car_forms(value: str) -> list[str]:
    make, model = value.split(" ", 1)
    forms = [] if model.isdigit() or _is_word(model) else [model]
    if "-" in value:
        forms += [value.replace("-", ""), *(f.replace("-", "") for f in forms)]
    if make in _MAKE_NAMES:
        forms.append(f"{_MAKE_NAMES[make]} {model}")
    return forms + list(CAR_NAMES.get(value, ()))


def _floor_forms(value: str) -> list[str]:
    n = int(value[:-2])
    word = ordinal_word(n)
    forms = [f"{value} floor", f"{word} floor", f"floor {n}", f"floor {cardinal_word(n)}", word, str(n)]
    return [f for f in forms if not _is_word(f)]


def _company_forms(value: str) -> list[str]:
    first = value.split()[0]
    return [] if _is_word(first) else [first]


def _city_forms(value: str) -> list[str]:
    return list(CITY_NAMES.get(value, ()))


_FORMS = {"company": _company_forms, "car": _car_forms, "date": vocab.date_aliases, "floor": _floor_forms,
          "city": _city_forms}


@lru_cache(maxsize=1)
def _kinds() -> dict[str, str]:
    """value -> kind name, over every pool of `vocab.KINDS` (the pools are disjoint)."""
    return {kind.render(v): name for name, kind in vocab.KINDS.items() for v in kind.pool}


def value_kind(value: str) -> str | None:
    """The vocabulary kind of `value` ("city", "car", "floor", ...), or None outside the vocabulary."""
    return _kinds().get(value) if isinstance(value, str) else None


@lru_cache(maxsize=None)
def values_of_kind(kind: str) -> tuple[str, ...]:
    """Every value of a vocabulary kind, as rendered in tasks."""
    spec = vocab.KINDS.get(kind)
    return tuple(spec.render(v) for v in spec.pool) if spec else ()


@lru_cache(maxsize=8192)
def value_forms(value: str) -> tuple[str, ...]:
    """Every accepted surface form of `value`, the value first, without repeats."""
    make = _FORMS.get(value_kind(value))
    if make is None:
        return (value,)
    return tuple(dict.fromkeys([value, *make(value)]))
