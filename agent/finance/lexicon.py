"""Finance lexicon: canonical metric names, their synonyms and abbreviations, topics and formulas.

``find_metrics`` turns "Purchases of property, plant and equipment (PP&E)" into the canonical metric
``capital expenditure`` with character offsets, so a question about "capex" and a cash-flow row that never
says "capex" meet on one name. Matching works on normalised word tokens (case, punctuation, line breaks,
hyphens and possessives do not matter; plurals of a phrase's last word are generated) and the longest phrase
wins, so "cost of sales" is never read as "sales".

Derived metrics (ratios, margins, days, turnover, growth) carry a :class:`Formula` whose terms are other
canonical metrics: the answer step computes them in code and alignment credits chunks that hold the components
(a gross-margin question is answered by a page with revenue and cost of sales).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from functools import lru_cache

from pydantic import BaseModel

from agent.errors import FinragError
from agent.finance.formulas import MetricDef
from agent.finance.metrics import _DEFS, METRICS, TOPIC_CUES

# "CFO" is far more often the Chief Financial Officer than cash from operations: veto it near these words.
_VETO_WINDOW = 80  # characters either side of a mention searched for veto words


_CONTEXT_VETO: dict[str, re.Pattern[str]] = {
    "cfo": re.compile(
        r"officer|chief|ceo\b|signature|certif|/s/|vice\s+president|\b(?:our|new|former|interim|the)\s+cfo\b",
        re.IGNORECASE,
    ),
}


# Abbreviations that are also ordinary words or names in lower case: matched only as written in capitals.
_UPPERCASE_ONLY: frozenset[str] = frozenset(
    {"CFO", "OCF", "ROA", "ROE", "DSO", "DIO", "DPO", "CCC", "ETR", "DPS", "NI", "GM", "GP"}
)


class MetricMention(BaseModel):
    """Where a metric is named in a text: canonical name, character offsets and the words as written."""

    canonical: str
    start: int
    end: int
    surface: str


# ---------------------------------------------------------------------------------------------------------
# Matching: a trie over normalised tokens
# ---------------------------------------------------------------------------------------------------------
# Words, with '&' and '/' kept inside abbreviations (SG&A, PP&E, A/R); a possessive "'s" is dropped and a lone
# '&' is read as "and". Run on lower-cased text so no per-token normalisation call is needed.
_TOKEN_RE = re.compile(r"([a-z0-9]+(?:[&/][a-z0-9]+)*)(?:['’]s\b)?|&")


_PAREN_ABBR_RE = re.compile(r"\s*\(\s*([A-Za-z][A-Za-z&/.]{1,9})\s*\)")  # "... equipment (PP&E)"


_TERMINAL = ""  # trie key that holds (canonical, required_case) at the end of a phrase


def _tokens(text: str) -> list[tuple[str, int, int]]:
    """(normalised token, start, end) for each word of ``text``."""
    low = text.lower()
    if len(low) != len(text):  # a few Unicode letters change length when lower-cased: keep offsets exact
        low = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    return [
        (m.group(1), m.start(), m.end(1)) if m.group(1) else ("and", m.start(), m.end())
        for m in _TOKEN_RE.finditer(low)
    ]


def _plural(word: str) -> str:
    if word.endswith("y") and len(word) > 2 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "sh", "ch")):
        return word + "es"
    return word + "s"


def _variants(phrase: str) -> list[list[str]]:
    toks = [t for t, _, _ in _tokens(phrase)]
    if not toks:
        return []
    out = [toks]
    last = toks[-1]
    # Generate the plural of a plain last word; abbreviations and words already plural stay as written.
    if last.isalpha() and len(last) > 3 and not last.endswith("s"):
        out.append([*toks[:-1], _plural(last)])
    return out


@lru_cache(maxsize=1)
def _trie() -> dict:
    root: dict = {}
    seen: dict[tuple[str, ...], str] = {}
    for d in _DEFS:
        surfaces = [(s, None) for s in [d.canonical, *d.synonyms]]
        surfaces += [(a, a if a.upper() in _UPPERCASE_ONLY else None) for a in d.abbreviations]
        for phrase, required in surfaces:
            for toks in _variants(phrase):
                key = tuple(toks)
                owner = seen.get(key)
                if owner is not None and owner != d.canonical:
                    raise ValueError(f"lexicon: '{phrase}' names both '{owner}' and '{d.canonical}'")
                seen[key] = d.canonical
                node = root
                for tok in toks:
                    node = node.setdefault(tok, {})
                if _TERMINAL not in node or required is None:
                    node[_TERMINAL] = (d.canonical, required)
    return root


MIN_CLIPPED_LETTERS = 2  # 'op' for operating; one letter abbreviates too many words
MIN_LONE_CLIPPED_LETTERS = 3  # a clipped word that is a metric's whole name by itself ('rev')
MAX_CLIPPED_LETTERS = 4  # 'op', 'rev', 'prof'; a longer word is a word of its own ('carry' is no 'carryforward')
MIN_CLIPPED_AWAY = 2  # letters a clip leaves off: 'sale' is a word of its own, not a clipped 'sales'


@lru_cache(maxsize=1)
def _vocabulary() -> tuple[str, ...]:
    """Every word of every metric name the lexicon knows, sorted."""
    words: set[str] = set()
    stack = [_trie()]
    while stack:
        node = stack.pop()
        for key, child in node.items():
            if key != _TERMINAL:
                words.add(key)
                stack.append(child)
    return tuple(sorted(words))


def written_out(text: str, ordinary: Callable[[str], bool] = lambda _word: False,
                function_word: Callable[[str], bool] = lambda _word: False) -> str:
    """``text`` with each clipped word that abbreviates a word of a metric's name written out ('op income' ->
    'operating income', 'net inc' -> 'net income', 'rev' -> 'revenue'). A clipped word is written in lower case or
    capitals, is in no metric name, and starts words of the lexicon's; it stands for the ``ordinary`` English
    words among them ('rev': revenue, not revolver), or for any when none is ordinary. It is written out when
    exactly one metric is then named there that the text did not name: with a neighbour ('op income'), or alone
    only when the ordinary words it starts are all one word ('rev'; not 'int': interest or international); two
    clips side by side that name one metric only together ('op inc') are written out together. A capitalised word
    ('Inc') is a name and stays, and a ``function_word`` ('in', 'to') is never clipped."""
    mentions = find_metrics(text)
    out = text
    for low, start, end in reversed(_tokens(text)):
        clip = _clip_words(text, low, start, end, mentions, ordinary, function_word)
        readings = _clipped_readings(text, start, end, *clip) if clip is not None else {}
        if len(readings) == 1:
            out = out[:start] + next(iter(readings.values())) + out[end:]
    mentions = find_metrics(out)
    clips = [(start, end, clip) for low, start, end in _tokens(out)
             if (clip := _clip_words(out, low, start, end, mentions, ordinary, function_word)) is not None]
    for (start, gap, first), (after, end, second) in reversed(list(itertools.pairwise(clips))):
        readings = _paired_readings(out, start, end, first[0], second[0]) if out[gap:after] == " " else {}
        if len(readings) == 1:
            out = out[:start] + next(iter(readings.values())) + out[end:]
    return out


def _clip_words(text: str, low: str, start: int, end: int, mentions: Sequence[MetricMention],
                ordinary: Callable[[str], bool], function_word: Callable[[str], bool]) -> tuple[list[str], bool] | None:
    """The words of the lexicon's the token at ``start:end`` may be clipped from, and whether it may stand for
    them alone (see :func:`written_out`); None when it is no clip."""
    raw = text[start:end]
    if (not MIN_CLIPPED_LETTERS <= len(low) <= MAX_CLIPPED_LETTERS or not low.isalpha() or not (raw.islower() or raw.isupper())
            or function_word(low) or _trie().get(low) is not None
            or any(m.start <= start < m.end for m in mentions)):
        return None
    vocabulary = _vocabulary()
    if low in vocabulary:
        return None
    # a clip written in the plural ('revs') is the plural of its word ('revenues')
    clip = low[:-1] if low.endswith("s") and not any(w.startswith(low) for w in vocabulary) else low
    starting = [w for w in vocabulary
                if w.startswith(clip) and len(w) - len(clip) >= MIN_CLIPPED_AWAY and w.isalpha()]
    if clip != low:
        starting = [f"{w}s" for w in starting if not w.endswith("s") and f"{w}s" in vocabulary]
    plain = [w for w in starting if ordinary(w)]
    one_word = len({w.removesuffix("s") for w in plain}) == 1 and len(clip) >= MIN_LONE_CLIPPED_LETTERS
    return (plain or starting), bool(plain) and one_word


def _paired_readings(text: str, start: int, end: int, first: list[str], second: list[str]) -> dict[str, str]:
    """Canonical metric -> the two words of ``first`` and ``second`` that, written for the two clips at
    ``start:end``, name it there across both."""
    readings: dict[str, str] = {}
    for a, b in itertools.product(first, second):
        trial = f"{text[:start]}{a} {b}{text[end:]}"
        for m in find_metrics(trial):
            if m.start <= start and m.end >= start + len(a) + 1 + len(b):
                readings.setdefault(m.canonical, f"{a} {b}")
    return readings


def _clipped_readings(text: str, start: int, end: int, words: list[str], lone: bool) -> dict[str, str]:
    """Canonical metric -> the word of ``words`` that, written at ``start:end``, names it there (alone only when
    ``lone``)."""
    readings: dict[str, str] = {}
    for word in words:
        trial = text[:start] + word + text[end:]
        for m in find_metrics(trial):
            alone = m.start == start and m.end == start + len(word)
            if m.start <= start < m.end and (lone or not alone):
                readings.setdefault(m.canonical, word)
    return readings


@lru_cache(maxsize=1)
def _narrower_names() -> dict[tuple[str, ...], str]:
    return {tuple(toks): kind for d in _DEFS for kind in d.kinds for toks in _variants(kind)}


def narrower_name(mention: MetricMention) -> str:
    """The narrower figure a mention names by one of its metric's kinds ('senior notes' of long-term debt, as
    written in the lexicon), or '' when it names the metric itself."""
    return _narrower_names().get(tuple(t for t, _, _ in _tokens(mention.surface)), "")


def surface_forms() -> dict[tuple[str, ...], str]:
    """Every normalised token sequence the matcher knows, mapped to its canonical metric (audits, tests)."""
    out: dict[tuple[str, ...], str] = {}

    def walk(node: dict, path: tuple[str, ...]) -> None:
        for key, child in node.items():
            if key == _TERMINAL:
                out[path] = child[0]
            else:
                walk(child, (*path, key))

    walk(_trie(), ())
    return out


_NEGATION = "non"  # the prefix that names the complement of what follows it
_SPLIT_BY = frozenset(("by",))  # the preposition after a metric that says how it is split ('by segment')


# What a label takes out of, or has not yet taken from, the figure it heads ('Loans, net of allowance for credit
# losses', 'Property and equipment, less accumulated depreciation', 'Income before income taxes').
_DEDUCTING = (("net", "of"), ("less",), ("excluding",), ("without",), ("before",), ("after",))
_SUBTRACTING = (("net", "of"), ("less",))  # in a question: 'EBITDA less capex' asks the difference


def deduction_start(text: str) -> int:
    """Offset in ``text`` of the first phrase by which it takes something out of, or not yet from, what it names
    ('Loans, net of allowance ...'), with a head before it; -1 when none. A label that opens with the phrase
    ('Less: accumulated depreciation') is the deducted amount's own line."""
    tokens = _tokens(text)
    words = [w for w, _, _ in tokens]
    for k in range(1, len(words)):
        if any(tuple(words[k:k + len(phrase)]) == phrase for phrase in _DEDUCTING):
            return tokens[k][1]
    return -1


def deducted(text: str, mention: MetricMention, adjacent: bool = False) -> bool:
    """Whether ``mention`` (found in ``text``) names what the figure of ``text`` is taken net of, less, without,
    before or after: the figure is the head's ('Loans'), not this metric's (see :func:`deduction_start`). A label
    deducts all it names after the phrase; a question (``adjacent``) the metric right after 'before', 'after',
    'excluding' or 'without' only ('the net deferred tax asset before valuation allowance'; not the second operand
    of 'the ratio of X before tax to Y', nor what 'EBITDA less capex' subtracts)."""
    if not adjacent:
        return 0 <= deduction_start(text) <= mention.start
    tokens = _tokens(text)
    words = [w for w, _, _ in tokens]
    at = next((k for k, (_, start, _) in enumerate(tokens) if start >= mention.start), len(words))
    # the phrase ends right before the mention, or opens it; a question's 'less' and 'net of' ask a subtraction
    # ('EBITDA less capex'), its 'before' and 'without' what the asked figure is taken before
    return any(k > 0 and tuple(words[k:k + len(phrase)]) == phrase
               for phrase in _DEDUCTING if phrase not in _SUBTRACTING for k in (at - len(phrase), at))


def label_head(label: str) -> str:
    """The words of a row label that say what its figure is: those before a deduction ('Loans' of 'Loans, net of
    allowance for credit losses'); the whole label when it makes none."""
    at = deduction_start(label)
    return label[:at].rstrip(" ,;:-") if at > 0 else label


def without_metrics(text: str) -> str:
    """``text`` with the metrics it names blanked (offsets kept): a word inside a metric's own name ('comparable
    sales growth', a rate of change already) is no word of the question around it."""
    for mention in reversed(find_metrics(text)):
        text = text[:mention.start] + " " * (mention.end - mention.start) + text[mention.end:]
    return text


def find_metrics(text: str, include_statements: bool = False) -> list[MetricMention]:
    """Every metric named in ``text``, longest phrase first, without overlaps, in order of appearance.

    Names of financial statements ("cash flow statement") are matched so that their words are not read as
    metrics, and returned only with ``include_statements``.

    >>> [m.canonical for m in find_metrics("Purchases of property, plant and equipment (PP&E)")]
    ['capital expenditure']
    """
    if not text:
        return []
    root = _trie()
    toks = _tokens(text)
    candidates: list[tuple[int, int, str]] = []  # (first token, last token exclusive, canonical)
    n = len(toks)
    for i in range(n):
        node = root.get(toks[i][0])
        if node is None or (i and toks[i - 1][0] == _NEGATION):
            continue  # 'non-current liabilities' are not current liabilities, 'non-operating' not operating
        best: tuple[int, str] | None = None
        j = i
        while True:
            term = node.get(_TERMINAL)
            if term is not None:
                canonical, required = term
                if required is None or _upper_form(text, toks, i, j):
                    best = (j + 1, canonical)
            j += 1
            if j >= n:
                break
            node = node.get(toks[j][0])
            if node is None:
                break
        if best is not None:
            candidates.append((i, best[0], best[1]))
    # A phrase that shares its first word with the end of an earlier one and runs on with a preposition ('unearned
    # revenue' + 'revenue by segment') is the earlier metric's head with a post-modifier: the words before a head
    # noun say what it is, the phrase after it only how it is split ('Unearned revenue by segment').
    ends = {j - 1 for i, j, _ in candidates if j - i > 1}
    candidates = [c for c in candidates
                  if not (c[0] in ends and c[1] - c[0] > 1 and toks[c[0] + 1][0] in _SPLIT_BY)]
    # Longest match wins; ties go to the earlier one.
    candidates.sort(key=lambda c: (-(c[1] - c[0]), c[0]))
    taken = [False] * n
    chosen: list[MetricMention] = []
    for i, j, canonical in candidates:
        if any(taken[i:j]):
            continue
        start, end = toks[i][1], toks[j - 1][2]
        if _vetoed(text, start, end):
            continue
        for k in range(i, j):
            taken[k] = True
        paren = _PAREN_ABBR_RE.match(text, end)
        if paren is not None and j < n and toks[j][1] >= paren.start(1):
            # "(PP&E)" right after the full name restates it: part of this mention, not a second metric.
            last = j
            while last < n and toks[last][2] <= paren.end(1):
                taken[last] = True
                last += 1
            end = paren.end()
        if include_statements or METRICS[canonical].kind != "statement":
            chosen.append(
                MetricMention.model_construct(
                    canonical=canonical, start=start, end=end, surface=text[start:end]
                )
            )
    chosen.sort(key=lambda m: m.start)
    return chosen


@lru_cache(maxsize=4096)
def statements_named(text: str) -> frozenset[str]:
    """The financial statements a text names, by their canonical names ('Consolidated Statements of Operations'
    and 'income statement' are one): of a question, a section path, a table's caption."""
    return frozenset(m.canonical for m in find_metrics(text, include_statements=True)
                     if METRICS[m.canonical].kind == "statement")


def _upper_form(text: str, toks: list[tuple[str, int, int]], i: int, j: int) -> bool:
    """An upper-case-only abbreviation counts when written in capitals ("CFO", "CFO's", "DSOs")."""
    raw = text[toks[i][1]:toks[j][2]]
    for suffix in ("'s", "’s", "s"):
        if raw.endswith(suffix) and raw[: -len(suffix)].isupper():
            return True
    return raw.isupper()


def _vetoed(text: str, start: int, end: int) -> bool:
    veto = _CONTEXT_VETO.get(text[start:end].lower())
    if veto is None:
        return False
    window = text[max(0, start - _VETO_WINDOW):end + _VETO_WINDOW]
    return veto.search(window) is not None


# ---------------------------------------------------------------------------------------------------------
# Lookups
# ---------------------------------------------------------------------------------------------------------
def canonical(name: str) -> str | None:
    """The canonical metric for a name, synonym or abbreviation ('capex' -> 'capital expenditure'), else None.

    The whole name must be one known phrase; use :func:`find_metrics` to search inside longer text.
    """
    return _canonical(name)


@lru_cache(maxsize=16384)  # alignment looks up the same surfaces ("Net sales", "PP&E") for every card
def _canonical(name: str) -> str | None:
    if name in METRICS:
        return name
    mentions = find_metrics(name, include_statements=True)
    if len(mentions) == 1 and mentions[0].surface.strip(" ()") and _covers(name, mentions[0]):
        return mentions[0].canonical
    return None


def _covers(text: str, mention: MetricMention) -> bool:
    rest = (text[: mention.start] + text[mention.end:]).strip(" \t\n.,;:()-")
    return not rest


def metric_info(name: str) -> MetricDef:
    """The definition of a canonical metric (synonyms accepted); :class:`FinragError` when unknown."""
    key = canonical(name)
    if key is None:
        raise FinragError(f"unknown metric: {name!r}")
    return METRICS[key]


def synonyms(name: str) -> list[str]:
    """All names of a metric: canonical first, then synonyms and abbreviations."""
    d = metric_info(name)
    return list(dict.fromkeys([d.canonical, *d.synonyms, *d.abbreviations]))


def components(name: str, recursive: bool = True) -> list[str]:
    """The canonical metrics a derived metric is computed from (with ``recursive``, their inputs too).

    >>> components("gross margin")
    ['gross profit', 'revenue', 'cost of goods sold']
    """
    return list(_components(metric_info(name).canonical, recursive))


@lru_cache(maxsize=1024)
def _components(name: str, recursive: bool) -> tuple[str, ...]:
    out: dict[str, None] = {}
    formula = METRICS[name].formula
    if formula is None:
        return ()
    for inp in formula.inputs():
        if inp == name:
            continue
        out[inp] = None
        if recursive:
            for sub in _components(inp, True):
                if sub != name:
                    out[sub] = None
    return tuple(out)


def topic_of(metrics: list[str]) -> str:
    """The dominant topic of a list of canonical metrics (first wins ties); 'Other' when empty."""
    counts: dict[str, int] = {}
    for m in metrics:
        d = METRICS.get(m)
        if d is not None:
            counts[d.topic] = counts.get(d.topic, 0) + 1
    if not counts:
        return "Other"
    return max(counts, key=lambda t: counts[t])  # dicts keep insertion order, so max keeps the first of ties


def topic_from_cues(text: str) -> str:
    """A topic from plain words when no metric is named ('risks' -> Risk); 'Other' when nothing fits."""
    best, best_hits = "Other", 0
    for topic, pattern in _TOPIC_CUE_RES.items():
        hits = len(pattern.findall(text))
        if hits > best_hits:
            best, best_hits = topic, hits
    return best


# Cues match at the start of a word ("risk" in "risks", not "eps" in "PepsiCo").
_TOPIC_CUE_RES: dict[str, re.Pattern[str]] = {
    topic: re.compile(r"\b(?:" + "|".join(re.escape(c) for c in cues) + ")", re.I)
    for topic, cues in TOPIC_CUES.items()
}


def figure_kind(metric: str) -> str:
    """What a metric's figure looks like: money | percent | ratio | days | per_share | count."""
    info = METRICS.get(metric)
    if info is None:
        return "money"
    if info.formula is not None:
        return {"%": "percent", "x": "ratio", "days": "days"}.get(info.formula.unit, "money")
    if metric in {"shares outstanding", "employees"}:
        return "count"
    if metric in {"dividend yield", "comparable sales", "organic growth", "net interest margin",
                  "common equity tier 1 ratio"}:
        return "percent"
    if metric == "price to earnings ratio":
        return "ratio"
    if info.topic == "Per Share":
        return "per_share"
    return "money"


_COUNT_RE = re.compile(r"\bnumber\s+of\b", re.IGNORECASE)


def names_count(text: str) -> bool:
    """Whether ``text`` names a count ('Total number of shares purchased', 'Weighted average number of shares used
    in earnings per share')."""
    return bool(_COUNT_RE.search(text))


def names_per_share(text: str) -> bool:
    """Whether ``text`` names a per-share figure ('Diluted Earnings Per Common Share', 'EPS')."""
    return any(figure_kind(m.canonical) == "per_share" for m in find_metrics(text)) if text else False


# Metrics without a formula that are still quoted in percent ('dividend yield', 'organic growth', 'tax rate').
_PERCENT_NAME_RE = re.compile(
    r"\b(?:margin|rate|yield|growth|percent(?:age)?)\b|\bcomparable\s+sales\b", re.IGNORECASE
)


def is_percentage_metric(metric: str) -> bool:
    """True when the metric is quoted in percent (a margin, rate or growth), so its changes are in points."""
    info = METRICS.get(metric)
    if info is not None and info.formula is not None:
        return info.formula.unit == "%"
    if info is not None and info.described:
        return False  # 'interest rate risk' is described, not quoted
    return bool(_PERCENT_NAME_RE.search(metric))
