"""Numeric-tolerant answer matching: is a predicted answer the gold answer, read the way an analyst would?

Built on :mod:`agent.finance.numbers` (never a second number parser). The rules, in order:

1. Yes/no golds ("Yes. The quick ratio is 1.57 ..."): a prediction stating the other yes/no never matches;
   one stating the same yes/no matches (the yes/no is the core fact, the figures support it).
2. A refusal ("not found in the filings", "cannot be determined", "I don't know") never matches, even when
   its closest evidence states the gold's number, unless the gold itself says the answer is not available
   (trap sets).
3. The gold's *key numbers* (those with a unit or scale, else its numbers) must each be found among the
   prediction's numbers, or, when the prediction concludes explicitly ("Therefore, ... is 7.8%"), among the
   numbers of its conclusion, so an intermediate result that happens to equal the gold does not count.
   Two numbers are equal when, with the prediction put in the gold's terms, they differ by at most
   ``rel_tol * |gold|``, the rounding slack of the gold's last written decimal (half a unit always; for
   golds with decimals one unit while that is under 2% of the value: "12.35%" = "12.4%", "7.8%" ~ "0.079"),
   or half a unit of the prediction's own last digit when it writes three or more significant digits
   ("$16.1 billion" = "$16,148 million"); amounts in cents ("73.3 cents", "73.3 cps") are hundredths of a dollar:
   - scale: when both sides state a scale (a scale word, "in millions" right after the number, or the
     question's "in USD millions" for the gold) they are compared in absolute terms; when a side states
     none, a 1/1e3/1e6/1e9 relation is accepted ("$1,577.00" = "1577 million" = "1.577 billion").
   - percent vs fraction: "12.5%" = "0.125"; a plain number may be a percent when the question asks for
     one ("in units of percents": gold 0.654 = "65.4"); basis points are hundredths of a percent.
   - sign: "(45)" = "-45"; a positive number governed by a decrease word ("fell by 45") may read as -45.
   - money never matches a percentage or a ratio; a year matches only itself.
4. Golds with no number match on containment or on half of their content words (a weak proxy; see the
   calibration report for how far to trust it).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

from pydantic import BaseModel, Field

from agent.finance.numbers import decimals_of, find_numbers
from agent.schemas import NumericValue
from evals.metrics.text import content_tokens, normalize_text, split_sentences, tokenize

# Relative slack for rounding noise of derived figures (93.88 vs 93.86). FinanceBench's human graders reject
# gaps of 0.3% and more (93.55 vs 93.86, 65.2% vs 65.4%), so 1% would accept their wrong answers: agreement
# on FinanceBench's number-valued golds is 99.6% at 0.1% and 97.7% at 1% (see evals/calibration.py).
DEFAULT_REL_TOL = 0.001
# Rounding slack: a value that rounds to the gold at the gold's written decimals always matches; for a gold
# with decimals, one full unit of the last decimal (rounded intermediates: an average of rounded percents)
# matches while it is a small share of the value, so a coarse gold like 0.4 does not accept 0.33.
ROUNDING_NOISE_UNITS = 1.0
ROUNDING_NOISE_MAX_REL = 0.02
SCALE_RELATIONS = (1.0, 1e3, 1e6, 1e9)  # a side without a scale may be in units, thousands, millions or billions.
SIGN_CONTEXT_CHARS = 40  # how far before/after a number a decrease word still describes it ("fell ... by 45").
KEY_PLAIN_MAX_TOKENS = 6  # a gold longer than this is a sentence whose bare integers are narrative.
GOLD_TOKEN_RECALL_MIN = 0.5  # a text gold matches when the prediction has at least half its content words.
_FLOAT_SLACK = 1e-9  # binary floats: 12.35 - 12.4 must not read as 0.0500000001 > 0.05.

_MONEY_UNITS = frozenset({"USD", "EUR", "GBP"})

# Strong cues: the answerer itself declines or asks for the data. They decide at the opening or close of an
# answer. ("As of my last update ..." and "see the latest 10-K" wrap real answers, so they are not cues.)
_STRONG_REFUSAL_PATTERNS = [
    r"\b(?:i|we) (?:can ?not|can't|could ?not|couldn't|am unable to|are unable to|was unable to|am not able to)"
    r" (?:\w+ )?(?:determine|calculate|compute|answer|find|provide|identify|locate|derive|confirm|say|tell|access|"
    r"give|extract)",
    r"\b(?:can ?not|can't|could ?not|couldn't) be (?:\w+ )?(?:determined|calculated|computed|answered|found|"
    r"confirmed|derived|identified)",
    r"\b(?:it is |it's )?(?:impossible|not possible) to (?:\w+ )?(?:determine|calculate|compute|answer|find|"
    r"provide|identify|derive|say|tell|confirm)",
    r"\bi (?:do not|don't) (?:know|have (?:enough|sufficient|the|access|real-time|specific))",
    r"\bi(?:'m| am) (?:sorry|afraid|not able|unable)",
    r"\bas an ai\b",
    r"\b(?:don't|do not|doesn't|does not) have access\b",
    r"\b(?:you )?(?:haven't|have not) (?:provided|given|shared)\b",
    r"\bplease provide\b",
    r"\bonce you (?:have|provide|obtain)\b",
    r"\b(?:not|insufficient|not enough) (?:enough |sufficient )?(?:information|data|details|context) "
    r"(?:to|is available|was available|provided)",
    r"\bno (?:information|answer|data) (?:was |is )?(?:found|available)",
]
# Weak cues: the source lacks something. In a long worked answer a closing "the filing does not specify X"
# is often an aside, so these decide only in short answers or in the opening sentence.
_WEAK_REFUSAL_PATTERNS = [
    r"\bnot (?:be )?(?:found|available|readily available|provided|included|disclosed|mentioned|stated|specified|"
    r"given|present|contained|listed|shown|reported)\b(?: (?:anywhere )?in| within)? (?:the |these |this |any )?"
    r"(?:filings?|documents?|context|information|data|excerpts?|text|pages?|passages?|statements?|report|"
    r"provided|given|materials?)",
    r"\bnot readily available\b",
    r"\b(?:there is |there's )?(?:no|insufficient) (?:relevant |specific |such |sufficient )?"
    r"(?:information|data|details|mention|figures?|numbers?) (?:is |was )?(?:available|provided|given|about|on|"
    r"regarding|in|to|that|for|disclosed)",
    r"\b(?:does|do|did)(?: not|n't) (?:provide|include|contain|mention|specify|disclose|state|give|show)",
    r"\bunable to\b|\bcannot\b|\bcan't\b",
]


def _alternation(patterns: list[str]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)


_STRONG_REFUSAL_RE = _alternation(_STRONG_REFUSAL_PATTERNS)
_ANY_REFUSAL_RE = _alternation(_STRONG_REFUSAL_PATTERNS + _WEAK_REFUSAL_PATTERNS)
_REFUSAL_SHORT_WORDS = 60  # an answer this short that contains any refusal cue is a refusal as a whole.
_REFUSAL_EDGE_SENTENCES = 2  # in longer answers, a strong cue in the opening or closing sentences decides it.

_DECREASE = (
    r"(?:decreas\w*|declin\w*|dropp?\w*|fell|fall\w*|lower\w*|loss\w*|negative|down|reduc\w*|shr[aiu]nk\w*|"
    r"contract\w*|deficit|minus)"
)
# "decreased by 1.7%", "its debt fell by $2.5bn", "declined 0.9%": the decrease word governs the number.
_DECREASE_BEFORE_RE = re.compile(
    rf"\b{_DECREASE}(?:\s+[\w']+){{0,3}}?\s+(?:by|of)\s+(?:approximately\s+|about\s+|around\s+|~\s*)?$"
    rf"|\b{_DECREASE}\s+(?:approximately\s+|about\s+|around\s+|~\s*)?$",
    re.IGNORECASE,
)
# "a 0.9% decline", "$229 million decrease".
_DECREASE_AFTER_RE = re.compile(rf"^\s*(?:in\s+\w+\s+)?{_DECREASE}\b", re.IGNORECASE)
_CONCLUSION_RE = re.compile(
    r"^\W*(?:so|finally|in conclusion|in summary|to summari[sz]e|overall|final answer|answer)\b"
    r"|\b(?:therefore|thus|hence)\b|\bthe (?:final )?answer is\b",
    re.IGNORECASE,
)
_YES_NO_RE = re.compile(r"^\W*(yes|no)\b", re.IGNORECASE)
_STATED_YES_NO_RE = re.compile(r"\b(?:answer|short answer|in short|overall)\s*(?:is|:)?\s*[:\-]?\s*\W*(yes|no)\b", re.I)
_QUESTION_SCALE_RE = re.compile(
    r"\b(?:in|usd|us\s*dollars?|dollars|\$)\s*(?:usd\s+|us\s*\$\s*|\$\s*|us\s+dollars?\s+)?"
    r"(thousands|millions|billions)\b",
    re.IGNORECASE,
)
_QUESTION_PERCENT_RE = re.compile(r"\bpercent(?:s|age)?\b|%", re.IGNORECASE)
# "$5,466,312 in USD millions": a scale stated right after a number applies to it.
_TRAILING_SCALE_RE = re.compile(
    r"^\s*\(?\s*in\s+(?:usd\s+|us\s*\$\s*|\$\s*|us\s+dollars?\s+)?(thousands|millions|billions)\b", re.IGNORECASE
)
_QUESTION_MONEY_RE = re.compile(r"\b(?:usd|dollars?|us\$)\b|\$", re.IGNORECASE)
# A month written before a day number ('Dec 31', 'December 31'): whole month words only, so 'decreased 9.2%' and
# 'declined 9.2%' keep their figure.
_MONTH_RE = re.compile(
    r"\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?\s*$",
    re.IGNORECASE,
)
_LIST_MARKER_RE = re.compile(r"^[.)](?:\s|$)")
# A citation ('[PEPSICO_2023Q1_EARNINGS, p. 1]'): its page number and document name state no figure.
_CITATION_RE = re.compile(r"\[[^\[\]\n]{1,200}?,\s*p\.\s*\d+\]")
_YEAR_VALUE_RE = re.compile(r"^(?:19|20)\d{2}$")
_SCALE_OF_WORD = {"thousands": 1e3, "millions": 1e6, "billions": 1e9}
# '73.3 cents', '73.3 cps', '73.3¢': an amount in hundredths of the currency it is compared with.
_CENTS_AFTER_RE = re.compile(r"^\s*(?:¢|cents?\b|cps\b|c\s+per\s+share\b)", re.IGNORECASE)
CENT = 0.01
# A prediction rounded to the precision it writes ('$16.1 billion' for $16,148 million) is right when it keeps at
# least this many significant digits; fewer ('$16 billion') say too little to be checked.
PRECISION_MIN_SIGNIFICANT = 3


class MatchResult(BaseModel):
    """Whether a prediction matches the gold answer, and why."""

    matched: bool
    reason: str = Field(description="one line a person can check")
    kind: str = Field(default="numeric", description="numeric | yes_no | refusal | text | empty")
    gold_value: float | None = Field(default=None, description="gold key number as written (gold's scale)")
    pred_value: float | None = Field(default=None, description="closest prediction number, in the gold's terms")
    gold_text: str = ""
    pred_text: str = ""


class QuestionHints(BaseModel):
    """What the question says about the expected answer's form."""

    scale: float = Field(default=1.0, description="'in USD millions' -> 1e6; 1.0 when unstated")
    wants_percent: bool = False
    wants_money: bool = False


def question_hints(question: str) -> QuestionHints:
    """Read the answer's expected scale and kind from the question ("Answer in USD billions")."""
    question = question or ""
    m = _QUESTION_SCALE_RE.search(question)
    scale = _SCALE_OF_WORD[m.group(1).lower()] if m else 1.0
    wants_percent = bool(_QUESTION_PERCENT_RE.search(question))
    wants_money = not wants_percent and (bool(m) or bool(_QUESTION_MONEY_RE.search(question)))
    return QuestionHints(scale=scale, wants_percent=wants_percent, wants_money=wants_money)


# ---------------------------------------------------------------------------------------------------------
# Refusals, yes/no, exact match
# ---------------------------------------------------------------------------------------------------------
def is_refusal(text: str) -> bool:
    """True when the answer declines to answer ("not found in the filings", "cannot be determined", ...).

    A short answer with any refusal cue is a refusal. A long one is when its opening or closing sentences
    decline in the first person ("I cannot calculate", "please provide the figures") or its opening sentence
    says the source lacks the answer; a closing aside such as "the filing does not specify X" in a worked
    answer is not a refusal. Citations ('[doc, p. 3]') are no words of the answer: an answer is judged the same
    with or without them (the match and the run's refused count read one verdict).
    """
    text = _CITATION_RE.sub(" ", text or "")
    flat = normalize_text(text)
    if not flat:
        return True
    if not _ANY_REFUSAL_RE.search(flat):
        return False
    if len(flat.split()) <= _REFUSAL_SHORT_WORDS:
        return True
    sentences = [normalize_text(s) for s in split_sentences(text)]
    edge = sentences[:_REFUSAL_EDGE_SENTENCES] + sentences[-_REFUSAL_EDGE_SENTENCES:]
    return any(_STRONG_REFUSAL_RE.search(s) for s in edge) or bool(_ANY_REFUSAL_RE.search(sentences[0]))


def yes_no_of(text: str) -> bool | None:
    """The yes/no an answer opens with or states ("Yes. ...", "The answer is no"); None when it states none."""
    m = _YES_NO_RE.match(text or "") or _STATED_YES_NO_RE.search(text or "")
    if not m:
        return None
    return m.group(1).lower() == "yes"


def exact_match(pred: str, gold: str) -> bool:
    """Equal after normalisation (case, white space, punctuation, articles, thousands separators)."""
    return tokenize(str(pred)) == tokenize(str(gold))


# ---------------------------------------------------------------------------------------------------------
# Numbers
# ---------------------------------------------------------------------------------------------------------
def _gold_text(gold: str | float | int) -> str:
    """A gold given as a JSON number becomes text without float noise (11588.0 -> '11588')."""
    if isinstance(gold, bool):
        return "Yes" if gold else "No"
    if isinstance(gold, int):
        return str(gold)
    if isinstance(gold, float):
        return str(int(gold)) if gold.is_integer() else repr(gold)
    return str(gold)


def _numbers(text: str, include_years: bool = False) -> list[NumericValue]:
    """Numbers of ``text`` minus labels glued to letters (FY22, Q2, 10-K) and day numbers of dates."""
    out: list[NumericValue] = []
    for nv in find_numbers(text, include_years=include_years):
        before = text[max(0, nv.start - 1) : nv.start]
        after = text[nv.end : nv.end + 1]
        if before.isalpha() or (after.isalpha() and not nv.unit and nv.scale == 1.0 and after.lower() != "x"):
            continue
        if before == "-" and nv.start >= 2 and text[nv.start - 2].isalpha():  # "10-K", "S-1": form names
            continue
        if _MONTH_RE.search(text[max(0, nv.start - 12) : nv.start]):
            continue
        if (
            _LIST_MARKER_RE.match(text[nv.end : nv.end + 2])
            and nv.text.isdigit()
            and not text[: nv.start].split("\n")[-1].strip(" \t*-•")
        ):
            continue  # "1. Obtain the net income": an enumerator, not a figure
        trailing = _TRAILING_SCALE_RE.match(text[nv.end : nv.end + 30])
        if trailing and nv.scale == 1.0 and nv.unit not in {"%", "bps", "x"}:
            nv = nv.model_copy(update={"scale": _SCALE_OF_WORD[trailing.group(1).lower()]})
        if nv.unit in {"", "USD"} and nv.scale == 1.0 and _CENTS_AFTER_RE.match(text[nv.end : nv.end + 16]):
            nv = nv.model_copy(update={"unit": "USD", "scale": CENT})  # '73.3 cents': 73.3 hundredths of a dollar
        out.append(nv)
    return out


def key_numbers(gold: str) -> list[NumericValue]:
    """The numbers a correct answer must contain.

    Numbers with a unit or scale when there are any; else the plain numbers, except that in a gold that is
    a sentence, bare integers ("47 new stores", "the 12 months ended") are narrative, not the answer; a
    gold that is nothing but a year keeps its year.
    """
    nums = _numbers(gold)
    marked = [n for n in nums if n.unit or n.scale != 1.0]
    if marked:
        return marked
    if len(tokenize(gold)) > KEY_PLAIN_MAX_TOKENS:
        return [n for n in nums if decimals_of(n.text) > 0]
    return nums or _numbers(gold, include_years=True)


def _sign_options(text: str, nv: NumericValue) -> tuple[float, ...]:
    """Signed readings of a number: explicit signs ("-45", "(45)") are kept; a decrease word right before or
    after a positive number ("fell by 45", "a 0.9% decline") allows the negative reading as well."""
    if nv.value < 0:
        return (nv.value,)
    before = text[max(0, nv.start - SIGN_CONTEXT_CHARS) : nv.start]
    after = text[nv.end : nv.end + SIGN_CONTEXT_CHARS]
    if _DECREASE_BEFORE_RE.search(before) or _DECREASE_AFTER_RE.match(after):
        return (nv.value, -nv.value)
    return (nv.value,)


def _kind(unit: str) -> str:
    """money | shares | pct | plain: what a number measures, from its unit."""
    if unit in _MONEY_UNITS:
        return "money"
    if unit in {"%", "bps"}:
        return "pct"
    if unit == "shares":
        return "shares"
    return "plain"


def _gold_kind(gold: NumericValue, hints: QuestionHints) -> str:
    """The gold's kind from its unit, else from the question; a bare gold is a ratio (0.654 for 65.4%, ROA
    0.01) when the question asks for a percent or when it is below 1 with no scale anywhere in sight."""
    kind = _kind(gold.unit)
    if kind != "plain" or gold.scale != 1.0:
        return kind
    if hints.wants_money:
        return "money"
    if hints.wants_percent or (abs(gold.value) < 1 and hints.scale == 1.0):
        return "ratio"
    return "plain"


def _multipliers(pred: NumericValue, gold: NumericValue, gold_scale: float, hints: QuestionHints) -> list[float]:
    """Factors that put the prediction's value in the gold's terms; empty when the two cannot agree."""
    pk, gk = _kind(pred.unit), _gold_kind(gold, hints)
    to_pct = {"%": 1.0, "bps": 0.01}
    if pk == "pct" and gk == "pct":
        return [to_pct[pred.unit] / to_pct[gold.unit]]
    if pk == "pct":  # 12.5% against a plain gold: the gold is a fraction (0.125) or a bare percent (12.5)
        return [to_pct[pred.unit] / 100.0, to_pct[pred.unit]] if gk in {"ratio", "plain"} else []
    if gk == "pct":
        return [100.0 / to_pct[gold.unit], 1.0] if pk == "plain" else []
    if gk == "ratio":
        if pred.scale != 1.0:
            return []
        if pk == "money":  # a per-share or unit price ("$0.96") against a bare gold written as 0.96
            return [1.0]
        if pk != "plain":
            return []
        # "in units of percents": 65.4 may be written for a gold of 0.654 (and 0.654 for a gold of 65.4).
        return [1.0, 0.01, 100.0] if hints.wants_percent else [1.0]
    if {pk, gk} == {"money", "shares"} or (pk == gk == "money" and pred.unit and gold.unit and pred.unit != gold.unit):
        return []
    base = pred.scale / gold_scale
    if pred.scale != 1.0 and gold_scale != 1.0:
        return [base]
    if pk == gk == "plain" and pred.scale == gold_scale == 1.0:
        return [1.0]  # bare numbers with no money or scale anywhere: a thousandfold relation is a coincidence
    # An unscaled side may also be written in the other's own scale ('3.45' beside a gold of '3.45 cents', '206.2
    # cents' beside a bare gold of '206.2' read off a table printed in cents per share).
    same = [1.0] if pred.scale == 1.0 or (pred.scale == CENT and not gold.unit) else []
    return [base * r for r in SCALE_RELATIONS] + [base / r for r in SCALE_RELATIONS[1:]] + same


def _stated_precision(pred: NumericValue, multiplier: float) -> float:
    """Half a unit of the prediction's last written digit, in the gold's terms ('16.1 billion': 0.05 billion),
    when it writes at least PRECISION_MIN_SIGNIFICANT significant digits; else 0."""
    digits = re.sub(r"[^0-9.]", "", pred.text)
    whole, _, fraction = digits.partition(".")
    significant = len((whole + fraction).lstrip("0"))
    if significant < PRECISION_MIN_SIGNIFICANT:
        return 0.0
    return 0.5 * 10.0 ** (-len(fraction)) * abs(multiplier)


def _tolerance(gold: NumericValue, rel_tol: float) -> float:
    """Allowed gap: rel_tol of the gold, or the rounding slack of the gold's last written decimal."""
    decimals = decimals_of(gold.text)
    ulp = 10.0 ** (-decimals)
    # Whole numbers (amounts read off a statement, counts, years) carry no rounded intermediates.
    noise = min(ROUNDING_NOISE_UNITS * ulp, ROUNDING_NOISE_MAX_REL * abs(gold.value)) if decimals else 0.0
    return max(rel_tol * abs(gold.value), 0.5 * ulp, noise) + _FLOAT_SLACK


def _is_year(nv: NumericValue, hints: QuestionHints) -> bool:
    return bool(_YEAR_VALUE_RE.match(nv.text)) and not nv.unit and nv.scale == 1.0 and hints.scale == 1.0 and not (
        hints.wants_money
    )


class _NumberMatch(BaseModel):
    matched: bool
    gold: float
    pred: float | None = None
    pred_text: str = ""
    sign_only: bool = False


def _match_number(
    gold: NumericValue, gold_text: str, preds: Iterable[tuple[NumericValue, str]], hints: QuestionHints,
    rel_tol: float,
) -> _NumberMatch:
    """Find the gold number among the prediction's numbers (each with the text it was read from)."""
    gold_scale = gold.scale if gold.scale != 1.0 else hints.scale
    gold_signs = _sign_options(gold_text, gold)
    tol = 0.5 if _is_year(gold, hints) else _tolerance(gold, rel_tol)  # a year is right or wrong, never close
    best = _NumberMatch(matched=False, gold=gold_signs[-1])
    best_err = math.inf
    for pred, pred_text in preds:
        for m in _multipliers(pred, gold, gold_scale, hints):
            allowed = max(tol, _stated_precision(pred, m)) if not _is_year(gold, hints) else tol
            for p in _sign_options(pred_text, pred):
                for g in gold_signs:
                    err = abs(p * m - g)
                    if err <= allowed:
                        return _NumberMatch(matched=True, gold=g, pred=p * m, pred_text=pred.text)
                    if err < best_err:
                        sign_only = abs(abs(p * m) - abs(g)) <= tol
                        best = _NumberMatch(matched=False, gold=g, pred=p * m, pred_text=pred.text, sign_only=sign_only)
                        best_err = err
    return best


def _conclusion_numbers(pred: str) -> list[tuple[NumericValue, str]] | None:
    """Numbers of the answer's conclusion: its last concluding sentence ("Therefore, ... is 7.8%") and its
    last sentence with a number, each with its sentence; None when it has no concluding sentence.

    A worked answer states intermediate results before its conclusion; when it concludes explicitly, the
    conclusion is its answer and an intermediate number that happens to equal the gold does not count.
    """
    concluding: list[tuple[NumericValue, str]] = []
    last: list[tuple[NumericValue, str]] = []
    for sentence in split_sentences(pred):
        nums = [(n, sentence) for n in _numbers(sentence)]
        if nums:
            last = nums
            if _CONCLUSION_RE.search(sentence):
                concluding = nums
    if not concluding:
        return None
    return concluding + ([] if last is concluding else last)


def numeric_match(
    pred: str, gold: str | float | int, question: str = "", rel_tol: float = DEFAULT_REL_TOL
) -> MatchResult:
    """Does ``pred`` state the gold answer? Numbers compared with unit, scale, sign and rounding tolerance.

    >>> numeric_match("Capex was $1.577 billion.", "$1,577.00", "in USD millions").matched
    True
    """
    gold_text = _gold_text(gold).strip()
    pred = _CITATION_RE.sub(" ", str(pred or ""))
    if not gold_text:
        return MatchResult(matched=False, reason="empty gold answer", kind="empty")
    gold_refuses = is_refusal(gold_text)
    refusal = is_refusal(pred) and not gold_refuses
    if gold_refuses and is_refusal(pred):
        return MatchResult(matched=True, kind="refusal", reason="both say the answer is not available",
                           gold_text=gold_text)
    hints = question_hints(question)
    gold_yes_no = yes_no_of(gold_text)
    if gold_yes_no is not None:
        pred_yes_no = yes_no_of(pred)
        if pred_yes_no is not None and pred_yes_no != gold_yes_no:
            return MatchResult(
                matched=False, kind="yes_no", gold_text=gold_text,
                reason=f"prediction says {'yes' if pred_yes_no else 'no'}, gold {'yes' if gold_yes_no else 'no'}",
            )
    keys = key_numbers(gold_text)
    if refusal:  # never right, even when its closest evidence shows the gold's figure
        return MatchResult(matched=False, reason="prediction is a refusal", kind="refusal", gold_text=gold_text)
    if gold_yes_no is not None and yes_no_of(pred) == gold_yes_no:
        # The yes/no is the core fact of a yes/no question; the gold's figures support it (judge rule 4.6).
        return MatchResult(matched=True, kind="yes_no", reason="yes/no agrees with the gold", gold_text=gold_text)
    if not keys:
        return _text_match(pred, gold_text)
    year_gold = all(_YEAR_VALUE_RE.match(k.text) for k in keys)
    conclusion = _conclusion_numbers(pred) if len(keys) == 1 and not year_gold else None
    # Years stay in: "1977 million" parses like a year, and a year-valued gold must find its year.
    preds = conclusion if conclusion is not None else [(n, pred) for n in _numbers(pred, include_years=True)]
    where = "the prediction's conclusion" if conclusion is not None else "the prediction's numbers"
    found_all: list[_NumberMatch] = []
    for key in keys:
        found = _match_number(key, gold_text, preds, hints, rel_tol)
        found_all.append(found)
        if not found.matched:
            why = "sign differs" if found.sign_only else f"not found among {where}"
            closest = f"; closest {found.pred_text!r} -> {found.pred:g}" if found.pred is not None else ""
            return MatchResult(
                matched=False, kind="numeric", gold_value=found.gold, pred_value=found.pred,
                gold_text=key.text, pred_text=found.pred_text,
                reason=f"gold {key.text!r} ({found.gold:g}) {why}{closest}",
            )
    first = found_all[0]
    extra = f" and {len(keys) - 1} more gold number(s)" if len(keys) > 1 else ""
    return MatchResult(
        matched=True, kind="numeric", gold_value=first.gold, pred_value=first.pred, gold_text=keys[0].text,
        pred_text=first.pred_text,
        reason=f"gold {keys[0].text!r} = prediction {first.pred_text!r} ({first.pred:g}) in {where}{extra}",
    )


def _text_match(pred: str, gold_text: str) -> MatchResult:
    """Golds without numbers: contained after normalisation, or most of their content words present."""
    if " ".join(tokenize(gold_text)) in " ".join(tokenize(pred)):
        return MatchResult(matched=True, reason="gold text contained in prediction", kind="text", gold_text=gold_text)
    gold_tokens = content_tokens(gold_text)
    if not gold_tokens:
        return MatchResult(matched=False, reason="gold has no content words", kind="text", gold_text=gold_text)
    pred_tokens = set(content_tokens(pred))
    recall = sum(1 for t in gold_tokens if t in pred_tokens) / len(gold_tokens)
    return MatchResult(
        matched=recall >= GOLD_TOKEN_RECALL_MIN, kind="text", gold_text=gold_text,
        reason=f"{recall:.0%} of the gold's content words in prediction (need {GOLD_TOKEN_RECALL_MIN:.0%})",
    )


def numbers_agree(a: str, b: str, rel_tol: float = DEFAULT_REL_TOL) -> bool | None:
    """Whether two texts share a number under the matcher's rules (unit, scale, percent, sign, rounding);
    None when either states no number. Used by EMS to weigh "growth of 30%" against "grew 30%"."""
    nums_a, nums_b = _numbers(a), _numbers(b)
    if not nums_a or not nums_b:
        return None
    hints = QuestionHints()
    preds = [(n, b) for n in nums_b]
    return any(_match_number(n, a, preds, hints, rel_tol).matched for n in nums_a)
