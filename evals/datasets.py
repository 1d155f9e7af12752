"""Loaders for the benchmark data in the ``findata`` layout, as typed records.

```
financebench/  questions.jsonl  documents.jsonl  docs/pdf/<doc>.pdf  docs/text/<doc>.jsonl
convfinqa/     conversations.jsonl  pages.jsonl
tatqa/         questions.jsonl  contexts.jsonl
```

Every loader takes the data directory (``Settings.data_dir``), validates each line into a pydantic record
(unknown fields are kept, so a newer split loads too) and raises one :class:`FinragError` naming the file and
line when the data is missing or malformed. Pages are 0-based, as in the files.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from agent.errors import FinragError

R = TypeVar("R", bound=BaseModel)


class Record(BaseModel):
    """Base of every record: extra fields are kept, not rejected; null text fields read as ''."""

    model_config = ConfigDict(extra="allow")

    @model_validator(mode="before")
    @classmethod
    def _null_text(cls, data: Any) -> Any:
        if isinstance(data, dict):
            data = dict(data)
            for name, info in cls.model_fields.items():
                if info.annotation is str and data.get(name, "") is None:
                    data[name] = ""
        return data


class Evidence(Record):
    """A gold evidence item: a document, a 0-based page when known, and the supporting snippet."""

    doc: str
    page: int | None = None
    text: str = ""
    full_page_text: str = ""

    @field_validator("page", mode="before")
    @classmethod
    def _page_int(cls, value: Any) -> int | None:
        if value is None or value == "":
            return None
        return int(value)


# ---------------------------------------------------------------------------------------------------------
# FinanceBench
# ---------------------------------------------------------------------------------------------------------
class FinanceBenchQuestion(Record):
    """One FinanceBench question with its answer and page-level gold evidence."""

    id: str
    question: str
    answer: str = ""
    justification: str = ""
    evidence: list[Evidence] = Field(default_factory=list)
    doc_name: str
    company: str = ""
    fiscal_period: str = ""
    doc_type: str = ""
    question_type: str = ""
    question_reasoning: str | None = None
    gics_sector: str = ""
    doc_available: bool = True

    @field_validator("fiscal_period", mode="before")
    @classmethod
    def _period_str(cls, value: Any) -> str:
        return "" if value is None else str(value)


class FinanceBenchDocument(Record):
    """A FinanceBench filing and where its PDF and per-page text live (relative to financebench/)."""

    doc_name: str
    company: str = ""
    doc_type: str = ""
    fiscal_period: str = ""
    doc_period: int | None = None
    n_pages: int = 0
    available: bool = True
    pdf_path: str = ""
    text_path: str = ""

    @field_validator("fiscal_period", mode="before")
    @classmethod
    def _period_str(cls, value: Any) -> str:
        return "" if value is None else str(value)


class FinanceBench(BaseModel):
    """The FinanceBench split: questions, documents, and the folder they came from."""

    root: Path
    questions: list[FinanceBenchQuestion]
    documents: dict[str, FinanceBenchDocument]

    def pdf(self, doc_name: str) -> Path:
        """The PDF of a document (FinragError when the split does not list it)."""
        doc = self.documents.get(doc_name)
        if doc is None or not doc.pdf_path:
            raise FinragError(f"FinanceBench lists no PDF for document '{doc_name}'.")
        return resolve_data_path(self.root, doc.pdf_path)

    def answerable(self) -> list[FinanceBenchQuestion]:
        """Questions whose filing is available and whose gold evidence names a page."""
        return [q for q in self.questions if q.doc_available and q.doc_name in self.documents
                and self.documents[q.doc_name].available and any(e.page is not None for e in q.evidence)]


# ---------------------------------------------------------------------------------------------------------
# ConvFinQA
# ---------------------------------------------------------------------------------------------------------
class ConvTurn(Record):
    """One turn of a ConvFinQA conversation."""

    turn: int
    question: str
    answer: str = ""
    program: str = ""
    executed_answer: float | str | None = None


class ConvFinQAConversation(Record):
    """A multi-turn conversation over one report page; ``question`` is the last turn."""

    id: str
    question: str
    answer: str = ""
    evidence: list[Evidence] = Field(default_factory=list)
    doc_name: str
    company: str = ""
    fiscal_period: str = ""
    question_type: str = ""
    turns: list[ConvTurn] = Field(default_factory=list)

    @field_validator("fiscal_period", mode="before")
    @classmethod
    def _period_str(cls, value: Any) -> str:
        return "" if value is None else str(value)

    def history(self) -> list[str]:
        """The questions asked before the last turn, in order."""
        return [t.question for t in sorted(self.turns, key=lambda t: t.turn)[:-1]]


class ConvFinQAPage(Record):
    """One report page of the ConvFinQA corpus: text before the table, the table, text after it."""

    doc_id: str
    company: str = ""
    fiscal_period: str = ""
    page: int | None = None
    pre_text: str = ""
    table_markdown: str = ""
    post_text: str = ""

    @field_validator("fiscal_period", mode="before")
    @classmethod
    def _period_str(cls, value: Any) -> str:
        return "" if value is None else str(value)

    @field_validator("page", mode="before")
    @classmethod
    def _page_int(cls, value: Any) -> int | None:
        return None if value in (None, "") else int(value)

    def markdown(self) -> str:
        """The page as Markdown: text, table, text."""
        return "\n\n".join(p.strip() for p in (self.pre_text, self.table_markdown, self.post_text) if p.strip()) + "\n"


class ConvFinQA(BaseModel):
    """The ConvFinQA split: conversations and the page corpus."""

    root: Path
    conversations: list[ConvFinQAConversation]
    pages: dict[str, ConvFinQAPage]


# ---------------------------------------------------------------------------------------------------------
# TAT-QA
# ---------------------------------------------------------------------------------------------------------
class TatQAQuestion(Record):
    """A TAT-QA question: answer (span(s) or number), its type, source, scale and derivation."""

    id: str
    question: str
    answer: list[str] | float | int | str
    answer_type: str = ""
    answer_from: str = ""
    scale: str = ""
    derivation: str = ""
    evidence: list[Evidence] = Field(default_factory=list)
    doc_name: str = ""


class TatQAContext(Record):
    """A TAT-QA table with its paragraphs."""

    doc_id: str
    table: list[list[str]] = Field(default_factory=list)
    table_markdown: str = ""
    paragraphs: list[dict[str, Any]] = Field(default_factory=list)


class TatQA(BaseModel):
    """The TAT-QA split: questions and their contexts."""

    root: Path
    questions: list[TatQAQuestion]
    contexts: dict[str, TatQAContext]


# ---------------------------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------------------------
LINK_FILE_MAX_BYTES = 1024  # a link kept as a text file (a symlink copied by a tool that does not keep them)


def _link_target(path: Path) -> Path | None:
    """Where a link kept as a small text file points ('../../financebench/documents.jsonl'), or None."""
    try:
        if not path.is_file() or path.stat().st_size > LINK_FILE_MAX_BYTES:
            return None
        text = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not text or "\n" in text or text.startswith(("{", "[")):
        return None
    target = (path.parent / text).resolve()
    return target if target.exists() and target != path.resolve() else None


def resolve_data_path(root: Path, relative: str | Path) -> Path:
    """``root / relative`` with any component that is a link kept as a text file followed (the trap sets link to
    the dev filings that way when a copy did not keep symlinks)."""
    path = Path(root)
    for part in Path(relative).parts:
        path = path / part
        target = _link_target(path)
        if target is not None:
            path = target
    return path


def read_jsonl(path: Path, model: type[R]) -> list[R]:
    """Every line of a JSON-lines file as a ``model`` record; one FinragError for a missing or bad file."""
    path = resolve_data_path(path.parent, path.name)
    if not path.is_file():
        raise FinragError(f"Missing data file {path} (expected the findata layout; see FINRAG_DATA_DIR).")
    out: list[R] = []
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                out.append(model.model_validate(json.loads(line)))
            except (json.JSONDecodeError, ValidationError) as exc:
                raise FinragError(f"{path}:{n}: not a valid {model.__name__} record: {str(exc)[:300]}") from exc
    return out


def _dataset_dir(data_dir: Path | None, name: str) -> Path:
    if data_dir is None:
        raise FinragError("No data directory: pass --data DIR or set FINRAG_DATA_DIR to a folder in the findata layout.")
    root = Path(data_dir).expanduser() / name
    if not root.is_dir():
        raise FinragError(f"{Path(data_dir).expanduser()} has no '{name}' folder (expected the findata layout).")
    return root


def load_financebench(data_dir: Path | None) -> FinanceBench:
    """FinanceBench questions and documents from ``<data_dir>/financebench``."""
    root = _dataset_dir(data_dir, "financebench")
    questions = read_jsonl(root / "questions.jsonl", FinanceBenchQuestion)
    documents = read_jsonl(root / "documents.jsonl", FinanceBenchDocument)
    return FinanceBench(root=root, questions=questions, documents={d.doc_name: d for d in documents})


def load_convfinqa(data_dir: Path | None) -> ConvFinQA:
    """ConvFinQA conversations and pages from ``<data_dir>/convfinqa``."""
    root = _dataset_dir(data_dir, "convfinqa")
    conversations = read_jsonl(root / "conversations.jsonl", ConvFinQAConversation)
    pages = read_jsonl(root / "pages.jsonl", ConvFinQAPage)
    return ConvFinQA(root=root, conversations=conversations, pages={p.doc_id: p for p in pages})


def load_tatqa(data_dir: Path | None) -> TatQA:
    """TAT-QA questions and contexts from ``<data_dir>/tatqa``."""
    root = _dataset_dir(data_dir, "tatqa")
    questions = read_jsonl(root / "questions.jsonl", TatQAQuestion)
    contexts = read_jsonl(root / "contexts.jsonl", TatQAContext)
    return TatQA(root=root, questions=questions, contexts={c.doc_id: c for c in contexts})


def doc_file_stem(doc_id: str) -> str:
    """A document id as a file stem: 'MRO/2007/page_134.pdf' -> 'MRO_2007_page_134'.

    The retrieval benchmark and the answer runner both write ConvFinQA / TAT-QA pages under this name, so they
    share one ingested index.
    """
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", re.sub(r"\.pdf$", "", doc_id)).strip("_")


def write_if_changed(path: Path, text: str) -> None:
    """Write ``text`` unless the file already holds it (keeps content hashes, and so re-ingests, stable)."""
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
