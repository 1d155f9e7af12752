"""Shared fixtures: an isolated data directory per test, the sample filing, and the optional real data."""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.config import Settings
from agent.index.store import Store
from agent.ingest.pipeline import open_ingestor

# Tests never reach a model hub: the embedding model is read from the installed package.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# A developer's own endpoint or tracing key must never leak into the suite.
for _var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "LANGSMITH_API_KEY", "LANGCHAIN_API_KEY"):
    os.environ.pop(_var, None)
os.environ["LANGSMITH_TRACING"] = "false"

SAMPLE = Path(__file__).resolve().parent.parent / "agent" / "samples" / "NORTHWIND_2024_10K.md"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings whose data directory is a fresh temporary folder."""
    return Settings.from_env(home=tmp_path / "home")


@pytest.fixture
def sample_path() -> Path:
    """The fictional sample 10-K shipped with the package."""
    return SAMPLE


@pytest.fixture(scope="session")
def sample_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """The sample filing ingested once per session, its store open; tests only read it."""
    home = Settings.from_env(home=tmp_path_factory.mktemp("sample") / "home")
    with open_ingestor(home) as ingestor:
        assert ingestor.ingest_file(SAMPLE).status == "ingested"
    with Store.open(home) as opened:
        yield opened


@pytest.fixture(scope="session")
def findata() -> Path:
    """The shared findata folder, or skip when this machine has none (a user's machine)."""
    data_dir = Settings.from_env().data_dir
    if data_dir is None or not (data_dir / "financebench" / "questions.jsonl").exists():
        pytest.skip("findata not available (set FINRAG_DATA_DIR)")
    return data_dir


@pytest.fixture
def no_yfinance(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any use of yfinance fails the test: market data must come from an injected source."""
    guard = types.ModuleType("yfinance")

    def forbidden(name: str) -> object:
        if name.startswith("__"):  # import machinery probing module attributes
            raise AttributeError(name)
        raise AssertionError(f"yfinance.{name} used in a test")

    guard.__getattr__ = forbidden  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "yfinance", guard)
