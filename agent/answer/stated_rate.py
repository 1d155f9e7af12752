"""A rate of change a filing states in a sentence on a basis no two reported levels give ('Total revenues were
$2,318 million, an increase of 12% as reported and 10% at constant exchange rates'), read for a change the plan
asks on that basis.

The plan asks a growth through the two levels of its metric; the levels are reported figures, so a growth asked at
constant currency, organic or adjusted cannot be computed from them (the basis check refuses them). A release often
states that growth in prose instead: a sentence naming the metric, stating a percentage change of it in the later
period, whose own words on the side its sentence names its figures' bases on say the basis asked
(:func:`agent.finance.basis.bases_in_series`). The figure goes through the same trust gate as any other.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent.answer.gate import gate
from agent.answer.reading import Evidence, EvidenceReader, Segment
from agent.answer.records import SubAnswer, read_change
from agent.finance.basis import basis_phrase, other_than_reported
from agent.query.cues import metric_label
from agent.query.plan import QueryPlan, SubQuery
from agent.schemas import NumericValue

_OPERATION = "percent_change"


def stated_rate(plan: QueryPlan, sub_answers: Sequence[SubAnswer], evidence: Sequence[Evidence]) -> SubAnswer | None:
    """The percentage change of one metric between two periods that the plan asks on a basis other than the
    reported one, read from a sentence that states it on that basis and gated; None when the plan asks anything
    else or no sentence states it."""
    change = plan.one_change([_OPERATION])
    answers = {sa.sub_query_id: sa for sa in sub_answers}
    if change is None or change[2].id not in answers:
        return None
    _, earlier, later = change
    if not other_than_reported(later.intent.wording.basis):
        return None  # a reported growth is computed from the two levels
    reader = EvidenceReader(evidence)
    asking = later.asking(_OPERATION)
    for seg in reader.segments:
        if seg.kind != "sentence" or not any(m.canonical == later.metric for m in seg.mentions):
            continue
        for value in seg.numbers:
            if not value.change or value.unit != "%" or value.period != later.period:
                continue
            read = _answer(answers[later.id], later, earlier.period, seg, reader.evidence[seg.ev], value)
            gated = gate(read, asking, reader)
            if gated.status == "found":
                return gated
    return None


def _answer(base: SubAnswer, sub_query: SubQuery, earlier: str, seg: Segment, ev: Evidence,
            value: NumericValue) -> SubAnswer:
    """The change as the sentence states it, of the later period, cited to its sentence."""
    whose = f"{base.company}'s " if base.company else ""
    basis = basis_phrase(other_than_reported(sub_query.intent.wording.basis))
    what = (f"{whose}{metric_label(sub_query.metric)}, percentage change from {earlier} to {sub_query.period} {basis}, "
            "as stated")
    return read_change(base, sub_query, value, seg.text, ev.citation(seg.text, value.start, ""), what,
                       f'stated in a sentence: "{seg.text}"')
