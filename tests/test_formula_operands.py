"""A figure computed by a formula faces the closed world too: every name, part and qualifier the question puts on
it ('in Brazil', 'adjusted', 'organic', 'pro forma') must be said by each figure it is computed from. Before,
the scope check passed every formula result unseen ('no figure'), so the company's EBITDA, computed from its
consolidated operating income and depreciation, was stated as its 'adjusted EBITDA' and its 'EBITDA in Brazil'.
A metric the question leaves out ('operating income excluding restructuring charges') is no second metric asked
but a part the figure must say it leaves out (typeset filing)."""

from __future__ import annotations

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.query.scope import metric_modifiers, scope_terms

FILING = """# Litware Robotics Inc.

Annual Report on Form 10-K for the fiscal year ended December 31, 2024

## Item 8. Financial Statements and Supplementary Data

### Consolidated Statements of Operations

| (in millions) | 2024 | 2023 |
|---|---|---|
| Revenue | 2,400 | 2,100 |
| Cost of revenue | 1,500 | 1,350 |
| Gross profit | 900 | 750 |
| Operating income | 310 | 260 |
| Net income | 220 | 180 |

### Consolidated Balance Sheets

| (in millions) | 2024 | 2023 |
|---|---|---|
| Total current assets | 900 | 820 |
| Total current liabilities | 500 | 450 |

### Consolidated Statements of Cash Flows

| (in millions) | 2024 | 2023 |
|---|---|---|
| Net income | 220 | 180 |
| Depreciation and amortization | 90 | 85 |
| Net cash provided by operating activities | 400 | 350 |
| Purchases of property, plant and equipment | (120) | (110) |
| Net cash used in investing activities | (150) | (130) |

## Item 7. Management's Discussion and Analysis

### Non-GAAP measures

| (in millions) | 2024 | 2023 |
|---|---|---|
| Operating income | 310 | 260 |
| Restructuring charges | 25 | 10 |
| Operating income excluding restructuring charges | 335 | 270 |
"""


@pytest.fixture(scope="module")
def litware(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("litware"), "LITWARE_2024_10K.md", FILING)


@pytest.mark.parametrize(("question", "figure"), [
    ("What was Litware's EBITDA in 2024?", "310 + 90 = 400"),
    # the words of the metric the question defines are no part its operands must say ('Operating')
    ("What is Litware's FY2024 operating cash flow ratio? Operating cash flow ratio is defined as: cash from "
     "operations / total current liabilities.", "400 / 500"),
    ("What was Litware's free cash flow in 2024?", "400 - 120 = 280"),
    ("What was Litware's gross margin in 2024?", "37.50%"),
])
def test_a_formula_answers_the_metric_it_computes(litware: Settings, question: str, figure: str) -> None:
    out = ask_once(litware, question)
    assert figure in out and not out.startswith("Not found"), out


@pytest.mark.parametrize(("question", "unsaid", "figure"), [
    # a basis is the basis check's: the refusal names the basis asked, which no operand states
    ("What was Litware's adjusted EBITDA in 2024?", "on an adjusted basis", "400"),
    ("What was Litware's EBITDA in Brazil in 2024?", "do not say Brazil", "400"),
    ("What was Litware's organic EBITDA in 2024?", "on an organic basis", "400"),
    ("What was Litware's pro forma free cash flow in 2024?", "on an adjusted basis", "280"),
])
def test_a_qualifier_no_operand_says_refuses_the_formula(litware: Settings, question: str, unsaid: str,
                                                         figure: str) -> None:
    out = ask_once(litware, question)
    assert out.startswith("Not found") and unsaid in out, out
    assert figure not in stated(out), out
    # the computed figure is shown as what it is, never under one of its operands' rows
    closest = out.split("Closest evidence", 1)[1]
    assert figure in closest and "'Operating income'" not in closest and "computed: " in closest, out


@pytest.mark.parametrize(("question", "figure", "refused"), [
    # the filing prints the measure that leaves the charges out: it answers
    ("What was Litware's operating income excluding restructuring charges in 2024?", "335", False),
    # no row leaves amortization out of gross profit: the statement's gross profit is no answer
    ("What was Litware's gross profit excluding amortization in 2024?", "900", True),
])
def test_what_the_question_leaves_out_is_a_part_the_figure_must_say(litware: Settings, question: str, figure: str,
                                                                    refused: bool) -> None:
    out = ask_once(litware, question)
    assert out.startswith("Not found") is refused, out
    assert (figure in stated(out)) is not refused, out
    assert "restructuring costs" not in out.lower(), out  # the charges left out are no second figure asked


@pytest.mark.parametrize(("question", "metric", "words"), [
    # the lexicon names metrics, never their qualifiers ('adjusted EBITDA' is no name of EBITDA): the word before
    # the name narrows it
    ("What was the average adjusted EBITDA over 2023 and 2024?", "ebitda", ["adjusted"]),
    ("What was core EPS in 2024?", "earnings per share", ["core"]),
    ("What was the adjusted free cash flow in 2024?", "free cash flow", ["adjusted"]),
    # plain words narrow nothing; a metric's own name keeps its words ('free' cash flow)
    ("What was unadjusted EBITDA in 2024?", "ebitda", []),
    ("What was free cash flow in 2024?", "free cash flow", []),
])
def test_a_qualifier_before_a_metric_name_is_read(question: str, metric: str, words: list[str]) -> None:
    assert metric_modifiers(question, metric) == words


def test_each_years_lookup_keeps_the_qualifier(litware: Settings) -> None:
    # split into one lookup a year, each lookup still asks for the adjusted figure
    out = ask_once(litware, "What was the average adjusted EBITDA of Litware over 2023 and 2024?")
    assert out.startswith("Not found") and "asks it on an adjusted basis" in out, out
    assert "372.5" not in stated(out), out


def test_a_trend_word_is_no_part_of_the_metric() -> None:
    # 'an improving gross margin' asks how the margin moved, not for a kind of margin its rows must say
    assert scope_terms("Does Litware have an improving gross margin profile as of FY2024?") == []


@pytest.mark.parametrize("question", [
    "What was Litware's Brazil revenue growth in 2024?",
    "What was Litware's software revenue growth in 2024?",
])
def test_a_part_of_a_growth_narrows_each_years_lookup(litware: Settings, question: str) -> None:
    # 'revenue growth' is computed from each year's revenue: the part the question puts on the growth holds for
    # both lookups, so the company's growth (2,100 -> 2,400, 14.29%) is no answer
    out = ask_once(litware, question)
    assert out.startswith("Not found") and "14.29" not in stated(out) and "300" not in stated(out), out
