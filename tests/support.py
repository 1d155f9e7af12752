"""Helpers shared by the graph, CLI and Studio tests."""

from __future__ import annotations

from pathlib import Path

from agent.config import Settings
from agent.ingest.pipeline import open_ingestor

SAMPLE = Path(__file__).resolve().parent.parent / "agent" / "samples" / "NORTHWIND_2024_10K.md"


def ingested_sample(home: Path) -> Settings:
    """Settings for ``home`` with the sample filing ingested (one index shared by a test module)."""
    settings = Settings.from_env(home=home)
    with open_ingestor(settings) as ingestor:
        assert ingestor.ingest_file(SAMPLE).status == "ingested"
    return settings
