"""The docs say what the code does: the README stays short, every command and environment variable the README and
docs/ name exists, and docstrings that point at a design page point at a file in the repository."""

from __future__ import annotations

import argparse
import re
from dataclasses import fields
from pathlib import Path

import pytest

from agent.config import _ENV_ALIASES, Settings
from cli.main import build_parser

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
README_MAX_LINES = 250
_COMMAND_RE = re.compile(r"(?<![\w/.-])finrag((?: [a-z][a-z-]*)+)")
_VARIABLE_RE = re.compile(r"\bFINRAG_[A-Z_]+\b")
_CODE_RE = re.compile(r"```.*?```|`[^`\n]+`", re.DOTALL)  # what a reader would type: code blocks and spans


def _code(text: str) -> str:
    return "\n".join(m.group(0) for m in _CODE_RE.finditer(text))


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
    return dict(sub.choices) if sub is not None else {}


def test_the_readme_is_read_in_five_minutes() -> None:
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= README_MAX_LINES
    for doc in ("filings", "questions", "trust-gate", "evaluation", "deploying", "architecture"):
        assert (ROOT / "docs" / f"{doc}.md").is_file(), doc
    assert (ROOT / "CHANGELOG.md").is_file()


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_command_the_docs_name_exists(doc: Path) -> None:
    parser = build_parser()
    for m in _COMMAND_RE.finditer(_code(doc.read_text(encoding="utf-8"))):
        words = m.group(1).split()
        level = parser
        for i, word in enumerate(words):
            known = _commands(level)
            if not known:
                break  # a command without actions: the rest are its arguments
            if word not in known:
                assert i > 0, f"{doc.name}: 'finrag {' '.join(words)}' names no command"
                break  # an argument in the words' place ('finrag ask what ...' is not written this way)
            level = known[word]


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_variable_the_docs_name_is_read(doc: Path) -> None:
    known = {f"FINRAG_{f.name.upper()}" for f in fields(Settings)} | {v for names in _ENV_ALIASES.values()
                                                                       for v in names}
    named = set(_VARIABLE_RE.findall(doc.read_text(encoding="utf-8")))
    assert named <= known, f"{doc.name} names variables finrag does not read: {sorted(named - known)}"


def test_docstrings_point_at_pages_that_exist() -> None:
    for path in [*ROOT.glob("agent/**/*.py"), *ROOT.glob("graphs/**/*.py"), *ROOT.glob("cli/*.py")]:
        text = path.read_text(encoding="utf-8")
        assert "DESIGN" not in text, f"{path}: names a design document the repository does not hold"
        for page in re.findall(r"docs/[\w-]+\.md", text):
            assert (ROOT / page).is_file(), f"{path}: {page}"
