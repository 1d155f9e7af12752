"""Checks a language model's decomposition against the question it decomposes: every sub-query's company, metric
and period must be named in the question or the conversation, or derivable from them, so none is made up."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Sequence

from agent.entities import EntityRegistry, as_registry
from agent.entities.names import LEGAL_FORMS, name_tokens
from agent.finance.arithmetic import needs_prior_period
from agent.finance.lexicon import canonical, find_metrics
from agent.finance.periods import expand_range, find_periods, normalise_period, shift_period
from agent.finance.wording import CHANGE_RE
from agent.llm import schemas as llm_schemas
from agent.llm.prompts import MAX_SUB_QUERIES
from agent.query.cues import (
    AFTER,
    AVERAGE_RE,
    BEFORE,
    COMPARE_RE,
    chronological,
    companies_in,
    relative_years,
)
from agent.query.dialogue import DialogueSlots
from agent.query.intent import match_company
from agent.query.plan import QueryPlan
from agent.schemas import QueryIntent

_LATEST_PERIOD_RE = re.compile(r"\b(?:latest|most\s+recent|current|last\s+reported)\b", re.IGNORECASE)
def _company_words(name: str) -> set[str]:
    """The words that tell one company from another: legal forms dropped ('Northwind Instruments Inc.' ~
    'Northwind Instruments'), and single letters ('M' tells nothing)."""
    return {w for w in name_tokens(name) if len(w) > 1 and w not in LEGAL_FORMS}


class DecompositionValidator:
    """Checks a model's sub-queries against the question they decompose, so none is made up.

    A sub-query is valid when its company is named in the question or the resolved slots (or is a fuller or
    shorter form of one), its metric maps to the lexicon or is written in the question, and its period is
    named in the question or slots or derivable from them: the year before a named period when the question
    asks for a change, a prior year or a metric that needs one (growth, averaged balances); the year after for
    'the following year'; the years between two named periods. 'latest' / no period asks for the newest.
    """

    def __init__(
        self,
        question: str,
        intent: QueryIntent,
        known_companies: EntityRegistry | Sequence[str] = (),
        slots: DialogueSlots | None = None,
        offline: QueryPlan | None = None,
    ) -> None:
        self.question = question
        self.known = as_registry(known_companies)
        named = [intent.company, intent.ticker, *intent.entities, *companies_in(question, known_companies)]
        if slots is not None:
            named += [slots.company, slots.ticker, *slots.companies]
        if offline is not None:
            named += [s.company for s in offline.sub_queries]
        self.companies = list(dict.fromkeys(c for c in named if c))
        # Periods are derived from those written in the question or slots, not from derived ones again.
        written = [p.norm for p in find_periods(question)] + (
            list(slots.periods) if slots is not None else []
        )
        self.named_periods = chronological(written or intent.temporal_scope.periods)
        self.periods = set(self.named_periods) | set(intent.temporal_scope.periods) | self._derivable(intent)
        if offline is not None:  # what the offline twin derived (a growth's prior year) is derivable too
            self.periods.update(s.period for s in offline.sub_queries if s.period)

    def _derivable(self, intent: QueryIntent) -> set[str]:
        out: set[str] = set()
        named = self.named_periods
        with contextlib.suppress(ValueError):  # periods that cannot shift or span derive nothing
            if len(named) >= 2:
                out.update(expand_range(named[0], named[-1]))
        wants_prior = bool(
            BEFORE in relative_years(self.question)
            or CHANGE_RE.search(self.question)
            or COMPARE_RE.search(self.question)
            or AVERAGE_RE.search(self.question)
            or any(needs_prior_period(m) for m in intent.metrics)
        )
        for period in named:
            with contextlib.suppress(ValueError):
                if wants_prior:
                    out.add(shift_period(period, years=-1))
                if AFTER in relative_years(self.question):
                    out.add(shift_period(period, years=1))
        return out

    def period_of(self, text: str) -> str | None:
        """The model's period, normalised: '' for the latest, None when it is no period at all."""
        text = text.strip()
        if not text or _LATEST_PERIOD_RE.search(text):
            return ""
        shifts = relative_years(text)
        relative = BEFORE if BEFORE in shifts else AFTER if AFTER in shifts else 0
        if relative:
            if not self.named_periods:
                return None
            try:
                return shift_period(self.named_periods[-1], years=relative)
            except ValueError:
                return None
        return normalise_period(text) or None

    def company_of(self, name: str) -> str:
        """The model's company as the index names it ('Northwind' -> 'Northwind Instruments'); a segment
        ('3M Safety and Industrial') keeps its own name."""
        known = match_company(name, self.known) if self.known and name else ""
        return known if known and _company_words(name) <= _company_words(known) else name

    def _company_ok(self, name: str) -> bool:
        low = name.lower()
        if re.search(rf"(?<!\w){re.escape(low)}(?!\w)", self.question.lower()):
            return True
        if any(low == c.lower() for c in self.companies):
            return True
        if self.company_of(name) in self.companies:
            return True
        words = _company_words(name)
        if not words:
            return False
        if words <= _company_words(self.question):
            return True
        return any(words <= _company_words(c) or _company_words(c) <= words for c in self.companies)

    def problem(self, sub_query: llm_schemas.SubQuery) -> str:
        """Why ``sub_query`` is not a decomposition of the question; '' when it is one."""
        if sub_query.company and not self._company_ok(sub_query.company):
            return f"company {sub_query.company!r} is not named in the question or the conversation"
        metric = sub_query.metric.strip()
        if (
            metric
            and not (canonical(metric) or find_metrics(metric))
            and metric.lower() not in self.question.lower()
        ):
            return f"metric {metric!r} is neither a known metric nor in the question"
        period = self.period_of(sub_query.period)
        if period is None:
            return f"period {sub_query.period!r} is not a reporting period"
        if period and period not in self.periods:
            return f"period {period} is neither in the question nor derivable from it"
        return ""


def decomposition_check(
    validator: DecompositionValidator,
) -> Callable[[llm_schemas.Decomposition], str | None]:
    """Reject a reply with made-up sub-queries once (the model retries with the reasons); a retry is taken when
    some of its sub-queries are valid (the rest are dropped), and falls back to the offline twin otherwise."""
    strict = True

    def check(value: llm_schemas.Decomposition) -> str | None:
        nonlocal strict
        if len(value.sub_queries) > MAX_SUB_QUERIES:
            return f"at most {MAX_SUB_QUERIES} sub-queries, got {len(value.sub_queries)}"
        problems = [f"{sq.question!r}: {p}" for sq in value.sub_queries if (p := validator.problem(sq))]
        if not problems:
            return None
        if strict or len(problems) == len(value.sub_queries):
            strict = False
            return "; ".join(problems)
        return None

    return check
