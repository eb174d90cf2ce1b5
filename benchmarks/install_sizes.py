"""Disk size each optional extra of memory-arena adds to an install, measured in the running venv.

For each extra: the distributions it brings beyond what `pip install memory-arena` already
installs (its requirements, followed transitively with their markers evaluated), and the bytes
those take on disk (every file each distribution's RECORD lists, as installed). Run it with
the Python of a venv that has the extras installed:

    .venvs/adapters/bin/python benchmarks/install_sizes.py              # minilm mem0 chroma qdrant
    .venvs/v04/bin/python benchmarks/install_sizes.py bm25 dense server report

The last line compares the sum over every installed distribution with `du` of site-packages,
so that what the table counts can be checked against the disk.
"""

from __future__ import annotations

import re
import subprocess
import sys
import sysconfig
from importlib import metadata

from packaging.requirements import Requirement

PACKAGE = "memory-arena"
DEFAULT_EXTRAS = ["minilm", "mem0", "chroma", "qdrant"]


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def installed() -> dict[str, metadata.Distribution]:
    return {canonical(d.metadata["Name"]): d for d in metadata.distributions()}


def closure(name: str, extras: set[str], dists: dict[str, metadata.Distribution], seen: set[str]) -> set[str]:
    """`name` and everything it requires with `extras`, as installed here."""
    key = canonical(name)
    if key in seen or key not in dists:
        return seen
    seen.add(key)
    for text in dists[key].requires or []:
        req = Requirement(text)
        if req.marker is not None and not any(req.marker.evaluate({"extra": e}) for e in (extras or {""})):
            continue
        if canonical(req.name) == canonical(PACKAGE):  # memory-arena[minilm] inside another extra
            for extra in req.extras:
                for inner in dists[key].requires or []:
                    r = Requirement(inner)
                    if r.marker is not None and r.marker.evaluate({"extra": extra}):
                        closure(r.name, set(r.extras), dists, seen)
            continue
        closure(req.name, set(req.extras), dists, seen)
    return seen


def size(dist: metadata.Distribution) -> int:
    total = 0
    for f in dist.files or []:
        path = dist.locate_file(f)
        if path.is_file():
            total += path.stat().st_size
    return total


def main(extras: list[str]) -> None:
    dists = installed()
    if canonical(PACKAGE) not in dists:
        sys.exit(f"{PACKAGE} is not installed in this venv")
    core = closure(PACKAGE, set(), dists, set())
    sizes = {k: size(d) for k, d in dists.items()}
    print(f"{'extra':<10} {'added MB':>9} {'beyond minilm':>14}  largest of its own (MB)")
    minilm = closure(PACKAGE, {"minilm"}, dists, set()) - core
    for extra in extras:
        added = closure(PACKAGE, {extra}, dists, set()) - core
        beyond = added - minilm if extra != "minilm" else set()
        top = sorted(beyond or added, key=lambda k: -sizes[k])[:4]  # what this extra brings of its own
        print(f"{extra:<10} {sum(sizes[k] for k in added) / 1e6:>9.0f} {sum(sizes[k] for k in beyond) / 1e6:>14.0f}  "
              + ", ".join(f"{k} {sizes[k] / 1e6:.0f}" for k in top))
    print(f"{'core':<10} {sum(sizes[k] for k in core) / 1e6:>9.0f}  (pip install memory-arena: verifiers and its "
          f"dependencies, {len(core)} distributions)")
    site = sysconfig.get_paths()["purelib"]
    du = subprocess.run(["du", "-sb", site], capture_output=True, text=True).stdout.split()[0]
    print(f"check: all distributions here {sum(sizes.values()) / 1e6:.0f} MB; du -sb site-packages "
          f"{int(du) / 1e6:.0f} MB (the rest is caches and files no RECORD lists)")


if __name__ == "__main__":
    main(sys.argv[1:] or DEFAULT_EXTRAS)
