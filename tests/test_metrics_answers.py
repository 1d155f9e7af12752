"""Answer metrics: numeric-tolerant matching, refusals, yes/no, token F1 and ROUGE-L (hand-computed)."""

from __future__ import annotations

import pytest

from evals.metrics.answers import (
    exact_match,
    is_refusal,
    key_numbers,
    numbers_agree,
    numeric_match,
    question_hints,
    yes_no_of,
)
from evals.metrics.text import bow_cosine, lcs_length, rouge_l, split_sentences, token_f1, tokenize
from evals.runner import score_prediction


# --- scale -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("pred", "gold", "question"),
    [
        ("1577 million", "$1,577.00", ""),  # gold unscaled: any thousandfold relation
        ("$1.577 billion", "$1,577.00", ""),
        ("1.577 billion", "1577 million", ""),  # both scaled: absolute terms
        ("$1,577.00", "1.577 billion", ""),
        ("Capex was $1.577 billion.", "1577", "What is the FY2018 capex (in USD millions)?"),
        ("Capex was $1,577,000,000.", "1577", "What is the FY2018 capex (in USD millions)?"),
        ("$400 million", "0.4", "How much (in USD billions) did it pay in dividends?"),
        ("$5,466,312 in thousands", "5466", "total current liabilities (in USD millions)?"),
    ],
)
def test_scale_equivalences(pred: str, gold: str, question: str) -> None:
    result = numeric_match(pred, gold, question)
    assert result.matched, result.reason


def test_both_scaled_compare_in_absolute_terms() -> None:
    assert not numeric_match("1.577 million", "1577 million").matched
    # The question fixes the gold's scale, and the prediction states its own: 5.4 trillion is not 5.4 billion.
    assert not numeric_match("$5,466,312 in USD millions", "5466", "(in USD millions)").matched


def test_question_hints() -> None:
    hints = question_hints("What is the FY2018 capital expenditure amount (in USD millions) for 3M?")
    assert hints.scale == 1e6 and hints.wants_money and not hints.wants_percent
    hints = question_hints("Answer in units of percents and round to one decimal place.")
    assert hints.wants_percent and not hints.wants_money
    assert question_hints("").scale == 1.0


# --- percent, sign, rounding ------------------------------------------------------------------------------
def test_percent_vs_fraction() -> None:
    assert numeric_match("12.5%", "0.125").matched
    assert numeric_match("0.125", "12.5%").matched
    assert numeric_match("The change was 65.4%", "0.654", "in units of percents").matched
    assert numeric_match("65.4", "0.654", "Answer in units of percents").matched  # bare percent
    assert numeric_match("50 bps", "0.5%").matched
    assert not numeric_match("12.5%", "0.135").matched


def test_money_never_matches_a_percentage() -> None:
    result = numeric_match("About 40% of the balance", "0.4", "How much (in USD billions) did it pay?")
    assert not result.matched
    assert not numeric_match("$396 million", "0.397", "What is the COGS % margin?").matched


def test_sign_and_parentheses() -> None:
    assert numeric_match("(45)", "-45").matched
    assert numeric_match("-45", "(45)").matched
    result = numeric_match("45", "-45")
    assert not result.matched and "sign" in result.reason
    assert numeric_match("Operating income declined by 1.7%", "-1.7%").matched
    assert numeric_match("-0.9%", "The consumer segment shrunk by 0.9% organically.").matched
    # "Net sales decreased 2% to $1,577 million": the decrease governs 2%, not the level 1,577.
    assert numeric_match("Net sales decreased 2% to $1,577 million", "1577").matched


def test_rounding_to_gold_precision() -> None:
    assert numeric_match("12.35%", "12.4%").matched  # rounds to the gold's one decimal
    assert numeric_match("3.45", "3.46").matched  # one unit of the last decimal: rounded intermediates
    assert numeric_match("7.8%", "0.079").matched
    assert not numeric_match("12.2%", "12.4%").matched
    assert not numeric_match("93.55", "93.86").matched  # 0.3% off: a different input, not rounding
    assert numeric_match("93.55", "93.86", rel_tol=0.01).matched  # the loose 1% convention accepts it
    assert not numeric_match("$327 million", "0.4", "in USD billions").matched  # 0.33 is not 0.4
    # Whole-number golds are read off a statement: no unit of rounding slack (302 is not 303, 2018 not 2019).
    assert not numeric_match("$302 million", "303", "in USD millions").matched
    assert not numeric_match("The plant opened in 2018.", "2019").matched
    assert numeric_match("The plant opened in 2019.", "2019").matched
    result = numeric_match("DPO is 93.88 days", "93.86")
    assert result.matched and result.gold_value == 93.86 and result.pred_value == pytest.approx(93.88)


def test_gold_given_as_json_number() -> None:
    assert numeric_match("Total current assets were $16,525 million.", 16525, "Answer in USD millions.").matched
    assert numeric_match("ROA = 1.42%", 0.01).matched  # coarse gold: 0.0142 rounds to 0.01
    assert numeric_match("The ratio is 0.66", 0.66).matched


# --- several numbers, conclusions -------------------------------------------------------------------------
def test_gold_key_number_among_prediction_numbers() -> None:
    pred = "Revenue was $5,162 million and capex $271 million, so capex was 5.2% of revenue."
    assert numeric_match(pred, "5.2%").matched
    assert numeric_match(pred, "$271 million").matched


def test_conclusion_overrides_intermediate_numbers() -> None:
    pred = (
        "Operating income = $1,196 million. Add back D&A of $636 million.\n"
        "Unadjusted operating income = $1,832 million.\n"
        "So, the unadjusted EBITDA is $2,468 million."
    )
    result = numeric_match(pred, "1832", "in USD millions")
    assert not result.matched and "conclusion" in result.reason
    assert numeric_match(pred, "2468", "in USD millions").matched


def test_all_key_numbers_of_a_multi_number_gold() -> None:
    gold = "The effective tax rate changed from 24.6% in FY 2021 to 21.6% in FY 2022."
    assert numeric_match("It fell from 24.6% to 21.6%.", gold).matched
    result = numeric_match("It was 21.6% in 2022.", gold)
    assert not result.matched and "24.6%" in result.reason


def test_key_numbers_skip_labels_and_dates() -> None:
    assert [n.value for n in key_numbers("36%. Assumes FY2023 is the 12 months ended January 28, 2023.")] == [36.0]
    assert key_numbers("Revenue grew in FY22 and Q2") == []
    assert [n.value for n in key_numbers("2019")] == [2019.0]


def test_list_enumerators_are_not_figures() -> None:
    pred = "Steps:\n1. Obtain net income.\n2. Divide by average assets."
    assert not numeric_match(pred, "0.01", "What is the return on assets (ROA)?").matched


# --- yes/no, refusals, text golds -----------------------------------------------------------------------
def test_yes_no() -> None:
    assert yes_no_of("Yes. The quick ratio is 1.57.") is True
    assert yes_no_of("no, it did not") is False
    assert yes_no_of("The answer is: No.") is False
    assert yes_no_of("Revenue rose.") is None
    gold = "No. Microsoft decreased its debt by $2.5bn in FY 2023 vs FY 2022."
    result = numeric_match("Yes, debt increased.", gold)
    assert not result.matched and result.kind == "yes_no"
    assert numeric_match("No, it did not increase its debt.", gold).matched
    assert numeric_match("Debt fell by $2.5 billion year over year.", gold).matched


@pytest.mark.parametrize(
    "text",
    [
        "The answer is not found in the filings.",
        "This cannot be determined from the provided documents.",
        "I don't know.",
        "There is no information about segment margins in the context.",
        "I'm sorry, but I cannot calculate the ratio without the balance sheet.",
        "",
    ],
)
def test_refusals(text: str) -> None:
    assert is_refusal(text)
    assert not numeric_match(text, "1577").matched


def test_refusal_matches_a_refusal_gold() -> None:
    result = numeric_match("Not found in the filings.", "The filings do not disclose this.")
    assert result.matched and result.kind == "refusal"


def test_not_refusals() -> None:
    assert not is_refusal("Capital expenditure was $1,577 million in FY2018.")
    long_answer = " ".join(["Revenue grew 10% on strong demand in every segment of the business."] * 12)
    assert not is_refusal(long_answer + " The filing does not specify the split by customer.")
    assert is_refusal("I cannot determine the ratio from these pages. " + long_answer)


def test_an_answer_is_judged_a_refusal_the_same_with_or_without_its_citations() -> None:
    # a figure stated beside a refusal of another part: the match and the run's refused count read one verdict
    # (before, the match stripped the citations and called this short answer a refusal, the run counted the long
    # one as an answer, so a right figure was scored wrong)
    words = "Net earnings in FY2016 was 6948. Not found in the filings: net income (basic) for FY2016 (the row does not say basic)."
    cited = words.replace("6948.", "6948 [PM_2017_page_99, p. 1]." + " [PM_2017_page_99, p. 1]" * 20)
    assert is_refusal(cited) == is_refusal(words)
    assert score_prediction("what was the value in 2016?", cited, "6948").refusal == is_refusal(words)


def test_a_refusal_is_never_right_even_when_it_shows_the_gold() -> None:
    pred = ("I cannot determine how much is attributable to shareholders. The income statement shows net "
            "income of $11,588 million for FY2019.")
    result = numeric_match(pred, "11588", "net income attributable to shareholders (in USD millions)?")
    assert not result.matched and result.kind == "refusal"
    closest = ("Not found in the filings: revenue for FY2023 (the filing gives revenue, not for Europe). "
               "Closest evidence (not the figure asked): revenue for FY2023: $16,148 million [X_2023_10K, p. 3].")
    assert not numeric_match(closest, "$16,148 million").matched
    # On a trap set the gold itself refuses: there a refusal is the right answer.
    assert numeric_match("Not found in the filings: Contoso's revenue.", "Not available in the filings").matched


def test_a_word_that_starts_like_a_month_is_no_month() -> None:
    assert numeric_match("Net earnings decreased 9.2% in 2023.", "-9.2%").matched
    assert numeric_match("Net earnings declined 9.2% in 2023.", "-9.2%").matched
    assert not numeric_match("The dividend was paid on December 31, 2023.", "31").matched  # a day of a date


def test_an_answer_rounded_to_the_precision_it_states_matches() -> None:
    assert numeric_match("Revenue was $16.1 billion.", "$16,148 million").matched
    assert not numeric_match("Revenue was $16.4 billion.", "$16,148 million").matched
    assert not numeric_match("Revenue was $16 billion.", "$16,148 million").matched  # two digits say too little


def test_cents_are_hundredths_of_a_dollar() -> None:
    assert numeric_match("Diluted EPS was 73.3 cps.", "$0.733").matched
    assert numeric_match("The dividend was 73.3 cents per share.", "$0.733").matched
    assert not numeric_match("The dividend was 73.3 cents per share.", "$73.3").matched
    # a bare gold read off a table printed in cents per share is in cents
    assert numeric_match("Basic earnings per share was 206.20 cents.", "206.2").matched


def test_text_gold() -> None:
    assert numeric_match("The largest liability was customer deposits.", "Customer deposits").matched
    result = numeric_match("Long-term debt was the largest.", "Customer deposits")
    assert not result.matched and result.kind == "text"


def test_exact_match_normalises() -> None:
    assert exact_match("The  Data Center.", "data center")
    assert exact_match("$1,577", "1577")
    assert not exact_match("Data Center", "Gaming")


def test_numbers_agree() -> None:
    assert numbers_agree("Cloud revenue rose 35% to $11.4 billion", "Cloud grew 35 percent") is True
    assert numbers_agree("Revenue was $10 billion", "Revenue was $12 billion") is False
    assert numbers_agree("no figures here", "5 stores") is None


# --- text metrics ---------------------------------------------------------------------------------------
def test_tokenize_keeps_numbers_whole() -> None:
    assert tokenize("The revenue was $1,577.5 million, up 12.5%.") == ["revenue", "was", "1577.5", "million", "up", "12.5%"]


def test_token_f1_hand_value() -> None:
    # pred tokens: revenue was 1577 million; ref: revenue of 1577 million dollars; 3 shared.
    # P = 3/4, R = 3/5, F1 = 2PR / (P + R) = 2/3.
    assert token_f1("The revenue was $1,577 million", "Revenue of 1,577 million dollars") == pytest.approx(2 / 3)
    assert token_f1("", "") == 1.0
    assert token_f1("abc", "xyz") == 0.0


def test_rouge_l_hand_values() -> None:
    assert lcs_length(list("abcd"), list("ace")) == 2
    # LCS "the cat on the mat" = 5 of 6 tokens each side: P = R = F = 5/6.
    assert rouge_l("the cat sat on the mat", "the cat was on the mat") == pytest.approx(5 / 6)
    # LCS "a c" = 2; P = 2/4, R = 2/3; F1 = 2 * 0.5 * 0.6667 / 1.1667 = 4/7.
    assert rouge_l("a b c d", "a c e") == pytest.approx(4 / 7)
    # Order matters for LCS but not for token F1.
    assert rouge_l("mat the on", "on the mat") == pytest.approx(1 / 3)
    assert token_f1("mat the on", "on the mat") == pytest.approx(1.0)
    assert rouge_l("", "x") == 0.0


def test_bow_cosine_and_sentences() -> None:
    assert bow_cosine("a b", "a b") == pytest.approx(1.0)
    assert bow_cosine("x y", "x z") == pytest.approx(0.5)
    assert split_sentences("Revenue rose 3.5% to $4.2 billion. U.S. sales grew.\n- Margin fell.") == [
        "Revenue rose 3.5% to $4.2 billion.", "U.S. sales grew.", "Margin fell."
    ]


@pytest.mark.parametrize(
    ("pred", "gold", "matched"),
    [
        ("$0.96", "0.96", True),  # a per-share dollar figure against a bare gold
        ("Diluted EPS was $0.96 [A, p. 3].", "0.96", True),
        ("$96", "0.96", False),  # no scale turns dollars into a fraction
        ("$0.96 million", "0.96", False),
    ],
)
def test_unit_prices_match_bare_golds(pred: str, gold: str, matched: bool) -> None:
    assert numeric_match(pred, gold).matched is matched


def test_citation_page_numbers_and_document_names_state_no_figure() -> None:
    # A refusal citing page 1 does not 'state' a gold of 1; a figure stated beside a citation still counts.
    refusal = ("Not found in the filings: PepsiCo's guidance in FY2023Q1. Closest evidence (not the figure asked): "
               "EPS change was 11% [PEPSICO_2022_10K, p. 1].")
    assert not numeric_match(refusal, "1 percentage point").matched
    assert not numeric_match("Not found. Closest evidence: [ACME_2022_10K, p. 10]", "10").matched
    assert numeric_match("Capex was $1,577 million [3M_2018_10K, p. 60].", "$1577.00").matched


def test_rescore_says_what_moved_between_right_wrong_and_refused(tmp_path) -> None:
    from evals.rescore import rescore
    from evals.runner import RESULTS_FILE, AnswerScores, QuestionCost, QuestionResult

    def stored(question: str, gold: str, prediction: str, correct: bool, refusal: bool) -> str:
        return QuestionResult(id=question[:8], dataset="tatqa", question_type="arithmetic", question=question, gold=gold, prediction=prediction,
                              scores=AnswerScores(correct=correct, refusal=refusal), latency_s=0.1,
                              cost=QuestionCost(id=question[:8], wall_s=0.1)).model_dump_json()

    (tmp_path / RESULTS_FILE).write_text("\n".join([
        # scored right when a refusal showing the gold counted: now refused
        stored("What was revenue in 2023?", "$16,148 million", "Not found in the filings: revenue for FY2023. "
               "Closest evidence (not the figure asked): revenue: $16,148 million [X, p. 3].", True, True),
        stored("How did earnings change?", "-9.2%", "Net earnings decreased 9.2% in 2023 [X, p. 4].", False, False),
    ]) + "\n")
    result = rescore(tmp_path)
    assert result.moved == {"right -> refused": 1, "wrong -> right": 1}
    assert result.after == {"right": 1, "wrong": 0, "refused": 1, "unscored": 0}
