"""Which arithmetic a question asks for, learned from conversations rather than listed as phrases.

A multinomial logistic regression over the question's words and word pairs (numbers reduced to their kind), the
lexicon's word classes as features (so 'rise' reads like 'increase'), whether it names a metric of its own, and a
few facts of the conversation (first turn or follow-up, how many figures were answered, what was last computed).
It is trained by
``finrag train operations`` on ConvFinQA's programs and TAT-QA's derivations (``evals/operation_labels.py``) and
shipped as ``operations.json`` beside this module: a few hundred kilobytes, read once, scored with a dot
product, so a cold ``finrag ask`` pays milliseconds. The arithmetic itself stays in code; this only names it.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, Field

from agent.config import Settings
from agent.errors import FinragError
from agent.finance.lexicon import find_metrics
from agent.finance.metrics import METRICS
from agent.finance.periods import find_periods
from agent.finance.wording import CHANGE_RE, SHARE_RE
from agent.query.cues import AVERAGE_RE, CAGR_RE, PERCENT_RE, SUM_RE
from agent.query.kind import in_question_form

# The operations the model names. 'lookup' asks for a figure; 'other' is arithmetic the answer step does not do
# (products, conversions by a typed constant, comparisons), so it is never computed from a guess. A division is
# 'ratio' whatever its unit: whether it is stated as a percentage (a share) is the unit the question asks, read
# apart (the datasets' answers do not say it reliably: '142.4%' and '1.42' answer the same wording).
OPERATIONS: tuple[str, ...] = (
    "lookup", "change", "percent_change", "ratio", "sum", "average", "cagr", "other",
)
COMPUTED: frozenset[str] = frozenset(OPERATIONS) - {"lookup", "other"}

PACKAGED_MODEL = Path(__file__).with_name("operations.json")

# What the answer-kind model names: an amount (or what figures decide: the years that pass a test), or words (a
# description, a policy, names). Trained like the operation model, on what each dev question's gold answer is (``finrag train answer-kinds``).
ANSWER_FIGURE, ANSWER_WORDS = "figure", "words"
PACKAGED_KIND_MODEL = Path(__file__).with_name("answer_kinds.json")
KIND_MODEL_ENV = "FINRAG_ANSWER_KIND_MODEL"  # Settings.answer_kind_model
WORDS_MIN_PROBABILITY = 0.9  # a question is read as asking for words only when the model is this sure (held-out
# precision 95% at 0.9, 93% at 0.8: a figure question read as words loses its figure)

MODEL_ENV = "FINRAG_OPERATIONS_MODEL"  # Settings.operations_model: how a fold's model reaches the graph

MIN_PROBABILITY = 0.5  # arithmetic is computed only when the model holds it likelier than a lookup or other
# One operation is stated alone, without its sibling (a change without its percent change), only when the model is
# this sure it is the one asked: 'what was the change in X' reads 0.99, 'how did X change' 0.55 (both asked).
ALONE_MIN_PROBABILITY = 0.9

_TOKEN_RE = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?%?|[a-z]+(?:'[a-z]+)?|%|\$|\?")
_YEAR_RE = re.compile(r"(?:19|20)\d\d")


class OperationContext(BaseModel):
    """What the conversation says about a turn beyond its words."""

    follow_up: bool = Field(default=False, description="an earlier turn answered something")
    last_operation: str = Field(default="", description="what the last turn computed; '' for a lookup or none")
    answers: int = Field(default=0, description="how many earlier turns answered with a figure")


class OperationGuess(BaseModel):
    """The operation the model reads in a question, with its probability and every operation's."""

    operation: str
    probability: float
    scores: dict[str, float] = Field(default_factory=dict, description="probability of every operation")

    @property
    def computed(self) -> str:
        """The arithmetic asked, when the model holds it likelier than not that the turn asks for arithmetic the
        answer step does (the computed operations' probabilities together): the likeliest of those; else ''."""
        computed = {op: p for op, p in self.scores.items() if op in COMPUTED}
        if not computed or sum(computed.values()) < MIN_PROBABILITY:
            return ""
        return max(computed, key=computed.__getitem__)

    def alone(self, operation: str) -> bool:
        """Whether the model is sure (:data:`ALONE_MIN_PROBABILITY`) that ``operation`` is what is asked."""
        return self.scores.get(operation, 0.0) >= ALONE_MIN_PROBABILITY

    def among(self, allowed: Collection[str], named: Iterable[str] = ()) -> str:
        """The operation of ``allowed`` the question asks for: the model's when it is one of them; else, of the
        ``named`` ones (those a word of the lexicon's classes names: a change word, 'average' ...), the one the
        model holds likeliest; '' when neither. The word classes keep a wording the training data lacks from
        being read as a lookup; the model settles which of several named classes is meant ('the change in the
        average price')."""
        if self.computed in allowed:
            return self.computed
        candidates = [op for op in named if op in allowed]
        return max(candidates, key=lambda op: self.scores.get(op, 0.0)) if candidates else ""


def _token(word: str) -> str:
    if word[0].isdigit():
        if word.endswith("%"):
            return "<pct>"
        return "<year>" if _YEAR_RE.fullmatch(word) else "<num>"
    return word


def tokens(question: str) -> list[str]:
    """The question's words, lower-cased, each number reduced to its kind (<year>, <num>, <pct>)."""
    return [_token(w) for w in _TOKEN_RE.findall(question.lower())]


def _last_kind(operation: str) -> str:
    """The last computation as the model knows it ('difference' is a change between two companies)."""
    return {"difference": "change"}.get(operation, operation if operation in OPERATIONS else "other")


def features(question: str, context: OperationContext) -> list[str]:
    """The features of one question: words, word pairs, the opening word, the years it names, and context.

    Shared by training and prediction, so both read a question the same way.
    """
    words = tokens(question)
    feats = [f"w:{w}" for w in words]
    feats += [f"b:{a}_{b}" for a, b in zip(words, words[1:], strict=False)]
    if words:
        feats.append(f"first:{words[0] if words[0] not in {'and', 'so'} else (words[1:2] or ['-'])[0]}")
    years = len({w for w in _TOKEN_RE.findall(question) if _YEAR_RE.fullmatch(w)})
    feats.append(f"years:{min(years, 2)}")
    # a question that names a metric of its own may ask for it anew; one that names none works on earlier figures
    feats.append("names:metric" if find_metrics(question) else "names:none")
    classes = [name for name, pattern in _WORD_CLASSES if pattern.search(question)]
    feats += [f"cue:{name}" for name in classes]
    feats += [f"cue:{a}&{b}" for i, a in enumerate(classes) for b in classes[i + 1 :]]  # 'percent' with 'rise'
    feats.append("ctx:follow_up" if context.follow_up else "ctx:first_turn")
    feats.append(f"ctx:answers={min(context.answers, 2)}")
    if context.last_operation:
        last = _last_kind(context.last_operation)
        feats.append(f"ctx:last={last}")
        # what a percentage or 'that' means depends on what came before ('what is that as a %' after a change)
        feats += [f"last={last}&{w}" for w in set(words) if w in _CONTEXT_WORDS]
    return feats


# The lexicon's word classes (every way of saying 'change', 'percent', 'share', ...) as features: a word the training
# data never used ('rise', 'y/y') still reads as its class. The model weighs them; they decide nothing.
_WORD_CLASSES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("change", CHANGE_RE), ("percent", PERCENT_RE), ("share", SHARE_RE), ("sum", SUM_RE), ("average", AVERAGE_RE),
    ("cagr", CAGR_RE),
)


def named_operations(question: str) -> list[str]:
    """The operations a word of the lexicon's classes names in ``question`` ('grew' a change or its rate, 'average'
    an average): the candidates :meth:`OperationGuess.among` falls back on. 'Total' or 'average' inside a metric's
    own name ('total revenue', 'average selling price') names none."""
    spans = [(m.start, m.end) for m in find_metrics(question)]

    def outside(pattern: re.Pattern[str]) -> bool:
        return any(not any(s <= m.start() < e for s, e in spans) for m in pattern.finditer(question))

    changes = bool(CHANGE_RE.search(question))
    named = {
        "change": changes,
        "percent_change": changes,
        "cagr": bool(CAGR_RE.search(question)),
        "average": outside(AVERAGE_RE),
        "sum": outside(SUM_RE),
    }
    return [op for op, said in named.items() if said]


# Words whose meaning depends on the last turn's computation; the model learns how (no rule says so here).
_CONTEXT_WORDS = frozenset(("that", "this", "it", "percentage", "percent", "%", "represent", "total", "average"))


class OperationModel(BaseModel):
    """A trained linear model: a weight per (feature, operation) and a bias per operation."""

    operations: list[str]
    bias: list[float]
    weights: dict[str, list[float]] = Field(description="feature -> one weight per operation")
    trained_on: str = Field(default="", description="which data, how many examples, which groups were held out")

    def guess(self, question: str, context: OperationContext | None = None) -> OperationGuess:
        """The most probable operation of ``question`` in ``context``."""
        logits = list(self.bias)
        for feat in features(question, context or OperationContext()):
            row = self.weights.get(feat)
            if row is not None:
                logits = [a + b for a, b in zip(logits, row, strict=True)]
        top = max(logits)
        exps = [math.exp(v - top) for v in logits]
        total = sum(exps)
        probs = {op: e / total for op, e in zip(self.operations, exps, strict=True)}
        best = max(probs, key=probs.__getitem__)
        return OperationGuess(operation=best, probability=probs[best], scores=probs)

    def save(self, path: Path) -> None:
        """Write the model as JSON (weights rounded to 4 decimals: a smaller file, the same predictions)."""
        data = self.model_dump()
        data["bias"] = [round(b, 4) for b in self.bias]
        data["weights"] = {k: [round(w, 4) for w in v] for k, v in sorted(self.weights.items())}
        path.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")


class LabelledQuestion(BaseModel):
    """One training example: a question, its conversation context, and its label: the operation its gold program
    performs, or (for the answer-kind model) what its gold answer is."""

    question: str
    context: OperationContext = Field(default_factory=OperationContext)
    operation: str = Field(description="the label: an operation, or an answer kind")
    group: str = Field(description="the company (or filing) it is about: folds never split a group")
    source: str = ""


# Regularisation and iterations of the fit: C=1, scikit-learn's default (on the company-disjoint folds C=0.3, 1 and 3
# score 90.5 / 90.4 / 90.4%: nothing to tune); weights under 1e-3 are dropped from the file (no training question
# is read differently without them).
TRAIN_C = 1.0
TRAIN_MAX_ITER = 2000
MIN_WEIGHT = 1e-3
MIN_FEATURE_COUNT = 2  # a word pair seen once is noise, and half the file


def train(examples: Sequence[LabelledQuestion], trained_on: str = "") -> OperationModel:
    """Fit the model on labelled questions (scikit-learn's L-BFGS; deterministic for the same examples)."""
    from sklearn.feature_extraction import DictVectorizer  # training only: never imported by `finrag ask`
    from sklearn.linear_model import LogisticRegression

    labels = sorted({e.operation for e in examples})
    if len(labels) < 2:
        raise FinragError(f"cannot train on {len(examples)} questions that all read {labels or ['nothing']}: "
                          "a model needs questions of at least two kinds")
    counts = Counter(f for e in examples for f in set(features(e.question, e.context)))
    rows = [{f: 1.0 for f in features(e.question, e.context) if counts[f] >= MIN_FEATURE_COUNT} for e in examples]
    vectoriser = DictVectorizer()
    x = vectoriser.fit_transform(rows)
    y = [e.operation for e in examples]
    fit = LogisticRegression(C=TRAIN_C, max_iter=TRAIN_MAX_ITER).fit(x, y)
    classes = [str(c) for c in fit.classes_]
    coef = fit.coef_ if len(classes) > 2 else [[-w for w in fit.coef_[0]], list(fit.coef_[0])]
    bias = list(fit.intercept_) if len(classes) > 2 else [-fit.intercept_[0], fit.intercept_[0]]
    weights: dict[str, list[float]] = {}
    for j, name in enumerate(vectoriser.get_feature_names_out()):
        row = [float(coef[k][j]) for k in range(len(classes))]
        if max(abs(w) for w in row) >= MIN_WEIGHT:
            weights[str(name)] = row
    return OperationModel(operations=classes, bias=[float(b) for b in bias], weights=weights, trained_on=trained_on)


@lru_cache(maxsize=4)
def load_model(path: Path = PACKAGED_MODEL) -> OperationModel:
    """The model stored at ``path`` (read once per path)."""
    try:
        return OperationModel.model_validate_json(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise FinragError(f"cannot read the operation model {path}: {exc}; rebuild it with "
                          "`finrag train operations`") from exc


def guess_operation(question: str, context: OperationContext | None = None) -> OperationGuess:
    """The operation ``question`` asks for, by the configured model (``Settings.operations_model``, else the
    packaged one)."""
    return load_model(Settings.from_env().operations_model or PACKAGED_MODEL).guess(question, context)


def asks_words(question: str) -> bool:
    """Whether ``question`` asks for words (a description, names, periods) rather than an amount, by the configured
    answer-kind model (``Settings.answer_kind_model``, else the packaged one), when it is sure
    (:data:`WORDS_MIN_PROBABILITY`): a figure read for such a question answers something else."""
    if not in_question_form(question):
        described = [m for m in find_metrics(question) if METRICS[m.canonical].described]
        if any(not METRICS[m.canonical].described for m in find_metrics(question)) or (
                find_periods(question) and not described):
            # shorthand or a request naming an amount, or dating a thing the lexicon does not describe ('OCLT FFO
            # 1H25'), asks its figure; the model learned from questions
            return False
    model = load_model(Settings.from_env().answer_kind_model or PACKAGED_KIND_MODEL)
    # A fiscal year written as a label ('FY2023', 'FY 2023', 'FY23') reads as the year people write: the model
    # learned from their words.
    for m in reversed(find_periods(question)):
        if m.surface[:2].upper() == "FY":
            question = question[: m.start] + m.norm[2:6] + question[m.end:]
    return model.guess(question).scores.get(ANSWER_WORDS, 0.0) >= WORDS_MIN_PROBABILITY

