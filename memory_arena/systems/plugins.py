"""Memory systems from outside the package (docs/memory-systems.md, "Bring your own system").

Three ways in besides the built-in names and `http://` URLs:

- a class by its import path, `package.module:ClassName` (any importable module, so a file
  next to the command works with `PYTHONPATH=.`);
- a name that an installed package registers in the entry-point group `memory_arena.systems`
  (`[project.entry-points."memory_arena.systems"] my-memory = "my_pkg.memory:MyMemory"`);
- constructor options, as a dict in Python or as repeated `key=value` on the command line,
  where a value is read as JSON when it is JSON (`k=10`, `fast=true`, `tags=["a"]`) and as
  text otherwise (`path=data/x`).

A plugin class must subclass `MemorySystem`. Everything that can be checked before a long run
is checked here, with one sentence naming what is wrong: the spelling of the import path, the
module and the class, and every option against the constructor's parameters.
"""

from __future__ import annotations

import importlib
import inspect
import json
import re
from importlib import metadata
from typing import Any, Iterable, Mapping

from memory_arena.systems.base import MemorySystem

GROUP = "memory_arena.systems"
_DOTTED = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*"
_SPEC = re.compile(rf"^({_DOTTED}):({_DOTTED})$")
_KEY = re.compile(r"^[A-Za-z_]\w*$")


def is_spec(name: str) -> bool:
    """True for anything meant as `module:Class` (a colon and no URL scheme)."""
    return ":" in name and not name.startswith(("http://", "https://"))


def spec_problem(spec: str) -> str | None:
    """What is wrong with the spelling of a `package.module:ClassName` string, or None."""
    if not _SPEC.match(spec):
        return "write it as package.module:ClassName (dotted Python names, one colon)"
    return None


def registered() -> dict[str, metadata.EntryPoint]:
    """Names that installed packages register in the `memory_arena.systems` group."""
    return {ep.name: ep for ep in metadata.entry_points(group=GROUP)}


def load_class(name: str) -> type[MemorySystem]:
    """The class behind an entry-point name or a `module:Class` spec. ValueError (one sentence)
    when the module or class does not exist or is not a memory system; an error raised while
    the plugin's own module runs is re-raised as RuntimeError naming the plugin."""
    entry = registered().get(name)
    target = entry.value if entry is not None else name
    problem = spec_problem(target)
    if problem:
        raise ValueError(f"memory system {name!r}: {problem}")
    module_name, _, attr_path = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is None or not (module_name == exc.name or module_name.startswith(exc.name + ".")):
            raise RuntimeError(f"memory system {name!r}: importing {module_name} failed: {exc}") from exc
        raise ValueError(f"memory system {name!r}: no module named {exc.name!r} "
                         "(is it installed, or its folder on PYTHONPATH?)") from None
    except Exception as exc:  # a bug in the plugin's module: name it, keep its cause
        raise RuntimeError(f"memory system {name!r}: importing {module_name} failed: "
                           f"{type(exc).__name__}: {exc}") from exc
    obj: Any = module
    for part in attr_path.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"memory system {name!r}: {module_name} has no {attr_path!r}")
        obj = getattr(obj, part)
    if not (inspect.isclass(obj) and issubclass(obj, MemorySystem)):
        raise ValueError(f"memory system {name!r}: {attr_path} is not a subclass of "
                         "memory_arena.systems.MemorySystem")
    if inspect.isabstract(obj):
        missing = ", ".join(sorted(obj.__abstractmethods__))
        raise ValueError(f"memory system {name!r}: {attr_path} does not implement {missing}")
    return obj


def parse_options(pairs: Iterable[str]) -> dict[str, Any]:
    """`["k=10", "path=data/x"]` -> `{"k": 10, "path": "data/x"}`; ValueError for a pair
    without `=`, a key that is not a Python name, or a key given twice."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        key = key.strip()
        if not sep or not _KEY.match(key):
            raise ValueError(f"option {pair!r} is not key=value with a Python name as key")
        if key in options:
            raise ValueError(f"option {key!r} is given twice")
        try:
            options[key] = json.loads(text)
        except ValueError:
            options[key] = text
    return options


def check_options(cls: type, options: Mapping[str, Any], label: str) -> None:
    """ValueError naming the first option that `cls(**options)` would not accept."""
    if not isinstance(options, Mapping) or not all(isinstance(k, str) for k in options):
        raise ValueError(f"options of {label} must be a dict with string keys")
    params = inspect.signature(cls.__init__).parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return
    accepted = [n for n, p in params.items() if n != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    for key in options:
        if key not in accepted:
            takes = f"it takes {', '.join(accepted)}" if accepted else "it takes no options"
            raise ValueError(f"{label} has no option {key!r}; {takes}")
