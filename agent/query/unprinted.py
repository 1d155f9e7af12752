"""Which words of a question a filing does not print beside the figure asked, learned from where gold figures sit.

A question says how it asks ('what was the *combined* total', 'how much did that *represent* in *relation* to',
'*concerning* the euro notes') as well as what it asks. The first kind of word is never printed in the row, column or
sentence that holds the right figure, so its absence there says nothing against a figure; the second kind is, and
its absence is how the closed world refuses another row's figure. Which is which is read off the dev sets' gold
figures, not listed: for every ConvFinQA turn and TAT-QA question whose gold figures are found on its page
(``evals/printed_labels.py``), each of the question's words is counted as printed when the gold figure's row,
columns or sentence print it. A word asked often, by many companies, and almost never printed with the right figure
is an asking word. ``finrag train unprinted-words`` writes the counts as ``unprinted_words.json`` beside this module;
``finrag eval cv --model unprinted-words`` scores the rule on companies it was not trained on.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, Field

from agent.errors import FinragError
from agent.query.cues import refers_back

PACKAGED_MODEL = Path(__file__).with_name("unprinted_words.json")

# A word is an asking word only when it was asked this often, by this many companies or filings (so one filer's
# habit is no rule), and the right figure printed it at most this often (add-one smoothed: 0 of 8 reads 0.10).
MIN_ASKED = 8
MIN_GROUPS = 5
MAX_PRINTED_RATE = 0.15


class WordCount(BaseModel):
    """How often a word was asked, how often the gold figure's row, columns or sentence printed it, and by how many
    companies or filings it was asked."""

    asked: int = 0
    printed: int = 0
    groups: int = 0

    @property
    def printed_rate(self) -> float:
        """The share of askings whose figure printed the word, add-one smoothed."""
        return (self.printed + 1) / (self.asked + 2)


class LabelledWords(BaseModel):
    """One question's words (as the closed world reads them), each with whether its gold figure's provenance
    printed it, and the company or filing it was asked of."""

    group: str
    source: str = ""
    printed: dict[str, bool] = Field(default_factory=dict)


class UnprintedModel(BaseModel):
    """The counts per word and the thresholds that make a word an asking word."""

    trained_on: str = ""
    min_asked: int = MIN_ASKED
    min_groups: int = MIN_GROUPS
    max_printed_rate: float = MAX_PRINTED_RATE
    counts: dict[str, WordCount] = Field(default_factory=dict)

    def unprinted(self, word: str) -> bool:
        """Whether ``word`` is one a question asks with and the right figure does not print; an unseen word is
        not (its absence may be what tells two figures apart)."""
        count = self.counts.get(word)
        return (count is not None and count.asked >= self.min_asked and count.groups >= self.min_groups
                and count.printed_rate <= self.max_printed_rate)

    def words(self) -> frozenset[str]:
        """Every asking word the counts make."""
        return frozenset(w for w in self.counts if self.unprinted(w))

    def save(self, path: Path) -> None:
        """Write the model as JSON, words sorted, so the same data gives the same file."""
        data = self.model_dump()
        data["counts"] = {w: data["counts"][w] for w in sorted(data["counts"])}
        path.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")


def train(examples: Iterable[LabelledWords], trained_on: str = "") -> UnprintedModel:
    """Count, per word, how often it was asked and printed, and by how many groups it was asked."""
    counts: dict[str, WordCount] = {}
    groups: dict[str, set[str]] = {}
    for example in examples:
        for word, printed in example.printed.items():
            count = counts.setdefault(word, WordCount())
            count.asked += 1
            count.printed += int(printed)
            groups.setdefault(word, set()).add(example.group)
    for word, count in counts.items():
        count.groups = len(groups[word])
    return UnprintedModel(trained_on=trained_on, counts=counts)


@lru_cache(maxsize=4)
def load_model(path: Path = PACKAGED_MODEL) -> UnprintedModel:
    """The model at ``path`` (the packaged one by default), read once."""
    try:
        return UnprintedModel.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise FinragError(f"cannot read the unprinted-words model {path}: {exc}. Rebuild it with "
                          "`finrag train unprinted-words`.") from exc


def unprinted_words() -> frozenset[str]:
    """The packaged model's asking words, less those that point back at an earlier turn ('those payments'): a
    figure that does not print what they stand for may be another one, so their absence still counts."""
    return frozenset(w for w in load_model().words() if not refers_back(w))
