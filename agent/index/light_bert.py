"""A NumPy forward pass of a BERT sentence encoder, for embedding a few short texts without PyTorch.

A cold ``finrag ask`` embeds one question; importing torch and sentence-transformers for it costs ~6 s of CPU,
the forward pass itself milliseconds. This module runs the same model (weights read from its safetensors
file, tokenizer from its ``tokenizer.json``) in NumPy: the same arithmetic in float32, so its vectors match
sentence-transformers' within ~1e-6 (``tests/test_embeddings.py`` checks it). Batches of documents go through
torch (:mod:`agent.index.torch_bert`), whose kernels are faster on long inputs.

Only what the sentence-transformers folder declares is supported: a ``bert`` model with absolute positions,
the exact (erf) GELU, and mean or CLS pooling; :func:`load_light_bert` returns None for anything else.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
from pydantic import BaseModel

# Abramowitz & Stegun 7.1.26 erf: absolute error below 1.5e-7, under float32 rounding of the activations.
_ERF_P = 0.3275911
_ERF_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


def _erf(x: np.ndarray) -> np.ndarray:
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + _ERF_P * a)
    a1, a2, a3, a4, a5 = _ERF_A
    poly = ((((a5 * t + a4) * t + a3) * t + a2) * t + a1) * t
    return sign * (1.0 - poly * np.exp(-a * a))


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


class BertShape(BaseModel):
    """The parts of a BERT config the forward pass needs."""

    hidden_size: int
    num_attention_heads: int
    num_hidden_layers: int
    layer_norm_eps: float = 1e-12
    max_seq_length: int = 512
    pooling: str = "mean"  # mean | cls


class LightBert:
    """A BERT sentence encoder in NumPy: ``encode(texts)`` gives unit-length float32 rows."""

    def __init__(self, model_dir: Path, shape: BertShape) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        self.shape = shape
        weights = load_file(str(model_dir / "model.safetensors"))
        self.w = {k.removeprefix("bert."): v.astype(np.float32, copy=False) for k, v in weights.items()}
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.enable_truncation(shape.max_seq_length)
        self.tokenizer.no_padding()

    @property
    def dim(self) -> int:
        """Vector dimension."""
        return self.shape.hidden_size

    def _layer(self, x: np.ndarray, bias: np.ndarray, i: int) -> np.ndarray:
        w, s = self.w, self.shape
        p = f"encoder.layer.{i}."
        batch, length, hidden = x.shape
        heads, size = s.num_attention_heads, hidden // s.num_attention_heads

        def project(name: str) -> np.ndarray:
            y = x @ w[p + f"attention.self.{name}.weight"].T + w[p + f"attention.self.{name}.bias"]
            return y.reshape(batch, length, heads, size).transpose(0, 2, 1, 3)

        q, k, v = project("query"), project("key"), project("value")
        scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(size) + bias
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        probs = scores / scores.sum(-1, keepdims=True)
        context = (probs @ v).transpose(0, 2, 1, 3).reshape(batch, length, hidden)
        attended = context @ w[p + "attention.output.dense.weight"].T + w[p + "attention.output.dense.bias"]
        x = _layer_norm(attended + x, w[p + "attention.output.LayerNorm.weight"],
                        w[p + "attention.output.LayerNorm.bias"], s.layer_norm_eps)
        inner = _gelu(x @ w[p + "intermediate.dense.weight"].T + w[p + "intermediate.dense.bias"])
        out = inner @ w[p + "output.dense.weight"].T + w[p + "output.dense.bias"]
        return _layer_norm(out + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], s.layer_norm_eps)

    def encode(self, texts: list[str]) -> np.ndarray:
        """Unit-length embeddings of ``texts`` as an ``(n, dim)`` float32 array, one text at a time (no
        padding, so no masking error can creep in; meant for a handful of short texts)."""
        w, s = self.w, self.shape
        out = np.zeros((len(texts), s.hidden_size), dtype=np.float32)
        for row, encoding in enumerate(self.tokenizer.encode_batch(list(texts))):
            ids = np.asarray(encoding.ids, dtype=np.int64)[None, :]
            types = np.asarray(encoding.type_ids, dtype=np.int64)[None, :]
            x = (
                w["embeddings.word_embeddings.weight"][ids]
                + w["embeddings.position_embeddings.weight"][: ids.shape[1]][None]
                + w["embeddings.token_type_embeddings.weight"][types]
            )
            x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], s.layer_norm_eps)
            no_mask = np.zeros((1, 1, 1, ids.shape[1]), dtype=np.float32)
            for i in range(s.num_hidden_layers):
                x = self._layer(x, no_mask, i)
            pooled = x[0, 0] if s.pooling == "cls" else x[0].mean(0)
            norm = float(np.linalg.norm(pooled))
            out[row] = pooled / (norm or 1.0)
        return out


def load_light_bert(model_dir: Path, max_tokens: int = 0) -> LightBert | None:
    """A :class:`LightBert` for a sentence-transformers folder it can run exactly, else None; ``max_tokens``
    (when > 0) reads fewer tokens of a text than the model's own limit."""
    shape = bert_shape(model_dir, max_tokens)
    return LightBert(model_dir, shape) if shape is not None else None


def bert_shape(model_dir: Path, max_tokens: int = 0) -> BertShape | None:
    """The shape of a plain BERT sentence-transformers folder (the models this module and
    :mod:`agent.index.torch_bert` run exactly), or None for anything else."""
    try:
        config = json.loads((model_dir / "config.json").read_text())
        modules = json.loads((model_dir / "modules.json").read_text())
        pooling_dir = next((m["path"] for m in modules if m["type"].endswith("Pooling")), "")
        pooling = json.loads((model_dir / pooling_dir / "config.json").read_text()) if pooling_dir else {}
        st_config = model_dir / "sentence_bert_config.json"
        max_len = json.loads(st_config.read_text()).get("max_seq_length", 512) if st_config.exists() else 512
    except (OSError, ValueError, KeyError, StopIteration):
        return None
    other_modules = [m for m in modules if not m["type"].endswith(("Transformer", "Pooling", "Normalize"))]
    mode = "cls" if pooling.get("pooling_mode_cls_token") else "mean" if pooling.get("pooling_mode_mean_tokens") else ""
    runnable = (
        config.get("model_type") == "bert"
        and config.get("hidden_act") == "gelu"
        and config.get("position_embedding_type", "absolute") == "absolute"
        and mode
        and not other_modules
        and (model_dir / "model.safetensors").is_file()
        and (model_dir / "tokenizer.json").is_file()
    )
    if not runnable:
        return None
    return BertShape(
        hidden_size=config["hidden_size"],
        num_attention_heads=config["num_attention_heads"],
        num_hidden_layers=config["num_hidden_layers"],
        layer_norm_eps=config.get("layer_norm_eps", 1e-12),
        max_seq_length=min(int(max_len), int(config.get("max_position_embeddings", 512)), max_tokens or int(max_len)),
        pooling=mode,
    )
