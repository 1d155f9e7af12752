"""Yes/no judgement questions answered from figures computed in code, with the rule stated.

"Has Microsoft increased its debt?", "Does Corning have positive working capital?", "Is Verizon a capital-intensive
business?" are answered by a figure the answer already computed or read (a change, a signed value, capex as a share
of revenue) and a rule written next to the verdict, so a reader sees why. When no figure fits the rule, or the rule's
direction is unclear (is less debt an improvement?), no verdict is given: the figures alone are the answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent.answer.records import SubAnswer
from agent.finance.arithmetic import Computation
from agent.finance.metrics import METRICS
from agent.finance.wording import FALL, FALL_OR_NAME, RISE, groups_found
from agent.query.cues import is_yes_no
from agent.query.intent import asking_part

CAPITAL_INTENSITY_MIN = 10.0  # capex of a tenth of revenue or more is capital-intensive (utilities, telecoms, fabs)
CAPITAL_INTENSITY_METRIC = "capex to revenue"

# The words a yes/no question is judged by, each named by its group: a direction (an improvement is a rise whose
# sense the metric decides), a sign, capital intensity, an event ('Has MGM paid dividends in FY2022?', 'Did Boeing
# record an impairment?': whether it happened, which the event's own figure for the period answers).
_JUDGED_RE = re.compile(
    rf"\b(?:(?P<improve>improv\w*)|(?P<up>{RISE}|higher|expand\w*)|(?P<down>{FALL}|{FALL_OR_NAME}|lower)|"
    r"(?P<positive>positive)|(?P<negative>negative)|(?P<intensive>capital[- ]intensive)|"
    r"(?P<event>paid|pay|issued|issue|repurchased|repurchase|bought\s+back|buy\s+back|declared|declare|recorded|"
    r"record|recognized|recognised|recognize|incurred|incur))\b", re.IGNORECASE)
_CHANGE_OPERATIONS = frozenset({"change", "difference", "percent_change", "cagr"})
_LOWER_IS_BETTER_TOPICS = frozenset({"Costs/Expenses", "Leverage"})  # 'improving' debt or costs means falling


def _lower_is_better(metric: str) -> bool | None:
    info = METRICS.get(metric)
    if info is None:
        return None
    return info.topic in _LOWER_IS_BETTER_TOPICS


def _change_verdict(judged: set[str], comps: Sequence[Computation]) -> str:
    change = next((c for c in comps if c.operation in _CHANGE_OPERATIONS), None)
    if change is None or change.result.value == 0:
        return ""
    up, down = bool(judged & {"up", "improve"}), "down" in judged
    if up == down:
        return ""
    went_up = change.result.value > 0
    if "improve" in judged:
        lower_better = _lower_is_better(change.metric)
        if lower_better is None:
            return ""  # whether 'improving' means up or down is the metric's, and finrag does not know it
        went_up = went_up != lower_better  # for costs and debt an improvement is a fall
    yes = went_up == up
    moved = "rose" if change.result.value > 0 else "fell"
    return f"{'Yes' if yes else 'No'}: {change.metric or 'the figure'} {moved} ({change.formula})."


def _sign_verdict(judged: set[str], sub_answers: Sequence[SubAnswer]) -> str:
    positive, negative = "positive" in judged, "negative" in judged
    if positive == negative:
        return ""
    stated = next((sa for sa in sub_answers if sa.value is not None and sa.status in {"found", "computed"}), None)
    if stated is None or stated.value is None or stated.value.value == 0:
        return ""
    is_positive = stated.value.value > 0
    yes = is_positive == positive
    sign = "positive" if is_positive else "negative"
    return f"{'Yes' if yes else 'No'}: {stated.metric or 'the figure'} was {sign} ({stated.display or stated.value.text})."


def _event_verdict(judged: set[str], sub_answers: Sequence[SubAnswer]) -> str:
    if "event" not in judged or judged & {"up", "improve", "down"}:
        return ""
    read = [sa for sa in sub_answers if sa.status == "found" and sa.value is not None and sa.metric]
    if len(read) != 1 or read[0].value is None:
        return ""  # one event, one figure: several figures are a comparison this rule does not make
    sa = read[0]
    yes = sa.value.value != 0
    when = f" in {sa.value.period}" if sa.value.period else ""
    return f"{'Yes' if yes else 'No'}: {sa.metric}{when} was {sa.display or sa.value.text} (rule: the event happened when its amount is not zero)."


def _intensity_verdict(judged: set[str], sub_answers: Sequence[SubAnswer]) -> str:
    if "intensive" not in judged:
        return ""
    ratio = next((sa for sa in sub_answers if sa.metric == CAPITAL_INTENSITY_METRIC and sa.value is not None), None)
    if ratio is None or ratio.value is None:
        return ""
    yes = ratio.value.value >= CAPITAL_INTENSITY_MIN
    return (
        f"{'Yes' if yes else 'No'}: capital expenditure was {ratio.display or ratio.value.text} of revenue "
        "(rule: capital-intensive when capex is at least a tenth of revenue)."
    )


def verdict(question: str, sub_answers: Sequence[SubAnswer], computations: Sequence[Computation]) -> str:
    """'Yes: ...' or 'No: ...' with the rule, for a yes/no question a computed or read figure decides; ''."""
    asked = asking_part(question)
    if not is_yes_no(asked):
        return ""
    comps = [*computations, *(c for sa in sub_answers for c in sa.computations)]
    judged = groups_found(_JUDGED_RE, asked)  # 'up', 'improve', 'down', 'positive', 'negative', 'intensive', 'event'
    return (
        _intensity_verdict(judged, sub_answers)
        or _change_verdict(judged, comps)
        or _sign_verdict(judged, sub_answers)
        or _event_verdict(judged, sub_answers)
    )
