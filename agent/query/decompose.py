from __future__ import annotations

import contextlib
import itertools
import re
from collections.abc import Sequence

from langchain_core.language_models import BaseChatModel

from agent.entities import EntityRegistry, as_registry
from agent.entities.names import name_key
from agent.finance.arithmetic import needs_prior_period
from agent.finance.direction import shown_name
from agent.finance.formulas import FormulaKind
from agent.finance.lexicon import canonical, components, find_metrics, is_percentage_metric, without_metrics
from agent.finance.metrics import METRICS, is_expectation
from agent.finance.periods import expand_range, find_periods, shift_period
from agent.finance.wording import CHANGE_NOUN, CHANGE_RE, RESPECTIVE_RE, SHARE_RE, SUM_WORD_RE, plain_words
from agent.llm import schemas as llm_schemas
from agent.llm.models import UsageLog, structured_call
from agent.llm.prompts import MAX_SUB_QUERIES, decompose_messages
from agent.query.asked import (
    LOWEST,
    PERIODS_MEETING,
    RANKED_RE,
    RATIO_NAME_RE,
    SIZE_WORD,
    narrows,
    operation_asked,
    operations_asked,
)
from agent.query.cues import (
    COMPARE_RE,
    FOLLOW_UP_FILLER,
    LINK_WORDS,
    NON_NUMERIC_RELATIONS,
    PERCENT_RE,
    and_list,
    chronological,
    intent_companies,
    is_operation_word,
    is_yes_no,
    lookup_question,
    metric_label,
    one_period_question,
    scale_hint,
    share_of_metric,
    spans_range,
    subject_phrase,
)
from agent.query.definitions import DEFINITION_CLAUSE_RE
from agent.query.dialogue import DialogueSlots
from agent.query.intent import extract_intent
from agent.query.items import (
    asked_name,
    choice_over_items,
    item_sub_queries,
    listed_items,
    operation_over_items,
    over_listed_parts,
    sub_intent,
    sub_query_id,
)
from agent.query.kind import in_question_form
from agent.query.operations import asks_words, guess_operation, named_operations
from agent.query.plan import Combination, QueryPlan, SubQuery
from agent.query.scope import (
    growth_base,
    share_part,
    terms_for,
    unique_terms,
)
from agent.query.validation import DecompositionValidator, decomposition_check
from agent.schemas import QueryIntent, Relation, ScopeTerm

# Wording that asks for the relative change of a percentage ('percentage change in gross margin'), not points.
_RELATIVE_PERCENT_RE = re.compile(
    rf"(?:\bpercent(?:age)?\s+|%\s*)(?:{CHANGE_NOUN})\b|\bgrowth\s+rate\b|\brate\s+of\s+(?:growth|change)\b|"
    r"\bby\s+what\s+percent(?:age)?\b|\bin\s+percent(?:age)?\s+terms\b|\brelative\s+change\b",
    re.IGNORECASE,
)


PERCENTAGE_POINTS = "percentage points"  # a change of a percentage is a difference in points, not a growth


_MARGIN_AFTER_RE = re.compile(r"\s*(?:\([^)]{0,60}\)\s*)?(?:%|percent(?:age)?)?\s*margin\b", re.IGNORECASE)


MARGIN_BASE = "revenue"  # a margin is a share of revenue


_PROCEDURE_RE = re.compile(
    r"^\s*how\s+(?:is|are|was|were|does|do|did)\b(?!\s+(?:much|many))[^?]*\b"
    r"(?:tested|recogni[sz]ed|accounted|"
    r"measured|determined|defined|treated|allocated|valued|estimated|assessed|disclosed)\b",
    re.IGNORECASE,
)


# The operations over a metric's periods; a share or ratio is read across metrics, beside them.
_PERIOD_OPERATIONS = ("change", "percent_change", "average", "sum", "cagr")


def _period_operation(question: str) -> str:
    """The arithmetic a question asks of a metric's periods (:meth:`OperationGuess.among` the lexicon's words)."""
    return guess_operation(question).among(_PERIOD_OPERATIONS, named_operations(question))


def _metrics_in(text: str) -> list[str]:
    return list(dict.fromkeys(m.canonical for m in find_metrics(text)))


def _qualified_subject(question: str, metric: str) -> str:
    """The question's subject when it says more than the metric's name ('revenue for risk solutions',
    'shorewood net sales'); '' when it names only the metric or carries arithmetic words of its own."""
    subject = subject_phrase(question)
    if not subject or CHANGE_RE.search(subject) or PERCENT_RE.search(subject):
        return ""
    named = set(plain_words(metric_label(metric), 3))
    extra = [
        w
        for w in plain_words(subject, 3)
        if w not in named and w not in FOLLOW_UP_FILLER | LINK_WORDS and not is_operation_word(w)
    ]
    return subject if extra else ""


def _core_metrics(question: str, metrics: Sequence[str]) -> list[str]:
    """The metrics asked for, without those that only define another one.

    Definitions come three ways: a clause ('ROA is defined as: net income / ...', '... using operating income
    and D&A'), where metrics named only after it are inputs when some metric is named before it; a formula
    written with operators ('operating income + depreciation and amortization (unadjusted EBITDA)'); and a
    derived metric named in parentheses after its inputs. In the last two the inputs give way to the derived
    metric they define.
    """
    metrics = list(dict.fromkeys(m for m in metrics if m in METRICS))
    clause = DEFINITION_CLAUSE_RE.search(question)
    if clause is not None:
        before = {m.canonical for m in find_metrics(question[: clause.start()])}
        metrics = [m for m in metrics if m in before] or metrics
    mentions = [m for m in find_metrics(question) if m.canonical in metrics]
    for d in mentions:
        formula = METRICS[d.canonical].formula
        if formula is None:
            continue
        inputs = set(components(d.canonical))
        parts = [m for m in mentions if m.canonical in inputs]
        if not parts:
            continue
        in_parens = question.rfind("(", 0, d.start) > question.rfind(")", 0, d.start)
        lo, hi = min(m.start for m in parts), max(m.end for m in parts)
        with_operators = bool(re.search(r"\s[-+*/]\s", question[lo:hi]))
        if in_parens or with_operators:
            metrics = [m for m in metrics if m not in inputs or m == d.canonical]
    return metrics


def _narrowing(question: str, metrics: Sequence[str]) -> dict[str, ScopeTerm]:
    """The metrics named only to narrow another, each with the part it makes of the one it narrows: in a question
    that computes nothing, a metric named right after another one that :func:`narrows` it says which of the first
    metric's figures is asked, and the figure's own words must say it too."""
    mentions = sorted((m for m in find_metrics(question) if m.canonical in metrics), key=lambda m: m.start)
    asked, narrowing = {m.canonical for m in mentions[:1]}, {}
    for a, b in itertools.pairwise(mentions):
        if narrows(question, a, b):
            narrowing[b.canonical] = ScopeTerm(text=b.surface, metric=a.canonical)
        else:
            asked.add(b.canonical)  # named on its own somewhere: a metric asked, whatever else narrows
    return {metric: term for metric, term in narrowing.items() if metric not in asked}


def is_numeric(intent: QueryIntent) -> bool:
    """True when the answer is a figure: the intent says so, or it looks up, compares or trends a quantity."""
    if _PROCEDURE_RE.search(intent.question):
        return False  # 'How is goodwill tested for impairment?' asks for a procedure, not a figure
    if intent.requires_numeric:
        return True
    if intent.relation in NON_NUMERIC_RELATIONS:
        return False
    return any(m in METRICS and not METRICS[m].described for m in intent.metrics)


def _margin_of(question: str, metrics: Sequence[str]) -> str:
    """The amount metric a question asks 'as a margin' ('D&A (from the cash flow statement) % margin'); ''.

    A metric that is itself a margin or ratio ('EBITDA margin', 'COGS % margin') is already one metric.
    """
    for mention in find_metrics(question):
        info = METRICS.get(mention.canonical)
        if info is None or mention.canonical not in metrics:
            continue
        if info.formula is not None and info.formula.unit in {"%", "x", "days"}:
            continue
        if _MARGIN_AFTER_RE.match(question, mention.end):
            return mention.canonical
    return ""


def _margin_itself(metrics: list[str]) -> list[str]:
    """'Gross margin as a percent of sales': a margin the lexicon defines over revenue, asked of revenue, is that
    margin itself -- one metric, never the margin divided by revenue again."""
    if len(metrics) == 2 and metrics[1] == MARGIN_BASE and (info := METRICS.get(metrics[0])) is not None \
            and info.formula is not None and info.formula.unit == "%" \
            and [t.metric for t in info.formula.denominator] == [MARGIN_BASE]:
        return metrics[:1]
    return metrics


def _plan_periods(
    question: str, intent: QueryIntent, metrics: Sequence[str], operations: Sequence[str]
) -> list[str]:
    periods = chronological(intent.temporal_scope.periods)
    # 'How much did revenue grow in 2024?': a change needs the period before it.
    growth_metric = (
        len(metrics) == 1
        and metrics[0] in METRICS
        and METRICS[metrics[0]].formula is not None
        and METRICS[metrics[0]].formula.kind is FormulaKind.GROWTH
    )
    if len(periods) == 1 and CHANGE_RE.search(without_metrics(question)) and not growth_metric and metrics:
        with contextlib.suppress(ValueError):  # a period that cannot shift stays as asked
            periods = [shift_period(periods[0], years=-1), periods[0]]
    if (
        len(periods) == 2
        and ("average" in operations or "sum" in operations)
        and spans_range(question)
    ):
        periods = expand_range(periods[0], periods[-1])
    # 'ROA ... average total assets between FY2016 and FY2017': the prior period only feeds the average.
    if (
        len(periods) == 2
        and len(metrics) == 1
        and not set(operations) & {"change", "percent_change", "cagr", "average", "sum"}
    ):
        try:
            adjacent = shift_period(periods[1], years=-1) == periods[0]
        except ValueError:
            adjacent = False
        if needs_prior_period(metrics[0]) and adjacent:
            periods = [periods[1]]
    return periods


def _operations(
    question: str,
    intent: QueryIntent,
    n_companies: int,
    n_metrics: int,
    n_periods: int,
    percent_metric: bool = False,
    growth_named: bool = False,
) -> list[str]:
    """Arithmetic the question asks for, from its wording and its shape.

    Over periods: a change (and, for amounts, the percent change) when the question says so ('how did capex
    change'), trends, or compares one metric of one company across exactly two periods ('... in 2024 and how
    did it compare with 2023?'). A quantity quoted in percent (``percent_metric``: a margin, a rate, a share)
    changes by percentage points, so it gets only the change unless the wording asks for a relative one. A
    growth the lexicon names (``growth_named``: 'revenue growth') asks only the percent change.
    """
    q = question
    ops: list[str] = []
    if operations_asked(q) & {"extreme", PERIODS_MEETING}:
        return ops  # 'which year had higher X?': the answer step compares the row's periods; no change is asked
    share = bool(SHARE_RE.search(q)) and n_metrics >= 2
    ratio = (
        bool(re.search(r"\bratio\s+of\b|\bdivided\s+by\b|\bto\s+\w+(?:\s+\w+){0,3}\s+ratio\b", q, re.I))
        and n_metrics >= 2
    )
    if share:
        ops.append("share")
    elif ratio:
        ops.append("ratio")
    asked = _period_operation(q)
    if (n_metrics == 1 and n_periods == 2 and n_companies <= 1 and not percent_metric and not asked
            and not CHANGE_RE.search(q)
            and guess_operation(q).operation == "ratio"):
        # 'revenue in 2014 as a percentage of 2013', 'how much did X in 2018 represent in relation to 2017': one
        # period's figure over the other's, nothing else
        return ["share" if PERCENT_RE.search(q) else "ratio"]
    if n_periods >= 2:
        if asked in {"cagr", "average"} or (asked == "sum" and not RESPECTIVE_RE.search(q)):
            # 'the respective totals in 2018 and 2019' lists each period's total: nothing added up
            ops.append(asked)
        elif (
            asked in {"change", "percent_change"}
            or intent.relation is Relation.TREND
            or (
                n_periods == 2
                and n_companies <= 1
                and (n_metrics == 1 or share or ratio)
                # 'Was gross margin higher in 2024 than in 2023?': a comparative compares the two periods
                and bool(COMPARE_RE.search(q) or RANKED_RE.search(q))
            )
        ):
            if percent_metric or share:
                ops.extend(["percent_change"] if _RELATIVE_PERCENT_RE.search(q) else ["change"])
            elif growth_named or asked == "percent_change" or PERCENT_RE.search(q):
                ops.append("percent_change")
            else:  # 'what was the change in X' asks the change; 'how did X change' its size and its rate
                ops.extend(["change"] if guess_operation(q).alone("change") else ["change", "percent_change"])
    across_companies = n_companies >= 2 and bool(
        COMPARE_RE.search(q) or intent.relation is Relation.COMPARISON or CHANGE_RE.search(q)
    )
    across_metrics = (
        n_metrics >= 2
        and not share
        and not ratio
        and n_companies <= 1
        and n_periods <= 1
        and bool(re.search(r"\bdifference\b|\bminus\b|\bless\b|\bexceed", q, re.I))
    )
    if across_companies or across_metrics:
        ops.append("difference")
    if (n_metrics >= 2 and n_companies <= 1 and n_periods <= 1 and not share and not ratio
            and SUM_WORD_RE.search(q) and guess_operation(q).alone("sum")):
        # 'the sum of goodwill and customer-related intangible assets': of the metrics named; 'the combined revenue
        # and operating income' asks two figures (the model settles which a sum word asks)
        ops.append("sum")
    return ops


def _lists_periods(question: str, intent: QueryIntent, companies: Sequence[str], periods: Sequence[str]) -> bool:
    """A question after the figures of one thing in each period of a list it names, and nothing computed from them
    ('What was X in 2019 and 2018 respectively?'); not a span ('from 2017 to 2019'), nor a question after words."""
    return (
        len(companies) == 1
        and len(periods) >= 2
        and intent.relation not in NON_NUMERIC_RELATIONS
        and not spans_range(question)
        and not operation_asked(question)
        and not asks_words(question)
        and bool(one_period_question(question, periods[0]))
    )


def _share_part(question: str, intent: QueryIntent, companies: Sequence[str], metrics: Sequence[str], percent: bool,
                registry: EntityRegistry) -> tuple[str, str]:
    """(company, part): the part of one company a share of its one amount metric is asked of (:func:`share_part`),
    read where the question names the whole right after its share words ('what share of net interest income');
    ('', '') otherwise. The company is the one named, or the only filer indexed when the question names none (the
    intent reads a name no filer goes by as that filer's part, see :func:`extract_intent`). With no company at all
    (a document's own conversation) the part and the whole are rows the cell reader finds by their words (on TAT-QA
    dev this path, taken there, answered none of 13 such questions and lost one the cell reader had right)."""
    asked = share_of_metric(question)
    named = companies[0] if len(companies) == 1 else ""
    company = (named or registry.sole) if len(companies) == 1 else ""
    if asked is None or len(metrics) != 1 or not company or percent or not intent.requires_numeric:
        return "", ""
    share, whole = asked
    part = share_part(question, metrics[0], share, whole.start, company, registry)
    return (company, part) if part else ("", "")


def _part_of_whole(question: str, intent: QueryIntent, company: str, metric: str, part: str,
                   periods: Sequence[str], operations: Sequence[str], hint: str) -> tuple[list[SubQuery], list[Combination]]:
    """A lookup of the part's figure and one of the company's whole in each period, the part's share of the whole
    in each, and its change in percentage points over the periods when the question asks one. The part's lookup
    must find a figure that names the part; the whole's is the company's, unnarrowed by the part."""
    part_words = set(part.lower().split())
    # the metric as the question names it, without the part ('Europe revenue as a percentage of total revenue')
    name = " ".join(w for w in asked_name(question, metric, company).split()
                    if w.lower() != "total" and w.lower() not in part_words) or metric
    term = ScopeTerm(text=part, metric=metric)
    who = f"{company} " if company else ""
    sub_queries: list[SubQuery] = []
    shares: list[Combination] = []
    for period in periods or [""]:
        when = [period] if period else []
        pair = []
        for wording, key in ((f"{part} {name}", f"{metric} {part}"), (f"total {name}", metric)):
            text = lookup_question(company, [metric], when, hint, wording=wording)
            looked_up = sub_intent(intent, text, company, metric, period)
            scope = [t for t in looked_up.scope if not set(t.text.lower().split()) & part_words]
            looked_up.scope = [term, *scope] if key != metric else scope
            pair.append(SubQuery(id=sub_query_id(company, key, period), question=text, company=company, metric=metric,
                                 period=period, intent=looked_up))
        sub_queries += pair
        shares.append(Combination(id=f"c{len(shares) + 1}", operation="share", operands=[sq.id for sq in pair],
                                  metric=f"{metric} as % of {metric}",
                                  label=f"{who}{part} {name} as a percentage of total {name} {period}".strip()))
    combinations = list(shares)
    change = next((op for op in ("change", "percent_change") if op in operations), "")
    if change and len(shares) >= 2:
        span = f"from {periods[0]} to {periods[-1]}"
        label = (f"change in {who}{part}'s share of {name} {span} ({PERCENTAGE_POINTS})" if change == "change"
                 else f"percentage change in {who}{part}'s share of {name} {span}")
        combinations.append(Combination(id=f"c{len(shares) + 1}", operation=change,  # type: ignore[arg-type]
                                        operands=[shares[0].id, shares[-1].id], metric=shares[0].metric, label=label))
    return sub_queries, combinations


def decompose(question: str, intent: QueryIntent, known_companies: EntityRegistry | Sequence[str] = ()) -> QueryPlan:
    """Offline twin: split by company x metric x period and add the combinations the question needs (see
    :func:`_decomposed`); each sub-query knows the operations that take its figure."""
    return with_answer_kind(_decomposed(question, intent, known_companies)).with_operands()


def with_answer_kind(plan: QueryPlan) -> QueryPlan:
    """The plan with the sub-queries that ask for words marked so (a figure of their metric answers another
    question), read once here, where the plan is made, by the answer-kind model: on a sub-query's own wording ('How
    are inventories stated?'), and on the user's turn, which a split may have reworded into figure questions ('Which
    debt securities are registered under X's name?' -> 'What was the registered securities in FY2022?'). A question
    that picks periods or items by their figures (an operation takes them), a yes-or-no question (the model learned
    from questions that ask what, not whether) and shorthand (it learned from questions) ask for figures. Only the
    kind is marked: what the retrieval looks for stays the question's."""
    turn = (not plan.combinations and not plan.intent.operations and not is_yes_no(plan.question)
            and in_question_form(plan.question) and asks_words(plan.question))
    subs = [sq.model_copy(update={"intent": sq.intent.model_copy(update={"asks_words": True})})
            if not sq.intent.asks_words and not sq.intent.operations and not is_yes_no(sq.question)
            and (turn or asks_words(sq.question)) else sq for sq in plan.sub_queries]
    return plan.model_copy(update={"sub_queries": subs})


def _decomposed(question: str, intent: QueryIntent, known_companies: EntityRegistry | Sequence[str] = ()
                ) -> QueryPlan:
    """Offline twin: split by company x metric x period and add the combinations the question needs.

    A simple question (one company, one metric, one period) stays one sub-query with the question as asked.
    Explanation, definition and policy questions stay whole unless they name several companies.
    """
    known_companies = as_registry(known_companies)  # one registry for every reading below
    companies = intent_companies(intent, known_companies) or [""]
    metrics = _core_metrics(question, intent.metrics) if is_numeric(intent) else []
    # Words inside a definition ("ROA is defined as ... average total assets between ...") ask for nothing.
    clause = DEFINITION_CLAUSE_RE.search(question)
    asked = question[: clause.start()] if clause else question
    # A growth the lexicon names ('revenue growth') is quoted in percent: that is the change asked.
    growth_named = any(growth_base(m) != m for m in metrics)
    if len(intent.temporal_scope.periods) >= 2:
        # 'How did revenue change from 2017 to 2018?' (lexicon: revenue growth) compares the base metric.
        metrics = list(dict.fromkeys(growth_base(m) for m in metrics))
    metrics = _margin_itself(metrics)
    margin_of = _margin_of(asked, metrics)
    if margin_of:
        metrics = [margin_of, MARGIN_BASE]  # 'D&A % margin': D&A as a percentage of revenue
    percent = bool(margin_of) or (len(metrics) == 1 and is_percentage_metric(metrics[0]))
    provisional = _operations(
        asked, intent, len(companies), len(metrics), len(intent.temporal_scope.periods), percent, growth_named
    )
    if not provisional and not margin_of and not RATIO_NAME_RE.search(asked):
        # a ratio or share relates the metrics it names ('the percentage of revenue to segment revenue')
        narrowing = _narrowing(asked, metrics)
        metrics = [m for m in metrics if m not in narrowing]
        # 'net sales outlook': the expectation is the figure's basis, which the gate holds it to, no part of it
        parts = [term for m, term in narrowing.items() if not is_expectation(m)]
        intent = intent.model_copy(update={"scope": [*intent.scope, *parts]})
        percent = len(metrics) == 1 and is_percentage_metric(metrics[0])
    periods = _plan_periods(asked, intent, metrics, provisional)
    ops = _operations(asked, intent, len(companies), len(metrics), len(periods), percent, growth_named)
    if (len(periods) > 2 and ops and set(ops) <= {"change", "percent_change", "cagr"}
            and intent.relation is not Relation.TREND):
        periods = [periods[0], periods[-1]]  # 'increase from Q2 2024 to Q2 2025' reads only the span's two ends
    if margin_of:
        ops = ["share", *[op for op in ops if op not in {"share", "ratio", "difference"}]]
    hint = scale_hint(question)
    plan = QueryPlan(question=question, intent=intent)
    item_period = periods[0] if periods else ""  # items are read in the one period asked
    owner, part = _share_part(asked, intent, companies, metrics, percent or bool(margin_of), known_companies)
    if part:
        # 'What share of net interest income came from Commercial Banking?': the part's figure and the whole's,
        # each a lookup the gate checks on its own, divided in code
        share_ops = _operations(asked, intent, 1, 2, len(periods), False, growth_named)
        if len(periods) > 2 and {"change", "percent_change"} & set(share_ops):
            periods = [periods[0], periods[-1]]  # the share moved between the periods named, not each one between
        plan.sub_queries, plan.combinations = _part_of_whole(asked, intent, owner, metrics[0], part, periods,
                                                             share_ops, hint)
        return plan
    choice = choice_over_items(asked, intent, companies, periods)
    if choice is not None:
        # 'Which segment had the higher operating income, Cloud Services or Devices?': one lookup an item, each
        # checked on its own, ranked in code
        comparative, ranked_by, names, lookups = choice
        plan.sub_queries = item_sub_queries(intent, companies[0], item_period, lookups)
        for sq, name in zip(plan.sub_queries, names, strict=True):
            if not any(t.text.lower() == name.lower() for t in sq.intent.scope):
                sq.intent.scope.append(ScopeTerm(text=name, metric=sq.metric))  # each figure must be its item's
        plan.combinations = [Combination(id="c1", operation="lowest" if LOWEST.match(comparative) else "highest",
                                         items=names, by_size=bool(SIZE_WORD.match(comparative)),
                                         operands=[sq.id for sq in plan.sub_queries],
                                         label=f"{' or '.join(names)}, {ranked_by}")]
        return plan
    # the items are read in the periods the question names: a difference between two items in one year is no
    # change from the year before (the one period a 'difference' would otherwise be widened to)
    named_periods = chronological(intent.temporal_scope.periods)
    over_items = operation_over_items(asked, intent, companies, named_periods)
    if over_items is not None:
        # 'The difference in fair value between purchased technology and trademarks': one lookup an item, and the
        # operation over them computed in code.
        operation, (a, b), lookups = over_items
        plan.sub_queries = item_sub_queries(intent, companies[0], named_periods[0] if named_periods else "",
                                             lookups)
        label = {"difference": f"{a} minus {b}", "sum": f"total of {a} and {b}", "ratio": f"{a} to {b}"}[operation]
        plan.combinations = [Combination(id="c1", operation=operation,  # type: ignore[arg-type]
                                         operands=[sq.id for sq in plan.sub_queries], label=label)]
        return plan
    over_parts = over_listed_parts(asked, intent, companies, metrics, periods)
    if over_parts is not None:
        # 'the combined provision for income taxes for China and Mexico': one lookup a part, each checked on its
        # own, added (or averaged) in code; 'respectively' lists them
        operation, parts, lookups = over_parts
        plan.sub_queries = item_sub_queries(intent, companies[0], item_period, lookups)
        if operation:
            label = f"{'total' if operation == 'sum' else 'average'} {asked_name(asked, metrics[0])} of {and_list(parts)}"
            plan.combinations = [Combination(id="c1", operation=operation,  # type: ignore[arg-type]
                                             operands=[sq.id for sq in plan.sub_queries], label=label)]
        return plan
    items = listed_items(asked, intent, companies, periods)
    if items:
        # 'What are the respective sales and purchases for 2017?': one lookup an item, in the order asked
        plan.sub_queries = item_sub_queries(intent, companies[0], item_period, items)
        return plan
    if not metrics and _lists_periods(asked, intent, companies, periods):
        # 'What were X in 2019 and 2018, respectively?' over a row the lexicon does not name: one lookup a period,
        # each read and checked on its own, as a metric's periods are.
        named = [p.norm for p in find_periods(question) if p.norm in periods]
        for period in dict.fromkeys(named or periods):  # in the order asked: 'respectively' pairs them so
            text = one_period_question(question, period)
            plan.sub_queries.append(
                SubQuery(id=sub_query_id(companies[0], "", period), question=text, company=companies[0],
                         period=period, intent=sub_intent(intent, text, companies[0], "", period))
            )
        return plan
    if not metrics:
        for company in companies:
            text = question if len(companies) == 1 else f"{question.rstrip(' ?.')} (for {company})?"
            sq_intent = sub_intent(intent, text, company, "", "")
            sq_intent.temporal_scope = intent.temporal_scope
            plan.sub_queries.append(
                SubQuery(
                    id=sub_query_id(company, "", "-".join(periods)),
                    question=text,
                    company=company,
                    period=periods[0] if len(periods) == 1 else "",
                    intent=sq_intent,
                )
            )
        return plan
    grid = list(itertools.product(companies, metrics, periods or [""]))
    if len(grid) > MAX_SUB_QUERIES:
        plan.notes.append(
            f"{len(grid)} sub-queries asked; kept the first {MAX_SUB_QUERIES} "
            f"(narrow the question for the rest)"
        )
        grid = grid[:MAX_SUB_QUERIES]
    single = len(grid) == 1
    # 'The change in revenue for risk solutions from 2010 to 2011': each year's sub-query keeps the user's
    # qualified subject, not just the lexicon's 'revenue' (only when no company is named: a document-scoped
    # conversation; a company's question keeps the lexicon wording its statements use).
    subject = (
        _qualified_subject(asked, metrics[0]) if companies == [""] and len(metrics) == 1 and not margin_of else ""
    )
    for company, metric, period in grid:
        if single:
            text = question
        elif subject and period and not ops and (listed := one_period_question(question, period)):
            text = listed  # the question as asked, of one period of its list: every word that narrows it stays
        elif subject and period and not {"share", "ratio"} & set(ops):
            text = f"What was the {subject} in {period}{f' ({hint})' if hint else ''}?"
        else:
            # the metric as the question names it stays with its figure's lookup: the gate checks the lookup
            text = lookup_question(company, [asked_name(asked, metric, company)], [period] if period else [], hint)
        sq = SubQuery(
            id=sub_query_id(company, metric, period),
            question=text,
            company=company,
            metric=metric,
            period=period,
            intent=sub_intent(intent, text, company, metric, period),
        )
        plan.sub_queries.append(sq)
    plan.combinations = plan_combinations(question, plan.sub_queries, ops)
    return plan


_WHOLE_GAP_WORDS = frozenset(("the", "its", "their", "a", "an", "total", "this", "that"))


def _whole_of_share(question: str, metrics: Sequence[str]) -> str:
    """The metric a share is of: the one of ``metrics`` named right after 'share of' / 'percentage of' ('what share
    of revenue did R&D account for', 'R&D as a percentage of revenue', 'what portion of the price went to
    goodwill'), with only a determiner or the company's name between; '' otherwise."""
    # the last share words name the whole: 'the proportion of cost of revenue as a percentage of revenue'
    m = next(reversed(list(SHARE_RE.finditer(question))), None)
    after = find_metrics(question[m.end():]) if m is not None else []
    if m is None or not after or after[0].canonical not in metrics:
        return ""
    # 'what percentage of total other assets was goodwill' names no whole of the two
    gap = question[m.end(): m.end() + after[0].start].split()
    return after[0].canonical if all(w.lower() in _WHOLE_GAP_WORDS or w.endswith(("'s", "’s")) for w in gap) else ""


def plan_combinations(
    question: str, sub_queries: Sequence[SubQuery], operations: Sequence[str]
) -> list[Combination]:
    """The arithmetic steps over ``sub_queries`` for the requested ``operations`` (shared by both twins)."""
    out: list[Combination] = []

    def add(operation: str, operands: list[str], metric: str, label: str) -> str:
        cid = f"c{len(out) + 1}"
        out.append(
            Combination(
                id=cid,
                operation=operation,
                operands=operands,
                metric=metric,  # type: ignore[arg-type]
                label=label,
            )
        )
        return cid

    by_key = {(s.company, s.metric, s.period): s.id for s in sub_queries}
    companies = list(dict.fromkeys(s.company for s in sub_queries))
    metrics = list(dict.fromkeys(s.metric for s in sub_queries if s.metric))
    periods = chronological([s.period for s in sub_queries])
    if not metrics:
        return out
    # Per-period ratio/share of the first metric over the second (per company).
    series: dict[str, list[tuple[str, str]]] = {}  # company -> [(period, id)] of the quantity being tracked
    tracked_metric = metrics[0]
    for company in companies:
        tracked_name = asked_name(question, tracked_metric, company)  # 'net loss', 'adjusted operating margin'
        if ("share" in operations or "ratio" in operations) and len(metrics) >= 2:
            op = "share" if "share" in operations else "ratio"
            top, bottom = metrics[0], metrics[1]
            if op == "share" and _whole_of_share(question, (top, bottom)) == top:
                top, bottom = bottom, top
            tracked_metric = f"{top} {'as % of' if op == 'share' else 'to'} {bottom}"
            # the label names both: 'research and development expense as a percentage of revenue'
            tracked_name = (f"{asked_name(question, top, company)} "
                            f"{'as a percentage of' if op == 'share' else 'to'} {asked_name(question, bottom, company)}")
            for period in periods or [""]:
                a, b = by_key.get((company, top, period)), by_key.get((company, bottom, period))
                if a and b:
                    cid = add(
                        op,
                        [a, b],
                        tracked_metric,
                        f"{company + ' ' if company else ''}{tracked_name}"
                        f"{' ' + period if period else ''}".strip(),
                    )
                    series.setdefault(company, []).append((period, cid))
        else:
            series[company] = [
                (p, by_key[(company, tracked_metric, p)])
                for p in periods or [""]
                if (company, tracked_metric, p) in by_key
            ]
    # One metric's figure in one period over its figure in another: the period named first over the other.
    over_period = next((op for op in ("share", "ratio") if op in operations), "") if len(metrics) == 1 else ""
    written = [p.norm for p in find_periods(question)]
    for company, items in series.items() if over_period else ():
        if len(items) != 2:
            continue
        top, bottom = sorted(items, key=lambda item: written.index(item[0]) if item[0] in written else len(written))
        link = "as a percentage of" if over_period == "share" else "to"
        who = f"{company} " if company else ""
        add(over_period, [top[1], bottom[1]], tracked_metric, f"{who}{tracked_name} {top[0]} {link} {bottom[0]}")
    # A change or difference of a percentage is in percentage points: the label says so.
    tracked_op = next((op for op in ("share", "ratio") if op in operations and len(metrics) >= 2), "")
    points = tracked_op == "share" or (not tracked_op and is_percentage_metric(tracked_metric))
    in_points = f" ({PERCENTAGE_POINTS})" if points else ""
    # Over periods: change, growth, CAGR, average, sum.
    finals: dict[str, str] = {}
    # 'Is the margin improving as of FY2022?': one year named and no span asked; the years the filing adds are
    # context, and the direction is the latest year's against the one before.
    latest_only = len({p.norm for p in find_periods(question)}) == 1 and not spans_range(question)
    for company, items in series.items():
        who = f"{company} " if company else ""
        if len(items) >= 2:
            first, last = items[-2] if latest_only else items[0], items[-1]
            span = f"{first[0]} to {last[0]}"
            if "change" in operations:
                finals[company] = add(
                    "change",
                    [first[1], last[1]],
                    tracked_metric,
                    f"change in {who}{tracked_name} from {span}{in_points}",
                )
            if "percent_change" in operations:
                finals[company] = add(
                    "percent_change",
                    [first[1], last[1]],
                    tracked_metric,
                    f"percentage change in {who}{tracked_name} from {span}",
                )
            if "cagr" in operations:
                finals[company] = add(
                    "cagr", [first[1], last[1]], tracked_metric, f"CAGR of {who}{tracked_name} from {span}"
                )
            if "average" in operations:
                finals[company] = add(
                    "average",
                    [i for _, i in items],
                    tracked_metric,
                    f"average {who}{tracked_name} over {span}",
                )
            if "sum" in operations:
                finals[company] = add(
                    "sum", [i for _, i in items], tracked_metric,
                    f"{'' if tracked_name.lower().startswith('total') else 'total '}{who}{tracked_name} over {span}",
                )
        elif items:
            finals[company] = items[0][1]
    # Across companies: the difference of their figures (the first named minus the second).
    if "difference" in operations and len(companies) >= 2 and all(c in finals for c in companies[:2]):
        a, b = companies[0], companies[1]
        add(
            "difference",
            [finals[a], finals[b]],
            tracked_metric,
            f"{a} minus {b}: {shown_name(question, tracked_metric)}{in_points}",
        )
    # Across the metrics of one company in one period: their difference (the first named minus the second), their sum.
    one_each = len(metrics) >= 2 and len(companies) == 1 and len(periods) <= 1
    ids = [by_key.get((companies[0], m, periods[0] if periods else "")) for m in metrics] if one_each else []
    if "difference" in operations and ids and all(ids[:2]):
        add("difference", [i for i in ids[:2] if i], "", f"{metrics[0]} minus {metrics[1]}")
    if "sum" in operations and ids and all(ids):
        add("sum", [i for i in ids if i], "",
            f"total of {and_list([asked_name(question, m, companies[0]) for m in metrics])}")
    return out


def _left_out(offline: QueryPlan, plan: QueryPlan) -> list[str]:
    """The company x metric x period parts of the offline plan that the model's plan does not ask for."""
    asked = {(name_key(sq.company), sq.metric, sq.period) for sq in plan.sub_queries}
    unnamed = {(sq.metric, sq.period) for sq in plan.sub_queries}  # a company the conversation supplies
    return [
        sq.question
        for sq in offline.sub_queries
        if sq.metric
        and ((name_key(sq.company), sq.metric, sq.period) not in asked if sq.company
             else (sq.metric, sq.period) not in unnamed)
    ]


def decompose_llm(
    question: str,
    intent: QueryIntent,
    *,
    model: BaseChatModel | None,
    usage: UsageLog | None = None,
    known_companies: EntityRegistry | Sequence[str] = (),
    slots: DialogueSlots | None = None,
) -> QueryPlan:
    """Language-model twin of :func:`decompose` (prompt + JSON schema); falls back to the offline twin.

    The model proposes the sub-queries; each is checked against the question and the resolved ``slots``
    (:class:`DecompositionValidator`): a reply with made-up ones is retried once, a retry's invalid sub-queries
    are dropped with a note, and the offline plan is used, with the reason, when nothing valid remains. Metrics
    are canonicalised with the lexicon, each sub-query gets its own Query Intent and stable id, and the
    combinations are planned in code from the question's wording.
    """
    known_companies = as_registry(known_companies)  # one registry for every reading below
    offline = decompose(question, intent, known_companies)
    if model is None:
        return offline
    validator = DecompositionValidator(question, intent, known_companies, slots, offline)

    def fallback() -> llm_schemas.Decomposition:
        return llm_schemas.Decomposition(
            sub_queries=[
                llm_schemas.SubQuery(question=s.question, company=s.company, metric=s.metric, period=s.period)
                for s in offline.sub_queries
            ]
        )

    result = structured_call(
        model,
        llm_schemas.Decomposition,
        decompose_messages(question, intent),
        fallback=fallback,
        step="decompose",
        usage=usage,
        check=decomposition_check(validator),
    )
    if result.source == "offline":
        return offline.model_copy(update={"reason": result.reason})
    plan = QueryPlan(question=question, intent=intent, source="llm")
    seen: set[str] = set()
    for sq in result.value.sub_queries:
        problem = validator.problem(sq)
        if problem:
            plan.notes.append(f"dropped the model's sub-query {sq.question!r}: {problem}")
            continue
        metric = (canonical(sq.metric) or next(iter(_metrics_in(sq.metric)), "")) if sq.metric else ""
        period = validator.period_of(sq.period) or ""
        company = validator.company_of(sq.company) or intent.company
        model_intent = sub_intent(
            extract_intent(sq.question, known_companies), sq.question, company, metric, period
        )
        # The parts the user's question names hold however the model worded its sub-query (one reading).
        model_intent.scope = unique_terms([*model_intent.scope, *terms_for(intent.scope, metric)])
        sid = sub_query_id(company, metric, period)
        while sid in seen:
            sid += "+"
        seen.add(sid)
        plan.sub_queries.append(
            SubQuery(
                id=sid,
                question=sq.question,
                company=company,
                metric=metric,
                period=period,
                intent=model_intent,
            )
        )
    if not plan.sub_queries:  # the check keeps this from happening; never answer from nothing
        return offline.model_copy(update={"reason": "no valid sub-query in the model's decomposition"})
    left_out = _left_out(offline, plan)
    if left_out:
        # The offline plan reads the question's own company, metric and period words: a model plan may add to
        # it, never drop a part the question names (a change needs both of its years).
        return offline.model_copy(update={"reason": f"the model's decomposition leaves out {', '.join(left_out)}"})
    companies = {s.company for s in plan.sub_queries}
    metrics = {s.metric for s in plan.sub_queries if s.metric}
    periods = {s.period for s in plan.sub_queries if s.period}
    percent = len(metrics) == 1 and is_percentage_metric(next(iter(metrics)))
    ops = _operations(question, intent, len(companies), len(metrics), len(periods), percent)
    plan.combinations = plan_combinations(question, plan.sub_queries, ops)
    return with_answer_kind(plan).with_operands()
