"""Word-level helpers every evidence reader shares: content words and stems, numbered names ('note 7'),
whose company a piece of evidence belongs to, and whether a sub-query asks for a figure at all.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent.answer.reading import (
    Evidence,
    EvidenceReader,
)
from agent.answer.records import SubAnswer
from agent.entities.names import name_key, names_company, same_name
from agent.finance.lexicon import find_metrics, names_count, names_per_share
from agent.finance.numbers import without_units
from agent.finance.wording import without_possessive
from agent.query.content import WORD_RE, content_words, numbered_names, stem
from agent.query.cues import NON_NUMERIC_RELATIONS
from agent.query.intent import without_names
from agent.query.plan import SubQuery
from agent.query.scope import (
    CONTRIBUTION_VERBS,
    EXCLUDING,
    FILLER_WORDS,
    PREDICATE_VERBS,
    STOP_WORDS,
    metric_modifiers,
)
from agent.schemas import NumericValue, TableColumn

TOTAL_BONUS = 0.1  # among partial labels, a "Total ..." row is the total, not a sub-item


RETRIEVAL_WEIGHT = 0.05  # retrieval score breaks ties between equally good rows






# ---------------------------------------------------------------------------------------------------------
# Finding a metric's value for a period
# ---------------------------------------------------------------------------------------------------------
def _for_company(reader: EvidenceReader, company: str) -> set[int]:
    """Indexes of the evidence about ``company``; all of them when none is identifiably about it."""
    everything = set(range(len(reader.evidence)))
    if not company:
        return everything
    chosen = {i for i, ev in enumerate(reader.evidence) if _about(ev, company)}
    return chosen or everything


def filing_owner(evidence: Sequence[Evidence], doc: str) -> str:
    """The company whose filing ``doc`` is (its recorded company, else the document name's first word), spaces
    dropped so 'Ulta Beauty, Inc.' and 'ULTABEAUTY_2023Q4' agree."""
    recorded = next((ev.company for ev in evidence if ev.doc_name == doc and ev.company), "")
    return name_key(recorded or doc.split("_")[0])


def _about(ev: Evidence, company: str) -> bool:
    """True when ``ev`` comes from a filing of ``company`` (its recorded company or its document name)."""
    if ev.company:
        return same_name(ev.company, company)
    return names_company(ev.doc_name.replace("_", " "), company)


def _names_other_number(label: str, question: str) -> bool:
    """The row names a numbered thing the question names with another number: 'tier 1 capital' does not
    answer 'tier 2 capital', however many words they share."""
    asked = numbered_names(question)
    if not asked:
        return False
    row = numbered_names(label)
    return any(word in row and not (nums & row[word]) for word, nums in asked.items())


EQUITY_WORDS = frozenset(
    ("common", "stock", "share", "price", "performance", "value", "return", "cumulative", "investment")
)  # words that say 'the stock of' a company or index a performance table names by its name alone


def other_kind_parent(per_share: bool, parent: str) -> bool:
    """Whether the sub-heading a row sits under makes its figures another kind than the one asked: per-share
    amounts ('Diluted Earnings Per Common Share' over 'Net income attributable to X') when a figure not per share is
    asked, numbers of shares ('Weighted average number of shares used in earnings per share' over 'Basic earnings
    per share') when a per-share amount is."""
    return names_count(parent) if per_share else names_per_share(parent)


def opening_balance(label: str, opening_asked: bool) -> bool:
    """``label`` is a roll-forward's opening balance ('Stores at beginning of period', 'Opening balance') and the plan
    does not ask one (``opening_asked``): a period's opening balance is the closing one of the period before, never
    the figure at the period's end or for the period."""
    words = label.lower().replace("(", " ").replace(",", " ").split()
    return not opening_asked and ("beginning" in words or "opening" in words)


ROOT_CHARS = 6  # letters two forms of a word share ('operat-ed', 'franch-isees'); 'curren-t/-cy' is the price
MIN_ROOT_CHARS = 4  # shorter words are compared whole


def inflected(a: str, b: str) -> bool:
    """One word and its regular form ('open' and 'opened', 'close' and 'closed', 'grant' and 'granting')."""
    short, long_ = sorted((a, b), key=len)
    return long_ in {f"{short}ed", f"{short}d", f"{short}ing"}


def slash_alternatives(name: str) -> list[str]:
    """A column's name and, when a slash joins two names ('Yield/Rate'), each of them: either one names it whole."""
    return [name, *(name.split("/") if name.count("/") == 1 else ())]


def named_by(words: set[str], asked: set[str]) -> set[str]:
    """Those of ``words`` the ``asked`` words name, as written or in a regular form ('Opened' by 'open')."""
    return {w for w in words if w in asked or any(inflected(w, a) for a in asked)}


def same_root(a: str, b: str) -> bool:
    """Two forms of one word ('operate' and 'operated', 'franchise' and 'franchisees'): they share their first
    :data:`ROOT_CHARS` letters, or the shorter whole; a short word and its regular forms ('own' and 'owned')."""
    n = min(ROOT_CHARS, len(a), len(b))
    short, long_ = sorted((a, b), key=len)
    if long_ in {f"{short}ed", f"{short}s", f"{short}ing"}:
        return True
    return n >= MIN_ROOT_CHARS and a[:n] == b[:n] and (n == ROOT_CHARS or n == min(len(a), len(b)))


def _excluded_words(text: str) -> set[str]:
    """The words ``text`` says a figure is without ('Balances without Adoption of Topic 606': adoption), unless it
    also names them as what the figure is ('securities remaining available ... (excluding securities reflected in
    column (a))' are securities)."""
    # 'ex-fuel' is 'excluding fuel': the prefix is the word
    split = [piece for t in WORD_RE.findall(text.lower())
             for piece in (t.split("-", 1) if t.split("-", 1)[0] in EXCLUDING else [t])]
    tokens = [stem(t) for t in split if t not in STOP_WORDS or t in EXCLUDING]
    after = {i + 1 for i, t in enumerate(tokens) if t in EXCLUDING}
    excluded = {tokens[i] for i in after if i < len(tokens)}
    return excluded - {t for i, t in enumerate(tokens) if i not in after}


def negated_words(asked: str, own: str) -> list[str]:
    """The words ``asked`` uses that the figure's ``own`` words negate ('current' of a 'Monetary assets,
    non-current' row, 'adoption' of a 'Balances without adoption' column) while ``asked`` does not: the figure is
    the opposite of what was asked."""
    asked_words, own_words = content_words(asked), content_words(own)
    excluded, asked_excluded = _excluded_words(own), _excluded_words(asked)
    return sorted(w for w in asked_words if f"non{w}" in own_words and f"non{w}" not in asked_words
                  or w in excluded and w not in asked_excluded)


# The verbs that tie a company or a part to the amount it brought in, as content words: no word a row must print.
LINKING_VERBS = frozenset(content_words(" ".join(CONTRIBUTION_VERBS)))
# Words by which a question asks how much, when, which or what of a figure (its arithmetic, its periods, its
# place in a table) rather than what the figure is: no row, column or table needs to print them.
ASKING_WORDS = frozenset(content_words(
    "average mean change difference increase decrease growth decline which what has have had does did year years "
    "fiscal fy period periods quarter amount value reported recorded shown presented disclosed stated table company "
    "group end beginning balance respective respectively based larger largest higher highest greater greatest "
    "smaller smallest lower lowest more most less least exceed exceeded exceeds exceeding above below over under "
    "than negative positive thousand thousands million millions billion billions percent percentage many "
    "information provide provided calculated show shows include included includes listed highlighted contain "
    "contains ended ending across variation variance fluctuation trend trended trending rise fall drop grew grow "
    "precedent preceding spend spends spent spending "
    "previous prior subsequent following next last before after earlier later about all " + " ".join(PREDICATE_VERBS)
))


def unasked_part(ev: Evidence, asked: str) -> str:
    """The part of the company (segment, region) the evidence's table figures are all of, when the words
    ``asked`` (a question and the scope it was read with) do not name it; '' otherwise. A segment's backlog is
    no answer for the company's."""
    if not ev.part:
        return ""
    asked_words = content_words(without_possessive(asked))  # "Space's operating income" names Space
    own = content_words(ev.part)
    # the words of its name no other part's name has name it too ('electric' of 'Electric Utility' beside 'Gas
    # Utility'); a word two parts share names neither
    others = {w for other in (ev.table.other_parts if ev.table is not None else ()) for w in content_words(other)}
    distinct = own - others if others else set()
    return "" if own <= asked_words or distinct and distinct <= asked_words else ev.part


def owner_row(label: str, hits: set[str], owner: frozenset[str], whole: bool = False) -> bool:
    """A row that the company's name (``owner``, among the question's words that ``hits`` it) names: the company
    itself ('cadence design systems inc .' beside the indices of a performance graph); unless ``whole``, also a row
    saying what it is of the company ('Net income attributable to Contoso' under 'Diluted Earnings Per Common
    Share'), whose sub-heading it then takes. Never a part of it named after it ('Contoso China')."""
    words = content_words(label)
    return bool(hits & owner) and bool(words) and (words <= owner or not whole and bool(find_metrics(label)))


def cited_unasked_part(answer: SubAnswer, reader: EvidenceReader, asked: str) -> bool:
    """The figure is cited from a part's table (a segment's, a region's) that the words ``asked`` do not name."""
    cited = {c.chunk_id for c in (answer.citations or ([answer.citation] if answer.citation else []))}
    return any(unasked_part(ev, asked) for ev in reader.evidence if ev.chunk_id in cited)


WHOLE_COLUMN_RE = re.compile(r"^\s*(?:total|consolidated|combined|all)\b", re.IGNORECASE)


def unasked_column(ev: Evidence, value: NumericValue, asked: str, owner: str = "", row: str = "") -> str:
    """The name of the column a table figure sits under ('Americas', 'Fair Value', 'U.S.' of 'Q1 2025 U.S.') when
    its table prints the row under two such names or more (of one period) and the words ``asked`` do not name
    this one; '' otherwise. A total column ('Total', 'Consolidated') is the whole, and a period column of no part
    names none. The ``owner``'s name (the company asked) names no column but the one that is the company, and a
    word asked only inside a compound the figure's ``row`` prints names the row ('interest' of 'Total
    interest-earning assets' is no 'Interest' column asked)."""
    if ev.table is None or not value.column:
        return ""
    own = next((c for c in ev.table.columns if c.label == value.column and c.name), None)
    if own is None:
        return ""
    named = [c for c in ev.table.columns if c.name and (c.kind == "name" or c.period == own.period)]
    if len(named) < 2 or WHOLE_COLUMN_RE.match(own.name):
        return ""
    if negated_words(asked, own.name):
        return own.name  # 'Balances without adoption' answers no question after the adoption's adjustment
    asked_words = name_words(without_possessive(asked))
    owner_words = name_words(owner)
    if not name_words(without_units(own.name)) <= owner_words:
        asked_words -= owner_words  # 'Business Travel' is not named by Margie's Travel, the company asked
    # a word asked only inside a compound the row prints ('interest-earning') names the row
    compounds = {w.strip(",.:;()?") for w in row.lower().split() if "-" in w}
    tokens = [w.strip(",.:;()?") for w in without_possessive(asked).lower().split()]
    inside = set().union(*(name_words(w) for w in tokens if w in compounds))
    asked_words -= inside - set().union(*(name_words(w) for w in tokens if w not in compounds))
    names = slash_alternatives(own.name)
    if any(named_by(name_words(without_units(n)), asked_words) == name_words(without_units(n)) for n in names):
        return ""
    # A long name is named by the words that tell it from the other columns ('remaining available for future
    # issuance' of 'number of securities remaining available ... (excluding securities reflected in column (a))').
    distinct = {c.name: _distinct_words(c, named) for c in named}
    hits = {name: len(named_by(words, asked_words)) for name, words in distinct.items()}
    mine = hits[own.name]
    named_enough = mine >= max(1, len(distinct[own.name]) / 2)
    return "" if named_enough and all(n < mine for name, n in hits.items() if name != own.name) else own.name


def _distinct_words(column: TableColumn, columns: Sequence[TableColumn]) -> set[str]:
    """The words of a column's name that no other of ``columns`` prints."""
    others = set().union(*(name_words(without_units(c.name)) for c in columns if c.name != column.name))
    return name_words(without_units(column.name)) - others


def name_words(text: str) -> set[str]:
    """The content words of a name, an abbreviation written with full stops counted as one ('U.S.' -> 'us', of
    'Ex-U.S.' too): it tells a 'U.S.' column from an 'Ex-U.S.' one."""
    dotted = set()
    for token in text.replace("-", " ").split():
        letters = [p for p in token.strip(",;:()?'’").split(".") if p]
        if len(letters) >= 2 and all(len(p) == 1 and p.isalpha() for p in letters):
            dotted.add("".join(letters).lower())
    return content_words(text) | dotted


def _asks_figure(sub_query: SubQuery) -> bool:
    """A question after a figure though the lexicon names no metric: its plan reads a figure's wording in it (a
    period, 'how much'), or a number required."""
    intent = sub_query.intent
    if intent.relation in NON_NUMERIC_RELATIONS or intent.asks_words:
        return False
    return intent.figure_worded or intent.requires_numeric


def is_part_row(label: str, parts: Sequence[str]) -> bool:
    """A row labelled by one of ``parts`` or its block's total ('Europe', 'Total Garden'), not a row that names
    the part among other words ('United Kingdom deferred tax')."""
    own = " ".join(label.lower().split()).removeprefix("total ")
    return bool(own) and any(own == " ".join(part.lower().split()) for part in parts)


def clip_words(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters at a word boundary, marked with an ellipsis when cut."""
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > 0 else limit].rstrip(" ,;:") + " …"


# ---------------------------------------------------------------------------------------------------------
# The qualifiers a question puts on its metric ('fuel surcharge revenue', 'contract manufacturing net sales')
# ---------------------------------------------------------------------------------------------------------
def unnamed_modifiers(question: str, metric: str, naming: str, company: str = "") -> list[str]:
    """The question's modifiers of ``metric`` (:func:`metric_modifiers`) that the words ``naming`` a figure
    lack: 'fuel surcharge revenue' is not answered by a figure named 'revenue'."""
    named = name_words(naming)
    # a hyphenated modifier ('customer-related') is named by its words, written with or without the hyphen; an
    # abbreviation by its letters, written with or without stops ('ex-US' of 'Ex-U.S.'); a word in a regular form
    # of its own ('ending' by 'end of the year')
    return [w for w in metric_modifiers(question, metric, company)
            if not named_by({stem(w)}, named) and not all(stem(p) in named for p in w.split("-") if p)
            and not name_words(w) <= named]


# 'the number of gas customers in 2008', 'how many locomotives were bought': what a count question counts.
_COUNTED_RE = re.compile(
    r"\b(?:number\s+of|how\s+many)\s+((?:[a-z&'-]+\s+){0,3}?[a-z&'-]+?)(?=\s+(?:in|for|at|on|during|of|from|did|"
    r"does|do|were|was|are|is|as|that|which|by|under|to|with|has|have|had)\b|\s*[?,.;]|$)",
    re.IGNORECASE,
)


def counted_noun(question: str) -> str:
    """The last word of what a count question counts ('customers' in 'the number of gas customers in 2008');
    '' for other questions or when it names nothing of its own ('how many years ...' keeps 'years')."""
    m = _COUNTED_RE.search(question)
    if m is None:
        return ""
    words = [w for w in m.group(1).lower().split() if w not in STOP_WORDS and w not in FILLER_WORDS]
    return stem(words[-1]) if words else ""


OUTLOOK = "outlook"  # the qualifier kind of a figure a company expects (guidance)
_QUALIFIERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "geography",
        re.compile(
            r"\bu\.\s?s\.(?!\w)|\bunited\s+states\b|\bdomestic(?:ally)?\b|\binternational(?:ly)?\b|\bforeign\b"
            r"|\bnon-u\.s\.|\boutside\s+(?:of\s+)?the\s+(?:u\.s\.|united\s+states)|\bnorth\s+american?\b"
            r"|\beurope(?:an)?\b|\bemea\b|\basian?\b|\blatin\s+american?\b|\bworldwide\b|\bglobal(?:ly)?\b",
            re.IGNORECASE,
        ),
    ),
    # A figure a company expects is guidance, not a result: it answers only a question after an expectation.
    (OUTLOOK, re.compile(r"\bexpect(?:s|ed|ing|ations?)?\b|\banticipat\w*|\bguidance\b|\boutlook\b|\bforecast\w*",
                           re.IGNORECASE)),
)
# Words that widen rather than restrict: a 'worldwide' figure answers a question that names no region.
_WIDE = re.compile(r"\bworldwide\b|\bglobal(?:ly)?\b|\btotal\b|\bconsolidated\b", re.IGNORECASE)


def asked_qualifiers(question: str, names: Sequence[str] = ()) -> list[tuple[str, str]]:
    """The restricting qualifiers a question puts on what it asks, as (kind, term): ('geography', 'United
    States') for 'employees in the United States'; widening words ('worldwide', 'total') are none, and neither are
    the words of the company's ``names`` as the question writes them ('Tailwind Traders International's')."""
    text = (without_names(question, names) or question) if names else question
    return [
        (kind, m.group(0))
        for kind, pattern in _QUALIFIERS
        for m in pattern.finditer(text)
        if not _WIDE.fullmatch(m.group(0))
    ]
