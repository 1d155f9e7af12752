"""One configuration object for finrag.

Every tunable lives here as a named default with a one-line reason. Each field can be overridden by an
environment variable (``FINRAG_<FIELD>`` in upper case, plus the standard ``OPENAI_*`` variables) and, in the
graph, by LangGraph's runtime context (the graph uses :class:`Settings` as its ``context_schema``).
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field, fields
from functools import cache
from pathlib import Path
from typing import Any, get_type_hints

# Variables that keep their conventional names instead of the FINRAG_ prefix.
_ENV_ALIASES: dict[str, tuple[str, ...]] = {
    "openai_api_key": ("OPENAI_API_KEY",),
    "openai_base_url": ("OPENAI_BASE_URL", "OPENAI_API_BASE"),
    "langsmith_api_key": ("LANGSMITH_API_KEY",),
    "home": ("FINRAG_HOME",),
    "data_dir": ("FINRAG_DATA_DIR",),
    "checkpoint_url": ("FINRAG_CHECKPOINT_URL",),
    "store_url": ("FINRAG_STORE_URL",),
}


def _default_home() -> Path:
    """The user's data directory (XDG on Linux), where indexes, SQLite files and caches live."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "finrag"


def _default_data_dir() -> Path | None:
    """The shared development data (``../shared/findata``) when it sits beside the checkout."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here.parent / "shared" / "findata", Path.cwd().parent / "shared" / "findata"):
        if candidate.is_dir():
            return candidate
    return None


@cache
def _field_types(cls: type) -> dict[str, Any]:
    """A settings class's field types, resolved once (from_env runs on every operation guess)."""
    return get_type_hints(cls)


@dataclass(kw_only=True)
class Settings:
    """All of finrag's settings. Build with :meth:`Settings.from_env`; override any field by keyword."""

    # --- storage -------------------------------------------------------------------------------------
    home: Path = field(default_factory=_default_home, metadata={"help": "Data directory (FINRAG_HOME)."})
    data_dir: Path | None = field(
        default_factory=_default_data_dir,
        metadata={"help": "Benchmark data in the findata layout (FINRAG_DATA_DIR)."},
    )
    store_url: str = field(
        default="",
        metadata={"help": "PostgreSQL URL for documents, cards, facts, companies, the memory bank and the thread "
                  "list, shared by every replica; empty keeps them in SQLite files under home."},
    )
    checkpoint_url: str = field(
        default="", metadata={"help": "Postgres URL for the checkpointer; empty uses SQLite under home."}
    )
    search_backend: str = field(
        default="embedded",
        metadata={"help": "Where chunk search runs: 'embedded' (FAISS + BM25 files under home) or 'milvus'."},
    )
    milvus_uri: str = field(
        default="",
        metadata={"help": "Milvus server (http://host:19530) or a local Milvus Lite folder (*.db); "
                  "empty: home/milvus.db."},
    )
    milvus_timeout_s: float = field(
        default=10.0, metadata={"help": "Milvus connect and call timeout: an outage fails fast with a clear message."}
    )
    milvus_token: str = field(default="", metadata={"help": "Milvus credentials ('user:password' or an API key)."})
    milvus_collection: str = field(
        default="finrag", metadata={"help": "Prefix of finrag's Milvus collections (<prefix>_chunks, <prefix>_documents)."}
    )
    milvus_dense_index: str = field(
        default="HNSW",
        metadata={"help": "Milvus index for the chunk vectors: HNSW (fast, approximate) or FLAT (exact, slow at scale)."},
    )

    # --- ingestion -------------------------------------------------------------------------------------
    chunk_words: int = field(default=250, metadata={"help": "Target chunk size: ~a paragraph group, the size the papers use."})
    chunk_overlap_words: int = field(default=30, metadata={"help": "Overlap so a sentence cut at a boundary survives whole once."})
    max_file_mb: float = field(default=200.0, metadata={"help": "Refuse files larger than this (huge inputs fail fast)."})
    max_pages: int = field(default=3000, metadata={"help": "Refuse documents with more pages than any real filing has."})
    max_page_chars: int = field(
        default=200_000, metadata={"help": "Refuse a page with more text than this (a dense 10-K page holds ~10k)."}
    )
    max_doc_chars: int = field(
        default=20_000_000, metadata={"help": "Refuse a document with more text than this (a 500-page 10-K holds ~3M)."}
    )
    read_xbrl: bool = field(
        default=True, metadata={"help": "Read the inline-XBRL facts of HTML filings (the filer's own tags on every "
                                        "statement figure); off ingests their text only."},
    )
    max_facts: int = field(
        default=20_000, metadata={"help": "Read at most this many inline-XBRL facts of a filing (a 10-K tags ~2,000; "
                                          "beyond, the filing is answered from its printed text and ingest says so)."},
    )
    max_markup_mb: float = field(
        default=64.0, metadata={"help": "Refuse HTML larger than this: its parse tree takes ~15x the file in memory."}
    )
    max_pdf_stream_mb: float = field(
        default=128.0,
        metadata={"help": "Refuse a PDF whose one compressed stream inflates beyond this (a decompression bomb)."},
    )
    max_parse_memory_mb: float = field(
        default=4096.0, metadata={"help": "Stop reading an HTML file whose parse needs more memory than this (the "
                                          "largest EDGAR 10-Ks take about 1.5 GB)."},
    )
    max_parse_seconds: float = field(
        default=300.0, metadata={"help": "Stop reading a file after this long (a 500-page 10-K reads in ~15 s)."}
    )
    near_duplicate_threshold: float = field(
        default=0.9, metadata={"help": "Jaccard of word shingles above which a chunk repeats another (boilerplate)."}
    )
    summary_sentences: int = field(default=2, metadata={"help": "Sentences in an extractive section summary."})

    # --- models ----------------------------------------------------------------------------------------
    embedding_model: str = field(
        default="", metadata={"help": "sentence-transformers id or path; empty = packaged all-MiniLM-L6-v2."}
    )
    embedding_batch_size: int = field(default=16, metadata={"help": "Measured fastest on 2 cores (16: 44 -> 36 s for a 306-page 10-K; 64 pads more and misses cache)."})
    embedding_precision: str = field(
        default="auto",
        metadata={"help": "Weights for batch embedding: 'auto' (bfloat16 where the hardware computes it natively: "
                  "~1.8x faster ingest, cosine 0.9999 to float32), 'float32' or 'bfloat16'."},
    )
    embedding_max_tokens: int = field(
        default=128,
        metadata={"help": "Tokens of a text the embedder reads (0: the model's own limit, 256 for MiniLM). MiniLM was "
                  "trained on 128: measured 2x faster ingest than 256, dense page nDCG@10 +4.2, full -0.7."},
    )
    cross_encoder_model: str = field(
        default="", metadata={"help": "CrossEncoder id or path for reranking; empty skips the stage."}
    )
    cross_encoder_batch_size: int = field(default=32, metadata={"help": "Pairs per forward pass."})
    device: str = field(default="auto", metadata={"help": "'auto' (CUDA when present), 'cpu' or 'cuda'."})
    allow_downloads: bool = field(
        default=False, metadata={"help": "Allow hub downloads for configured models (never in tests)."}
    )

    # --- optional language model (any OpenAI-compatible endpoint) --------------------------------------
    openai_api_key: str = field(default="", metadata={"help": "Turns the language-model path on."})
    openai_base_url: str = field(default="", metadata={"help": "OpenAI-compatible server (vLLM, Ollama, llama.cpp)."})
    llm_model: str = field(default="gpt-4o-mini", metadata={"help": "Chat model name on that endpoint."})
    llm_temperature: float = field(default=0.0, metadata={"help": "Deterministic decoding, as FinCARDS requires."})
    llm_max_tokens: int = field(default=1024, metadata={"help": "Completion cap per call."})
    llm_timeout_s: float = field(default=60.0, metadata={"help": "Per-call timeout before falling back offline."})
    llm_retrieval: bool = field(
        default=True,
        metadata={"help": "Use the model in deep retrieval too (intent, screening, ranking, HyDE); off keeps those "
                  "stages offline, which a small local model on a CPU needs (one call instead of dozens)."},
    )

    # --- retrieval ----------------------------------------------------------------------------------------
    rrf_k: int = field(default=60, metadata={"help": "Reciprocal-rank-fusion constant from Cormack et al."})
    candidate_min: int = field(default=60, metadata={"help": "FinCARDS Stage 1 budget floor."})
    candidate_max: int = field(default=150, metadata={"help": "FinCARDS Stage 1 budget ceiling."})
    candidate_ratio: float = field(default=0.5, metadata={"help": "FinCARDS Stage 1 share of the filing's chunks."})
    bundle_hit_sim: float = field(default=0.72, metadata={"help": "VeritasFi: a hit this similar gets neighbours."})
    bundle_neighbour_sim: float = field(default=0.66, metadata={"help": "VeritasFi: neighbour similarity to join."})
    bundle_max: int = field(default=4, metadata={"help": "VeritasFi: chunks per bundle at most."})
    screen_group_size: int = field(default=25, metadata={"help": "FinCARDS Stage 2 group size."})
    screen_keep_min: int = field(default=8, metadata={"help": "FinCARDS Stage 2 finalists per group, at least."})
    screen_keep_max: int = field(default=15, metadata={"help": "FinCARDS Stage 2 finalists per group, at most."})
    screen_total_max: int = field(default=50, metadata={"help": "FinCARDS Stage 2 union cap."})
    bootstrap_rounds: int = field(default=5, metadata={"help": "FinCARDS Stage 3 rounds at most."})
    bootstrap_jaccard_stop: float = field(default=0.9, metadata={"help": "FinCARDS Stage 3 early-stop threshold."})
    bootstrap_top: int = field(default=25, metadata={"help": "FinCARDS Stage 3 top set compared for early stop."})
    seed: int = field(default=13, metadata={"help": "Seed for every shuffle, so runs repeat exactly."})
    evidence_token_budget: int = field(default=3000, metadata={"help": "Evidence handed to the answer step."})
    evidence_max_chunks: int = field(default=8, metadata={"help": "Selected chunks at most."})
    dedupe_cosine: float = field(default=0.9, metadata={"help": "Selected chunks more similar than this are duplicates."})
    recency_bonus: float = field(default=0.05, metadata={"help": "FinSage 3.3 publication-date bonus weight."})

    # --- memory bank ------------------------------------------------------------------------------------
    memory_subsequence_min: float = field(default=0.55, metadata={"help": "VeritasFi reference threshold."})
    memory_bm25_min: float = field(default=3.0, metadata={"help": "VeritasFi reference threshold."})
    memory_cosine_min: float = field(default=0.9, metadata={"help": "MiniLM scores different metrics in one template up to 0.86; 0.9 is near-identical."})

    # --- market tools -------------------------------------------------------------------------------------
    market_cache_ttl_s: int = field(default=900, metadata={"help": "Quotes younger than this are served from cache."})
    market_timeout_s: float = field(default=10.0, metadata={"help": "Upstream call timeout."})

    operations_model: Path | None = field(
        default=None,
        metadata={"help": "The operation model follow-ups are read with (FINRAG_OPERATIONS_MODEL); empty: the "
                          "packaged agent/query/operations.json. `finrag train operations` rebuilds it."},
    )

    answer_kind_model: Path | None = field(
        default=None,
        metadata={"help": "The model that tells a question after an amount from one after words "
                          "(FINRAG_ANSWER_KIND_MODEL); empty: the packaged agent/query/answer_kinds.json. "
                          "`finrag train answer-kinds` rebuilds it."},
    )

    # --- EDGAR (finrag fetch) ----------------------------------------------------------------------------
    sec_user_agent: str = field(
        default="",
        metadata={"help": "Who is asking, sent to EDGAR on every request (FINRAG_SEC_USER_AGENT): a name and an "
                          "e-mail address, as the SEC's fair-access rule requires. No default: it must be yours."},
    )

    # --- the web server -----------------------------------------------------------------------------------
    serve_token: str = field(
        default="",
        metadata={"help": "Token every API request to `finrag serve` must carry (FINRAG_SERVE_TOKEN); set it "
                          "when serving beyond this machine. Empty: no login (the default bind is 127.0.0.1)."},
    )
    serve_hosts: str = field(
        default="",
        metadata={"help": "Host names a browser may reach `finrag serve` by besides this machine's loopback names "
                          "(FINRAG_SERVE_HOSTS, comma-separated, e.g. 'finrag.example.com'); a request that names "
                          "another host is refused, so no web page can rebind its own name to this server. '*': "
                          "any."},
    )

    # --- evaluation ---------------------------------------------------------------------------------------
    langsmith_api_key: str = field(default="", metadata={"help": "Uploads datasets and experiments when set."})

    # -----------------------------------------------------------------------------------------------------
    @classmethod
    def from_env(cls, env: dict[str, str] | None = None, **overrides: Any) -> Settings:
        """Defaults, then environment variables, then keyword overrides (highest precedence)."""
        env = dict(os.environ if env is None else env)
        hints = _field_types(cls)
        values: dict[str, Any] = {}
        for f in fields(cls):
            names = _ENV_ALIASES.get(f.name, ()) + (f"FINRAG_{f.name.upper()}",)
            raw = next((env[n] for n in names if env.get(n) not in (None, "")), None)
            if raw is not None:
                values[f.name] = _coerce(raw, hints[f.name])
        values.update({k: v for k, v in overrides.items() if v is not None})
        settings = cls(**values)
        settings.home = Path(settings.home).expanduser()
        if settings.data_dir is not None:
            settings.data_dir = Path(settings.data_dir).expanduser()
        return settings

    def replace(self, **changes: Any) -> Settings:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    # --- derived paths and switches ----------------------------------------------------------------------
    @property
    def index_dir(self) -> Path:
        """Where the SQLite store, FAISS and BM25 files live."""
        return self.home / "index"

    @property
    def cache_dir(self) -> Path:
        """Market-data and evaluation caches."""
        return self.home / "cache"

    @property
    def llm_enabled(self) -> bool:
        """A language model is used only when an endpoint key is configured."""
        return bool(self.openai_api_key)

    def resolved_device(self) -> str:
        """'cuda' when asked for or auto-detected, else 'cpu'."""
        if self.device != "auto":
            return self.device
        try:
            import torch

            return "cuda" if torch.cuda.is_available() else "cpu"
        except Exception:  # torch missing or broken: CPU is always safe
            return "cpu"


def _coerce(raw: str, hint: Any) -> Any:
    text = str(hint)
    if "bool" in text:
        return raw.strip().lower() in {"1", "true", "yes", "on"}
    if "int" in text and "Path" not in text:
        return int(raw)
    if "float" in text:
        return float(raw)
    if "Path" in text:
        return Path(raw)
    return raw
