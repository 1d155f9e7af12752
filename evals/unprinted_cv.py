"""Company-disjoint cross-validation of the unprinted-words model.

The labelled questions (``evals/printed_labels.py``) are split into folds by company (ConvFinQA) or filing (TAT-QA),
as the operation model's are (:func:`evals.operation_cv.fold_of`). For each fold the words are counted on the other
folds, and every word of the held-out questions that the counts call an asking word is checked against its label:
precision is the share of those the right figure indeed did not print (a word flagged but printed is one whose
absence could have refused another row's figure, and no longer will); coverage is the share of the held-out
unprinted words the model flags.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel, Field

from agent.query.unprinted import LabelledWords, train
from evals.operation_cv import DEFAULT_FOLDS, fold_of


class UnprintedFold(BaseModel):
    """One held-out fold: its words flagged as asking words, how many were indeed unprinted, and how many unprinted
    words it had."""

    fold: int
    groups: int
    questions: int
    flagged: int = Field(description="held-out word occurrences the other folds' counts call asking words")
    flagged_unprinted: int = Field(description="of those, the ones the right figure did not print")
    unprinted: int = Field(description="held-out word occurrences the right figure did not print")
    flagged_printed: dict[str, int] = Field(default_factory=dict, description="word -> times flagged but printed")

    @property
    def precision(self) -> float:
        return self.flagged_unprinted / self.flagged if self.flagged else 1.0

    @property
    def coverage(self) -> float:
        return self.flagged_unprinted / self.unprinted if self.unprinted else 0.0


class UnprintedCv(BaseModel):
    """Every fold, with the mean precision and coverage and their spread over folds."""

    folds: list[UnprintedFold]
    precision: float
    precision_spread: float
    coverage: float


def cross_validate(examples: Sequence[LabelledWords], folds: int = DEFAULT_FOLDS) -> UnprintedCv:
    """Count on K-1 folds, check the held-out one's flagged words against their labels, for each fold."""
    if folds < 2:
        raise ValueError("cross-validation needs at least 2 folds")
    scores: list[UnprintedFold] = []
    for k in range(folds):
        held = [e for e in examples if fold_of(e.group, folds) == k]
        kept = [e for e in examples if fold_of(e.group, folds) != k]
        if not held or not kept:
            continue
        model = train(kept)
        flagged = flagged_unprinted = unprinted = 0
        wrong: Counter[str] = Counter()
        for example in held:
            for word, printed in example.printed.items():
                unprinted += not printed
                if model.unprinted(word):
                    flagged += 1
                    flagged_unprinted += not printed
                    if printed:
                        wrong[word] += 1
        scores.append(UnprintedFold(
            fold=k, groups=len({e.group for e in held}), questions=len(held), flagged=flagged,
            flagged_unprinted=flagged_unprinted, unprinted=unprinted, flagged_printed=dict(wrong.most_common(8)),
        ))
    precisions = [s.precision for s in scores]
    return UnprintedCv(
        folds=scores, precision=statistics.fmean(precisions) if precisions else 0.0,
        precision_spread=statistics.pstdev(precisions) if precisions else 0.0,
        coverage=statistics.fmean(s.coverage for s in scores) if scores else 0.0,
    )


def render(report: UnprintedCv) -> str:
    """The report as Markdown: a row per fold, then the means and the words flagged that were printed."""
    lines = [
        "# Unprinted-words model: company-disjoint cross-validation",
        "",
        "Each fold's companies (ConvFinQA) and filings (TAT-QA) are unseen by the counts that flag its words.",
        "",
        "| fold | companies | questions | flagged | precision | coverage of unprinted words |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for s in report.folds:
        lines.append(f"| {s.fold} | {s.groups} | {s.questions} | {s.flagged} | {s.precision:.1%} | {s.coverage:.1%} |")
    lines += ["", f"Mean precision **{report.precision:.1%}** (spread {report.precision_spread:.1%}), mean coverage "
              f"{report.coverage:.1%}."]
    printed: Counter[str] = Counter()
    for s in report.folds:
        printed.update(s.flagged_printed)
    if printed:
        lines += ["", "Flagged but printed by the right figure: "
                  + ", ".join(f"'{w}' ({n})" for w, n in printed.most_common(12)) + "."]
    return "\n".join(lines) + "\n"
