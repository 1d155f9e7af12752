"""One lookup of a plan: its id, its intent narrowed to one company, metric and period, and the lookups of the items a
question names -- a list asked 'respectively', a choice among items, an operation over two items, a sum or an
average over the parts it lists. Each item is read and checked on its own; what they are combined into is the
plan's (:mod:`agent.query.decompose`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent.finance.direction import shown_name
from agent.finance.lexicon import find_metrics
from agent.finance.periods import granularity
from agent.finance.wording import RESPECTIVE_RE, SUM_WORD_RE
from agent.query.asked import choice_items, operation_asked, operations_asked
from agent.query.cues import (
    AVERAGE_RE,
    NON_NUMERIC_RELATIONS,
    PERCENT_RE,
    asked_scale,
    asks_total,
    item_questions,
    operation_items,
)
from agent.query.intent import figure_worded, read_wording, without_names, written_date
from agent.query.names import question_names
from agent.query.operations import asks_words
from agent.query.plan import SubQuery
from agent.query.scope import basis_words, metric_modifiers, scope_terms, terms_for, unique_terms
from agent.schemas import QueryIntent, Relation, TemporalScope


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def sub_query_id(company: str, metric: str, period: str) -> str:
    """A sub-query's id: its company, metric (or the words of its row) and period, each as a slug."""
    return f"{_slug(company) or 'any'}:{_slug(metric) or 'text'}:{period or 'latest'}"


def sub_intent(base: QueryIntent, question: str, company: str, metric: str, period: str) -> QueryIntent:
    """The turn's intent ``base`` narrowed to one lookup: its own words, company, metric and period, the parts that
    narrow its metric, and the operations and scale its own words ask."""
    scope = TemporalScope(
        type="point" if period else base.temporal_scope.type if not metric else "latest",
        periods=[period] if period else [],
        granularity="quarter" if "Q" in period[2:] else ("year" if period else ""),
        dated=written_date(question),
        # the turn's year to date holds for each of its years (a sub-query's words may name the year alone)
        to_date=base.temporal_scope.to_date and granularity(period) in {"year", ""},
        opening=base.temporal_scope.opening,  # the turn's opening balance is each of its lookups' (a change of it)
    )
    return base.model_copy(
        deep=True,
        update={
            "question": question,
            "company": company or base.company,
            "entities": [company] if company else list(base.entities),
            "metrics": [metric] if metric else list(base.metrics),
            # The parts the whole question names hold for the metric they narrow, however the part is worded.
            "scope": terms_for(base.scope, metric),
            "relation": Relation.LOOKUP if metric else base.relation,
            "temporal_scope": scope,
            "operations": sorted(operations_asked(question)),
            "scale": asked_scale(question),  # a sub-query's own words say the scale its figure is shown in
            "total": asks_total(question),  # and whether it is a total (the plan may carry the turn's; see QueryPlan)
            "names": question_names(question),  # the lookup's own names; the turn's are the plan's (turn_names)
            # the turn's names for the company and the lookup's own company, however the lookup writes them
            "search": without_names(question, [*base.company_written, company or base.company], keep=True),
            "figure_worded": figure_worded(question),
            "wording": read_wording(question),
            "requires_numeric": bool(metric) or base.requires_numeric,
        },
    )


def asked_name(question: str, metric: str, company: str = "") -> str:
    """The metric as the question names it: its direction ('the income tax benefit'), the words it puts before
    the metric ('Litware's adjusted operating margin') and the words that pick its row ('total', 'net')."""
    shown = shown_name(question, metric)
    basis = [w for w in basis_words(question, metric, company) if w not in shown.lower().split()]
    name = " ".join([*basis, *metric_modifiers(question, metric, company), shown])
    mention = next((m for m in find_metrics(question) if m.canonical == metric), None)
    if shown == metric and mention is not None and [m.canonical for m in find_metrics(name)] != [metric]:
        # the lexicon's name with the question's words around it names another metric ('net' + 'interest income'
        # of 'net investment income'): the question's own words for it
        said = " ".join(mention.surface.lower().split())
        basis = [w for w in basis if w not in said.split()]
        name = " ".join([*basis, *metric_modifiers(question, metric, company), said])
    return name


def _metric_named(text: str) -> str:
    """The one metric ``text`` names, '' for none or several."""
    named = list(dict.fromkeys(m.canonical for m in find_metrics(text)))
    return named[0] if len(named) == 1 else ""


def _item_metrics(texts: Sequence[str]) -> list[str] | None:
    """The metric each item's question names ('' for a row the lexicon does not name), or None when the
    company-metric grid reads the items one by one: each names a metric of its own, none the same (or no items)."""
    metrics = [_metric_named(text) for text in texts]
    if not metrics or ("" not in metrics and len(set(metrics)) == len(metrics)):
        return None
    return metrics


def item_sub_queries(intent: QueryIntent, company: str, period: str, items: Sequence[tuple[str, str]]) -> list[SubQuery]:
    """One lookup an item (its question, the metric it names), in the order asked, each read and checked on its own:
    a metric's lookup where the item names one, else its row by its own words."""
    out = []
    for text, metric in items:
        item_intent = sub_intent(intent, text, company, metric, period)
        item_intent.metrics = [metric] if metric else []  # an item naming no metric is read by its own words
        # the parts the whole question names belong to the item that names them ('International', not
        # 'Foodservice', for the first of 'the International and Foodservice segment'), and so do the parts
        # the item's own words name ('customer A' of 'the difference in revenue between customer A and B')
        item_intent.scope = unique_terms([*(t for t in item_intent.scope if t.text.lower() in text.lower()),
                                          *(terms_for(scope_terms(text, company), metric) if metric else [])])
        out.append(SubQuery(id=sub_query_id(company, f"{metric} {text}", period), question=text, company=company,
                            metric=metric, period=period, intent=item_intent))
    return out


def listed_items(
    question: str, intent: QueryIntent, companies: Sequence[str], periods: Sequence[str]
) -> list[tuple[str, str]]:
    """Each item a question lists 'respectively' with the metric it names ('' for a row the lexicon does not
    name), when the company-metric grid would not read them one by one: an item names no metric, or two name
    the same one (the 'International and Foodservice' segments' net sales). [] otherwise."""
    if len(companies) != 1 or len(periods) > 1 or intent.relation in NON_NUMERIC_RELATIONS:
        return []
    if operation_asked(question) or asks_words(question):
        return []
    texts = item_questions(question)
    metrics = _item_metrics(texts)
    return list(zip(texts, metrics, strict=True)) if metrics is not None else []


def choice_over_items(
    question: str, intent: QueryIntent, companies: Sequence[str], periods: Sequence[str]
) -> tuple[str, str, list[str], list[tuple[str, str]]] | None:
    """The comparative a choice among items the question names ranks by, what it ranks, the items, and each item's
    question with the metric it names (see :func:`agent.query.asked.choice_items`); None otherwise, and for
    several companies or periods."""
    if len(companies) != 1 or len(periods) > 1 or intent.relation in NON_NUMERIC_RELATIONS:
        return None
    found = choice_items(question)
    if found is None:
        return None
    comparative, ranked_by, items = found
    texts = [text for _, text in items]
    metrics = [_metric_named(text) for text in texts]  # each item's own ('operating', 'investing' cash flows)
    return comparative, ranked_by, [item for item, _ in items], list(zip(texts, metrics, strict=True))


def operation_over_items(
    question: str, intent: QueryIntent, companies: Sequence[str], periods: Sequence[str]
) -> tuple[str, list[str], list[tuple[str, str]]] | None:
    """The operation a question asks over two items it names, the items, and each item's question with the metric
    it names ('' for a row the lexicon does not name), when the company-metric grid would not read them one by one
    (see :func:`_item_metrics`: 'total revenue of network solutions' and 'of services' name one metric). None
    otherwise, and for several companies or periods."""
    if len(companies) != 1 or len(periods) > 1 or intent.relation in NON_NUMERIC_RELATIONS:
        return None
    found = operation_items(question)
    if found is None:
        return None
    operation, items = found
    texts = [text for _, text in items]
    metrics = _item_metrics(texts)
    if metrics is None:
        return None
    return operation, [item for item, _ in items], list(zip(texts, metrics, strict=True))


def over_listed_parts(question: str, intent: QueryIntent, companies: Sequence[str], metrics: Sequence[str],
                       periods: Sequence[str]) -> tuple[str, list[str], list[tuple[str, str]]] | None:
    """A sum, an average or the respective figures of one metric over the parts the question lists ('the combined
    revenue from China and Mexico', 'the average revenue of Apple and Huawei'): the operation ('' for the
    respective figures), the parts, and each part's lookup with its metric. None for another question, and for a
    list that asks no such thing ('a total' may be one row's: 'total revenue from Food and Beverage')."""
    if len(companies) != 1 or len(metrics) != 1 or len(periods) > 1 or PERCENT_RE.search(question):
        return None  # 'the average percentage of revenue from Apple and Huawei' asks each part's share
    listed = [t for t in terms_for(intent.scope, metrics[0]) if t.listed]
    if len(listed) < 2 or len({t.listed for t in listed}) != 1:
        return None
    operation = ("average" if AVERAGE_RE.search(question) else "sum" if SUM_WORD_RE.search(question)
                 else "" if RESPECTIVE_RE.search(question) else None)
    if operation is None:
        return None
    name, when = asked_name(question, metrics[0], companies[0]), f" in {periods[0]}" if periods else ""
    parts = [t.text for t in listed]
    return operation, parts, [(f"What was the {name} of {part}{when}?", metrics[0]) for part in parts]
