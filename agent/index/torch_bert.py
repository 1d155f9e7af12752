"""A PyTorch forward pass of a plain BERT sentence encoder, for embedding batches at ingest.

sentence-transformers runs the same model, but importing it (with transformers and scikit-learn) costs ~4.7 s
of CPU on every ingest process, a quarter of a 300-page 10-K's ingest; this module needs torch alone. It
runs exactly the models :mod:`agent.index.light_bert` runs (the same eligibility check and weights), padded
and masked in batches, in bfloat16 where the hardware computes it natively. Its float32 vectors match
sentence-transformers' within ~1e-6 (``tests/test_embeddings.py`` checks it).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from agent.index.light_bert import BertShape

if TYPE_CHECKING:
    import torch


class TorchBert:
    """A BERT sentence encoder in torch: ``encode(texts, batch_size)`` gives float32 rows (not normalised)."""

    def __init__(self, model_dir: Path, shape: BertShape, dtype: torch.dtype) -> None:
        import torch
        from safetensors.torch import load_file
        from tokenizers import Tokenizer

        self.shape = shape
        self.dtype = dtype
        weights = load_file(str(model_dir / "model.safetensors"))
        self.w = {k.removeprefix("bert."): v.to(dtype) for k, v in weights.items()}
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.enable_truncation(shape.max_seq_length)
        self.tokenizer.enable_padding()
        self._torch = torch

    @property
    def dim(self) -> int:
        """Vector dimension."""
        return self.shape.hidden_size

    def _layer(self, x: torch.Tensor, mask: torch.Tensor, i: int) -> torch.Tensor:
        functional = self._torch.nn.functional
        w, s = self.w, self.shape
        p = f"encoder.layer.{i}."
        batch, length, hidden = x.shape
        heads = s.num_attention_heads

        def project(name: str) -> torch.Tensor:
            y = functional.linear(x, w[p + f"attention.self.{name}.weight"], w[p + f"attention.self.{name}.bias"])
            return y.view(batch, length, heads, hidden // heads).transpose(1, 2)

        context = functional.scaled_dot_product_attention(project("query"), project("key"), project("value"),
                                                          attn_mask=mask)
        context = context.transpose(1, 2).reshape(batch, length, hidden)
        attended = functional.linear(context, w[p + "attention.output.dense.weight"], w[p + "attention.output.dense.bias"])
        x = functional.layer_norm(attended + x, (hidden,), w[p + "attention.output.LayerNorm.weight"],
                                  w[p + "attention.output.LayerNorm.bias"], s.layer_norm_eps)
        inner = functional.gelu(functional.linear(x, w[p + "intermediate.dense.weight"], w[p + "intermediate.dense.bias"]))
        out = functional.linear(inner, w[p + "output.dense.weight"], w[p + "output.dense.bias"])
        return functional.layer_norm(out + x, (hidden,), w[p + "output.LayerNorm.weight"],
                                     w[p + "output.LayerNorm.bias"], s.layer_norm_eps)

    def _batch(self, texts: list[str]) -> np.ndarray:
        torch, functional = self._torch, self._torch.nn.functional
        w, s = self.w, self.shape
        encodings = self.tokenizer.encode_batch(texts)
        ids = torch.tensor([e.ids for e in encodings], dtype=torch.long)
        types = torch.tensor([e.type_ids for e in encodings], dtype=torch.long)
        keep = torch.tensor([e.attention_mask for e in encodings], dtype=torch.bool)
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][: ids.shape[1]][None]
            + w["embeddings.token_type_embeddings.weight"][types]
        )
        x = functional.layer_norm(x, (s.hidden_size,), w["embeddings.LayerNorm.weight"],
                                  w["embeddings.LayerNorm.bias"], s.layer_norm_eps)
        mask = keep[:, None, None, :]  # padding is never attended to
        for i in range(s.num_hidden_layers):
            x = self._layer(x, mask, i)
        x = x.float()
        if s.pooling == "cls":
            return x[:, 0].numpy()
        weights = keep[..., None].float()
        return ((x * weights).sum(1) / weights.sum(1).clamp(min=1.0)).numpy()

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        """Embeddings of ``texts`` as an ``(n, dim)`` float32 array in input order; each batch holds texts of
        similar length (sorted), so little is spent on padding."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]), reverse=True)
        with self._torch.inference_mode():
            for start in range(0, len(order), max(batch_size, 1)):
                rows = order[start : start + max(batch_size, 1)]
                out[rows] = self._batch([texts[i] for i in rows])
        return out
