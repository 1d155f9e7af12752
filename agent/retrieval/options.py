"""Which parts of deep retrieval run: the switches behind the benchmark's systems and ablations."""

from __future__ import annotations

from pydantic import BaseModel, Field

ALL_PATHS: tuple[str, ...] = ("bm25", "lexicon", "dense", "metadata", "cards", "statements", "hyde")


class RetrievalOptions(BaseModel):
    """Switches for one deep retrieval; the defaults run everything that is configured."""

    paths: list[str] = Field(default_factory=lambda: list(ALL_PATHS), description="candidate paths to fuse")
    use_bundling: bool = Field(default=True, description="VeritasFi chunk bundling")
    use_cards: bool = Field(default=True, description="Chunk Cards in screening and ranking (off: retrieval scores only)")
    use_screening: bool = Field(default=True, description="FinCARDS Stage 2")
    use_bootstrap: bool = Field(default=True, description="FinCARDS Stage 3 (off: Stage 2 order)")
    use_cross_encoder: bool = Field(default=True, description="cross-encoder reranking when one is configured")
    use_llm: bool = Field(default=True, description="language-model twins when a model is configured")
