"""The proper names a question uses ('Chevron', 'Home Depot', 'Frito-Lay North America'), read once into the plan:
a company the registry knows, or a part, product or counterparty that the figure's own words must then name (the
trust gate's company and scope checks read them from the plan, never from the question's text)."""

from __future__ import annotations

import re

from agent.entities.names import FILER_WORDS, NOT_NAMES, name_key, opening_verbs
from agent.finance.lexicon import canonical, find_metrics
from agent.finance.periods import find_periods

# A run of capitalised words: a name the question uses ("Home Depot", "Frito-Lay North America", "Chevron's").
_NAME_RE = re.compile(r"(?<![\w&.-])([A-Z][\w&.-]*(?:\s+(?:&\s+)?[A-Z][\w&.-]*)*)(?:['’]s?)?")
MIN_NAME_KEY = 3  # a 'name' of one or two letters ('Q', 'US') is no company


def question_names(question: str) -> list[str]:
    """Proper names a question uses ('Chevron', 'Home Depot', 'Frito-Lay North America'): capitalised runs that
    are no question word, statement, measure, period or lexicon metric, nor a verb opening the question. The words
    of a metric the question names end a name ('Minimum' of 'Minimum Pension Liability'), and a run opening with
    them is none ('Operating' of 'Operating cash flow ratio is defined as ...')."""
    out: list[str] = []
    verbs = opening_verbs(question)
    metrics = [(mention.start, mention.end) for mention in find_metrics(question)]
    for m in _NAME_RE.finditer(question):
        run = list(re.finditer(r"\S+", m.group(1)))
        ends = [i for i, w in enumerate(run) if any(a <= m.start(1) + w.start() < b for a, b in metrics)]
        words = [w.group(0) for w in run[: ends[0] if ends else len(run)]
                 if m.start(1) + w.start() not in verbs and w.group(0).lower().strip(".,") not in NOT_NAMES]
        name = " ".join(words).strip(" .,-")
        metric = next((m for m in find_metrics(name) if m.start > 0), None)
        name = name[:metric.start].strip(" .,-") if metric is not None else name  # 'Commercial Banking NI
        if len(name_key(name)) < MIN_NAME_KEY or find_periods(name) or canonical(name) is not None:
            continue
        if name_key(name) in FILER_WORDS:
            continue  # 'the Group's revenue': the filer's own
        if all(canonical(w) is not None or find_periods(w) for w in words):
            continue
        out.append(name)
    return out
