"""Invariance under rewording (the CheckList INV test, Ribeiro et al., ACL 2020): the same figure asked in other
words must get the same plan, and so the same answer.

Each question the graph answers right in its own wording is asked again in the ways analysts put it, one
perturbation class at a time:

- ``wrapper``: a request around the question ("Can you pull ... from the 10-K?", "For my model, I need ...");
- ``ticker``: the company's ticker for its name;
- ``abbreviation``: analyst abbreviations for the metric and the period ("op income", "rev", "FY23", "y/y");
- ``casual``: the terminal shorthand of all of them at once, no verb and no question ("ADTM op income FY23");
- ``reordered``: the period clause moved to the front ("In 2023, what was ...?");
- ``date format``: the fiscal year written another way ("fiscal year 2023", "FY 2023").

A perturbation that cannot apply to a question (no ticker, no abbreviable word, no trailing period clause) makes
no variant, so each class's rate is over the questions it could reword. The report gives, per class, the share of
variants whose plan (company, metric, period, operation and answer kind of every sub-query) equals the original
wording's, and right / wrong / refused of their answers, scored as the original was (a trap's refusal is right).
The perturbations are the test's own word lists; the reader under test has no copy of them.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field
from tqdm import tqdm

from agent.config import Settings
from agent.entities import EntityRegistry
from agent.errors import FinragError
from agent.finance.lexicon import find_metrics
from evals.runner import EvalItem, EvalSet, GraphRunner, assemble, score_prediction

CLASSES = ("wrapper", "ticker", "abbreviation", "casual", "reordered", "date format")

# What an analyst writes for a metric's or a period's words, as the perturbation's vocabulary: each pair is
# (the filing's words, the shorthand). Longest first, so "operating income" is shortened before "income".
ABBREVIATIONS: tuple[tuple[str, str], ...] = (
    ("selling, general and administrative expenses", "SG&A"),
    ("research and development expenses", "R&D spend"),
    ("research and development", "R&D"),
    ("capital expenditures", "capex"),
    ("capital expenditure", "capex"),
    ("free cash flow", "FCF"),
    ("earnings per share", "EPS"),
    ("operating income", "op income"),
    ("operating profit", "op profit"),
    ("operating margin", "op margin"),
    ("gross margin", "GM"),
    ("net income", "net inc"),
    ("total revenue", "total rev"),
    ("revenue", "rev"),
    ("revenues", "revs"),
    ("year over year", "y/y"),
    ("year-over-year", "y/y"),
    ("number of employees", "headcount"),
    ("employees", "headcount"),
)
_QUARTERS = {"first": 1, "second": 2, "third": 3, "fourth": 4}
_QUARTER_RE = re.compile(r"\b(?:the\s+)?(first|second|third|fourth)\s+quarter\s+(?:of\s+)?(?:fiscal\s+(?:year\s+)?)?"
                         r"((?:19|20)\d{2})\b", re.I)
# A year the question asks about: not part of a date ('December 31, 2024') and not inside a longer number.
_YEAR_RE = re.compile(r"(?<![,\d/])(?<!\d,\s)(?<!\d\s)\b(?:fiscal\s+(?:year\s+)?|FY\s?)?((?:19|20)\d{2})\b(?!\s*[-/]\d)", re.I)
_LEAD_RE = re.compile(r"^\s*(?:what|which)\s+(?:was|were|is|are)\s+(?:the\s+)?", re.I)
_TRAILING_PERIOD_RE = re.compile(r"\s+((?:in|for|during|as\s+of)\s+(?:the\s+)?[^,?]{0,40}?\b(?:19|20)\d{2})\s*\?\s*$",
                                 re.I)
_ARTICLE_RE = re.compile(r"\b(?:the|in|for|during|of\s+fiscal|fiscal)\s+(?=(?:FY|[1-4]Q|Q[1-4]|\d))", re.I)


@dataclass(frozen=True)
class Company:
    """How a question may name its company: the words it used and the registry's ticker."""

    surface: str
    ticker: str


def _shorthand_year(text: str) -> str:
    """'fiscal 2023', 'FY2023', '2023' -> 'FY23'; quarters -> '1Q25'."""
    text = _QUARTER_RE.sub(lambda m: f"{_QUARTERS[m.group(1).lower()]}Q{m.group(2)[2:]}", text)
    return _YEAR_RE.sub(lambda m: f"FY{m.group(1)[2:]}", text)


def _abbreviated(text: str) -> str:
    out = text
    for words, short in ABBREVIATIONS:
        out = re.sub(rf"\b{re.escape(words)}\b", short, out, flags=re.I)
    return out


def noun_phrase(question: str) -> str:
    """'What was Adatum's operating income in 2023?' -> "Adatum's operating income in 2023"; '' when the question
    is not a plain 'what was X' lookup (its words would change what it asks)."""
    m = _LEAD_RE.match(question)
    if not m:
        return ""
    rest = question[m.end():].strip().rstrip("?").strip()
    return rest if rest and "?" not in rest else ""


def wrapper(question: str, company: Company | None, form: str) -> list[str]:
    """Requests and openers around the question."""
    out = [f"Quick question for you: {question}"]
    np = noun_phrase(question)
    if np:
        out += [f"Can you pull {np} from the {form or 'filing'}?", f"For my model, I need {np}."]
    return out


def ticker(question: str, company: Company | None, form: str) -> list[str]:
    """The ticker in place of the company's name."""
    if company is None or not company.ticker or company.surface not in question:
        return []
    possessive = re.search(r"['’]s?$", company.surface)
    return [question.replace(company.surface, company.ticker + ("'s" if possessive else ""), 1)]


def abbreviation(question: str, company: Company | None, form: str) -> list[str]:
    """Analyst abbreviations for the metric and the period."""
    out = _shorthand_year(_abbreviated(question))
    return [out] if out != question else []


def casual(question: str, company: Company | None, form: str) -> list[str]:
    """Terminal shorthand: ticker (or name), abbreviated metric, short period; no verb, no question mark."""
    np = noun_phrase(question)
    if not np:
        return []
    if company is not None and company.surface in np:
        name = company.ticker or company.surface
        np = re.sub(rf"{re.escape(company.surface)}(?:['’]s)?", name, np, count=1)
    short = _ARTICLE_RE.sub("", _shorthand_year(_abbreviated(np)))
    short = " ".join(short.split())
    return [short] if short and short != np else []


_SCALE_ASKED_RE = re.compile(r"\bin\s+(?:USD\s+|US\$\s*|\$\s*)?(thousands|millions|billions)\b", re.I)
_YES_NO_RE = re.compile(r"^\s*(?:is|are|was|were|does|do|did|has|have|had|can|could|will|would|should)\b", re.I)


def terse(question: str, company: Company | None) -> str:
    """The casual shorthand of a lookup not worded 'what was X' ('What is the FY2018 capital expenditure amount (in
    USD millions) for 3M? ...' -> 'MMM capex FY18'): the ticker (or name), the question's own words for its one
    metric, abbreviated, and its one year; '' when the question names no company, or not one metric and one year."""
    mentions = find_metrics(question)
    years = {m.group(1) for m in _YEAR_RE.finditer(question)}
    if company is None or len({m.canonical for m in mentions}) != 1 or len(years) != 1 or _YES_NO_RE.match(question):
        return ""  # a yes-or-no question ('Does X have positive working capital?') asks more than the figure
    metric = _abbreviated(mentions[0].surface.lower())
    scale = _SCALE_ASKED_RE.search(question)  # the unit the answer is asked in stays asked ('in billions')
    return " ".join(filter(None, [company.ticker or company.surface, metric, f"FY{years.pop()[2:]}",
                                  f"in {scale.group(1).lower()}" if scale else ""]))


def reordered(question: str, company: Company | None, form: str) -> list[str]:
    """The trailing period clause moved to the front."""
    m = _TRAILING_PERIOD_RE.search(question)
    if not m:
        return []
    head = question[: m.start()].strip()
    clause = m.group(1).strip()
    return [f"{clause[0].upper()}{clause[1:]}, {head[0].lower()}{head[1:]}?"]


def date_format(question: str, company: Company | None, form: str) -> list[str]:
    """The fiscal year written another way: '2023' / 'fiscal 2023' -> 'fiscal year 2023' and 'FY 2023'."""
    hits = list(_YEAR_RE.finditer(question))
    if len(hits) != 1:
        return []
    m = hits[0]
    year = m.group(1)
    return [question[: m.start()] + new + question[m.end():] for new in (f"fiscal year {year}", f"FY {year}")]


PERTURBATIONS: dict[str, Callable[[str, Company | None, str], list[str]]] = {
    "wrapper": wrapper, "ticker": ticker, "abbreviation": abbreviation, "casual": casual,
    "reordered": reordered, "date format": date_format,
}


# ---------------------------------------------------------------------------------------------------------
# Plans
# ---------------------------------------------------------------------------------------------------------
class PlanReading(BaseModel):
    """What a plan says a question asks, field by field (the comparison of two wordings)."""

    company: str = ""
    needs: list[str] = Field(default_factory=list, description="company|metric|period|figure or words|relation "
                             "of each sub-query")
    parts: list[str] = Field(default_factory=list, description="the parts each sub-query narrows its metric to")
    operations: list[str] = Field(default_factory=list)


def plan_reading(question: str, registry: EntityRegistry) -> PlanReading:
    """The offline plan of a first turn, reduced to the fields a rewording must not change."""
    from agent.query.decompose import decompose
    from agent.query.dialogue import DialogueSlots
    from agent.query.rewrite import rewrite

    turn = rewrite(question, [], DialogueSlots(), known_companies=registry)
    plan = decompose(turn.question, turn.intent, registry)
    needs = sorted(f"{registry.canonical_name(s.company) or s.company}|{s.metric}|{s.period}|"
                   f"{'figure' if s.intent.requires_numeric else 'words'}|{s.intent.relation.value}"
                   for s in plan.sub_queries)
    parts = sorted({f"{t.kind}:{t.text.lower()}" for s in plan.sub_queries for t in s.intent.scope})
    return PlanReading(company=registry.canonical_name(plan.intent.company) or plan.intent.company, needs=needs,
                       parts=parts, operations=[c.operation for c in plan.combinations])


# ---------------------------------------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------------------------------------
class VariantResult(BaseModel):
    """One reworded question and what became of it."""

    item_id: str
    perturbation: str
    original: str
    question: str
    gold: str
    plan_same: bool
    plan: PlanReading
    original_plan: PlanReading
    outcome: str = Field(description="right | wrong | refused | unscored")
    prediction: str = ""


class InvarianceRow(BaseModel):
    """One perturbation class: how many variants, and what share kept the plan and the right answer."""

    perturbation: str
    n: int
    questions: int
    plan_same: float
    right: float
    wrong: float
    refused: float


class InvarianceReport(BaseModel):
    """The whole run: the original wordings' outcome, the rows per class and every variant."""

    dataset: str
    originals: int
    originals_right: int
    rows: list[InvarianceRow]
    variants: list[VariantResult]


def _company_of(item: EvalItem, registry: EntityRegistry) -> Company | None:
    found = registry.mentions(item.question)
    if not found:
        return None
    mention = found[0]
    return Company(surface=item.question[mention.start:mention.end], ticker=(mention.entity.tickers or [""])[0])


def _form_of(item: EvalItem) -> str:
    for doc in item.docs:
        for form in ("10-K", "10-Q", "8-K"):
            if form.replace("-", "") in doc.upper():
                return form
    return ""


def variants_of(item: EvalItem, registry: EntityRegistry, classes: Sequence[str] = CLASSES) -> list[tuple[str, str]]:
    """(class, reworded question) for every perturbation that applies to ``item``, each wording once."""
    company = _company_of(item, registry)
    out: list[tuple[str, str]] = []
    seen = {item.question}
    for name in classes:
        texts = PERTURBATIONS[name](item.question, company, _form_of(item))
        if name == "casual" and not texts and _one_lookup(item.question, registry):
            texts = [t for t in [terse(item.question, company)] if t]
        for text in texts:
            if text not in seen:
                seen.add(text)
                out.append((name, text))
    return out


def _one_lookup(question: str, registry: EntityRegistry) -> bool:
    """The question's plan reads one figure of one metric and period of the company as a whole, and computes or
    chooses nothing with it (the shorthand of a part's figure or of a choice would ask another question)."""
    from agent.query.intent import extract_intent

    reading = plan_reading(question, registry)
    if len(reading.needs) != 1 or reading.operations or reading.parts or extract_intent(question).operations:
        return False
    company, metric, period, kind, relation = reading.needs[0].split("|")
    return bool(company and metric and period) and (kind, relation) == ("figure", "lookup")


def _registry(settings: Settings, home: Path) -> EntityRegistry:
    from agent.index.store import Store

    with Store.open(settings.replace(home=home)) as store:
        return store.entities()


def _row(name: str, results: Sequence[VariantResult]) -> InvarianceRow:
    n = len(results) or 1
    share = lambda outcome: round(100 * sum(r.outcome == outcome for r in results) / n, 1)  # noqa: E731
    return InvarianceRow(perturbation=name, n=len(results), questions=len({r.item_id for r in results}),
                         plan_same=round(100 * sum(r.plan_same for r in results) / n, 1),
                         right=share("right"), wrong=share("wrong"), refused=share("refused"))


def run_invariance(settings: Settings, eval_set: EvalSet, *, classes: Sequence[str] = CLASSES,
                   progress: bool = True, log: Callable[[str], None] | None = None) -> InvarianceReport:
    """Ask every single-turn question of ``eval_set``; ask each one answered right again in every applicable
    perturbation class; compare plans and score answers."""
    unknown = [c for c in classes if c not in PERTURBATIONS]
    if unknown:
        raise FinragError(f"unknown perturbation class {unknown[0]!r}; choose from {', '.join(CLASSES)}")
    items = [i for i in eval_set.items if not i.conversation and i.gold]
    if not items:
        raise FinragError(f"{eval_set.dataset}: no single-turn questions with a gold answer to reword")
    variants: list[VariantResult] = []
    registries: dict[str, EntityRegistry] = {}
    right = 0
    with GraphRunner(settings, eval_set.model_copy(update={"items": items}), log=log) as runner:
        runner.prepare(progress=progress)
        bar = tqdm(items, desc=f"{eval_set.dataset} invariance", unit="q", file=sys.stderr, disable=not progress)
        for item in bar:
            prediction = runner.predict(item)
            original = assemble(item, prediction, score_prediction(item.question, prediction.answer, item.gold))
            if original.outcome != "right":
                continue
            right += 1
            registry = registries.setdefault(str(runner.home_of(item)), _registry(settings, runner.home_of(item)))
            base_plan = plan_reading(item.question, registry)
            for name, text in variants_of(item, registry, classes):
                variant = item.model_copy(update={"id": f"{item.id}~{len(variants)}", "question": text})
                predicted = runner.predict(variant)
                scored = assemble(variant, predicted, score_prediction(text, predicted.answer, item.gold))
                plan = plan_reading(text, registry)
                variants.append(VariantResult(
                    item_id=item.id, perturbation=name, original=item.question, question=text, gold=item.gold,
                    plan_same=plan == base_plan, plan=plan, original_plan=base_plan, outcome=scored.outcome,
                    prediction=predicted.answer[:300]))
    rows = [_row(name, [v for v in variants if v.perturbation == name]) for name in classes]
    rows.append(_row("all", variants))
    return InvarianceReport(dataset=eval_set.dataset, originals=len(items), originals_right=right, rows=rows,
                            variants=variants)


def render(report: InvarianceReport) -> str:
    """The report as a Markdown table, with the wordings that lost their answer listed after it."""
    lines = [f"# Invariance under rewording: {report.dataset}", "",
             f"{report.originals_right} of {report.originals} single-turn questions answered right in their own "
             "wording; each asked again per class.", "",
             "| perturbation | variants | questions | plan same % | right % | wrong % | refused % |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for r in report.rows:
        lines.append(f"| {r.perturbation} | {r.n} | {r.questions} | {r.plan_same:.1f} | {r.right:.1f} | "
                     f"{r.wrong:.1f} | {r.refused:.1f} |")
    lost = [v for v in report.variants if v.outcome != "right"]
    if lost:
        lines += ["", "## Wordings that lost the answer", ""]
        lines += [f"- {v.perturbation}: {v.question!r} ({v.outcome}; original {v.original!r})" for v in lost]
    return "\n".join(lines)


def write_report(report: InvarianceReport, out: Path) -> None:
    """``invariance.json`` and ``invariance.md`` in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "invariance.json").write_text(report.model_dump_json(indent=2))
    (out / "invariance.md").write_text(render(report) + "\n")
