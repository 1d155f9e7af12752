"""A range a filing prints ('1.74% - 1.94%', '$4.5-$4.7 billion') is one figure with both its ends: its dash is no
minus sign, it is stated whole, and nothing is computed from one of its ends."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import ask_once, ingested_typeset, stated

from agent.finance.numbers import find_numbers

FILING = """# Contoso Ltd. Annual Report 2019

## Item 8. Notes to Consolidated Financial Statements

### Stock-based compensation

The fair value of each option grant was estimated with the following assumptions:

| | 2019 | 2018 |
|---|---|---|
| Risk-free interest rate | 1.74% - 1.94% | 2.50% |
| Expected volatility | 25.0% | 22.0% - 24.0% |
| Expected term (in years) | 5.5 | 5.5 |
"""


@pytest.mark.parametrize(
    ("text", "low", "high", "unit", "scale"),
    [
        ("1.74% - 1.94%", 1.74, 1.94, "%", 1.0),
        ("2.0%\u20132.5%", 2.0, 2.5, "%", 1.0),  # an en dash glued to the second figure is the range's too
        ("$4.5-$4.7 billion", 4.5, 4.7, "USD", 1e9),  # the scale written once is both ends'
        ("$900 million - $1.2 billion", 900.0, 1200.0, "USD", 1e6),  # each end in the lower end's scale
        ("expects between $4.5 and $4.7 billion", 4.5, 4.7, "USD", 1e9),  # the lower end is no $4.5 in units
    ],
)
def test_a_range_is_one_figure_with_both_ends(text: str, low: float, high: float, unit: str, scale: float) -> None:
    (figure,) = find_numbers(text)
    assert (figure.value, figure.high, figure.unit, figure.scale) == (low, high, unit, scale)
    assert figure.is_bound and text.endswith(figure.text)  # no one figure to compute with; quoted as printed


@pytest.mark.parametrize("text", ["12-31", "(1.5) - (2.0)", "1.94% - 1.74%", "1,234 - 1,100"])
def test_a_dash_between_other_figures_is_no_range(text: str) -> None:
    # a date's parts, two negatives, a falling pair and plain counts keep their reading
    assert all(n.high is None for n in find_numbers(text)) and len(find_numbers(text)) == 2


@pytest.fixture(scope="module")
def contoso(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ingested_typeset(tmp_path_factory.mktemp("ranges"), "CONTOSO_2019_10K.md", FILING).home


def test_a_range_in_a_table_is_stated_whole(contoso: Path) -> None:
    from agent.config import Settings

    settings = Settings.from_env(home=contoso)
    answer = stated(ask_once(settings, "What was Contoso's risk-free interest rate in 2019?"))
    assert "1.74% - 1.94%" in answer and "-1.94" not in answer
    answer = stated(ask_once(settings, "What was Contoso's expected volatility in 2018?"))
    assert "22.0% - 24.0%" in answer


def test_nothing_is_computed_from_one_end_of_a_range(contoso: Path) -> None:
    from agent.config import Settings

    settings = Settings.from_env(home=contoso)
    answer = stated(ask_once(settings, "What was the change in Contoso's risk-free interest rate from 2018 to 2019?"))
    assert "0.76" not in answer and "-0.2" not in answer  # 1.74 - 2.50 or 1.94 - ... would be a made-up change


GUIDANCE = """# Contoso Ltd. Annual Report 2019

## Item 7. Management's Discussion and Analysis

### Outlook

For fiscal 2020, the Company expects net sales of $4.5-$4.7 billion.
"""


def test_guidance_is_answered_as_its_range_and_only_when_asked(tmp_path: Path) -> None:
    settings = ingested_typeset(tmp_path, "CONTOSO_2019_10K.md", GUIDANCE)
    # 'outlook' after the metric is the figure's basis, not a part of net sales the filing would have to print
    for question in ("What is Contoso's net sales outlook for fiscal 2020?",
                     "What net sales does Contoso expect for fiscal 2020?"):
        answer = stated(ask_once(settings, question))
        assert "4.5" in answer and "4.7" in answer and "Not found" not in answer, question
    # the expectation is no result: net sales themselves are not stated from it, and never as $4.5 in units
    answer = ask_once(settings, "What were Contoso's net sales in fiscal 2020?")
    assert "Not found" in stated(answer) and "$4.5 billion\u2013$4.7 billion" in answer  # the evidence, shown whole
