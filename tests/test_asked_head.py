"""What a question asks of a metric is the whole noun phrase it writes: its head ('capex **budget**', 'revenue
**mix**', 'inventory **reserves**') and what it adjusts the metric for ('operating income **before restructuring**',
'capex **ex-acquisitions**'). Before, the lexicon read the metric and the gate stated the company's plain figure:
"capex intensity" was answered with capital expenditure, "revenue mix" with revenue, "operating income before
restructuring" with operating income, "capex ex-acquisitions" with capex and a second, unasked lookup of
acquisitions. A head the figure's own row, column or table says answers, and a head the lexicon knows is a metric
of its own ('capex intensity': capex over revenue); an amount noun ('capex spending', 'R&D expense'), a verb ('did
R&D account for') or a word of the metric's course ('an improving margin profile') is no head (typeset filing)."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset

from agent.config import Settings
from agent.query.intent import extract_intent
from agent.query.scope import excluded, scope_terms

FILING = """# Fabrikam Tools Inc.

Annual Report on Form 10-K for the fiscal year ended December 31, 2024

## Item 8. Financial Statements and Supplementary Data

### Consolidated Statements of Operations

| (in millions) | 2024 | 2023 |
|---|---|---|
| Revenue | 3,200 | 2,900 |
| Research and development | 410 | 380 |
| Restructuring charges | 40 | 15 |
| Operating income | 520 | 470 |
| Net income | 360 | 330 |

### Consolidated Statements of Cash Flows

| (in millions) | 2024 | 2023 |
|---|---|---|
| Net cash provided by operating activities | 610 | 560 |
| Purchases of property, plant and equipment | (190) | (170) |
| Acquisitions, net of cash acquired | (75) | — |

### Inventories

| (in millions) | 2024 | 2023 |
|---|---|---|
| Finished goods | 240 | 220 |
| Inventory reserves | (18) | (16) |
| Inventories, net | 222 | 204 |
"""


@pytest.fixture(scope="module")
def fabrikam(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("fabrikam"), "FABRIKAM_2024_10K.md", FILING)


@pytest.mark.parametrize(("question", "term", "kind"), [
    ("What was Fabrikam's capex budget in 2024?", "budget", "measure"),
    ("What was Fabrikam's revenue mix in 2024?", "mix", "measure"),
    ("What was Fabrikam's operating income before restructuring in 2024?", "before restructuring", "part"),
    ("What was Fabrikam's capex ex-acquisitions in 2024?", "ex acquisitions", "part"),
])
def test_the_head_and_the_adjustment_are_read_as_terms(question: str, term: str, kind: str) -> None:
    terms = [(t.text, t.kind) for t in scope_terms(question, "Fabrikam")]
    assert (term, kind) in terms, terms


@pytest.mark.parametrize("question", [
    "What was Fabrikam's capex spending in 2024?",
    "What was Fabrikam's R&D expense in 2024?",
    "What percentage of revenue did R&D account for in 2024?",
    "Does Fabrikam have an improving operating margin profile as of FY2024?",
    "What was the long-term debt due in 2025?",
    "What was the revenue recognized in 2024?",
    "How did revenue trend from 2023 to 2024?",
])
def test_amount_nouns_verbs_and_course_words_are_no_head(question: str) -> None:
    assert [t.text for t in scope_terms(question, "Fabrikam") if t.kind == "measure"] == []


def test_a_metric_adjusted_for_is_no_metric_asked() -> None:
    question = "What was Fabrikam's operating income before restructuring in 2024?"
    assert extract_intent(question, ["Fabrikam"]).metrics == ["operating income"]
    hyphen = "What was Fabrikam's capex ex-acquisitions in 2024?"
    assert extract_intent(hyphen, ["Fabrikam"]).metrics == ["capital expenditure"]
    # 'income before income taxes' is one name; a metric not right after another's name is asked
    assert not excluded("What was revenue before 2023 and net income?", 30)


@pytest.mark.parametrize(("question", "said"), [
    ("What was Fabrikam's capex budget in 2024?", "budget"),
    ("What was Fabrikam's revenue mix in 2024?", "mix"),
    ("What was Fabrikam's inventory turnover days in 2024?", "days"),
    ("What was Fabrikam's operating income before restructuring in 2024?", "before restructuring"),
    ("What was Fabrikam's capex ex-acquisitions in 2024?", "ex acquisitions"),
])
def test_the_plain_figure_is_no_answer_for_the_phrase(fabrikam: Settings, question: str, said: str) -> None:
    out = ask_once(fabrikam, question)
    assert out.startswith("Not found"), out
    assert said in out.split("Closest evidence")[0], out
    # one answer: the metric adjusted for is no second figure stated
    assert "acquisitions in FY2024 was" not in out and "restructuring costs in FY2024 was" not in out, out


@pytest.mark.parametrize(("question", "figure"), [
    ("What was Fabrikam's capex spending in 2024?", "190"),
    ("What was Fabrikam's R&D expense in 2024?", "410"),
    ("What were Fabrikam's inventory reserves in 2024?", "18"),
    ("What was Fabrikam's operating income in 2024?", "520"),
    # a head the lexicon knows is a metric of its own, computed: capex over revenue
    ("What was Fabrikam's capex intensity in 2024?", "5.94%"),
])
def test_a_head_its_row_says_answers(fabrikam: Settings, question: str, figure: str) -> None:
    out = ask_once(fabrikam, question)
    assert not out.startswith("Not found") and figure in out, out
