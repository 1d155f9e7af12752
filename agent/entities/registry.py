"""The registry of companies: one :class:`~agent.schemas.Entity` per filer, and the one way names meet it.

A filing attaches to an entity at ingest from its strongest evidence (CIK, commission file number, ticker,
the registrant's name and the names it says it had before); a question names an entity only through the
registry: whole words of a name, a former name, an alias, a ticker as written, or a short form of the name's
words ('AMEX'). Never a prefix ('Intel' is not 'Intelligent Systems'), never the head of a longer proper name
('Johnson Controls' is not Johnson & Johnson, 'Kraft Foods' not Kraft Heinz), never an ordinary word that is
not written as a name ('best', 'state', 'regions', or 'Show' opening a question).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import overload

from agent.entities.names import (
    FILER_WORDS,
    LEGAL_FORMS,
    NOT_NAMES,
    OBJECT_WORDS,
    abbreviates,
    core_tokens,
    is_common_word,
    is_frequent_word,
    name_key,
    name_tokens,
    names_company,
)
from agent.errors import FinragError
from agent.finance.lexicon import canonical, find_metrics
from agent.finance.periods import find_periods, is_month
from agent.schemas import DocumentMeta, Entity

SHORT_FORM_MIN = 3  # 'MGM' may stand for 'MGM Resorts International'; 'GE' or 'US' are too often something else
MAX_NAME_TOKENS = 10  # longest name (in words) looked for in a text
# How sure each source of a company's name is; a stronger source renames an entity, a weaker one never does.
SOURCE_RANK = {"edited": 5, "xbrl": 4, "cover": 3, "release": 2, "text": 1, "file name": 0, "": 0}
_WORD_RE = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?|&")
_SENTENCE_END = ".?!:;\n\"“("



@dataclass(frozen=True)
class Mention:
    """An entity named in a text, with where and how it was written."""

    entity: Entity
    start: int
    end: int
    surface: str


@dataclass(frozen=True)
class _Form:
    entity_id: str
    compact: str
    kind: str  # name | short | ticker
    common: bool  # one ordinary word: named only when written as a name


@dataclass(frozen=True)
class _Word:
    text: str
    low: str
    start: int
    end: int
    possessive: bool


_POSSESSIVE_END_RE = re.compile(r"['’]s?$")  # "ADTM's", "Tailspin Toys'"


def _words(text: str) -> list[_Word]:
    out = []
    for m in _WORD_RE.finditer(text):
        raw = m.group(0)
        possessive = bool(_POSSESSIVE_END_RE.search(raw)) and raw != "&"
        low = "and" if raw == "&" else re.sub(r"['’][a-z]*$", "", raw.lower())
        out.append(_Word(raw, low, m.start(), m.end(), possessive))
    return out


def _bare(word: _Word) -> str:
    """The word as written without a possessive ending ('ADTM's' -> 'ADTM')."""
    return _POSSESSIVE_END_RE.sub("", word.text) if word.possessive else word.text


def _written_as_ticker(words: Sequence[_Word], i: int) -> bool:
    """A known symbol written in capitals ('BA', 'LOW', 'COST') names its company, unless it is an ordinary word
    there: one of the most frequent ('IT', 'ALL', 'ON'), or a common word beside another common word in capitals (a
    heading set in capitals: 'COST OF SALES')."""
    symbol = _bare(words[i])
    if not is_common_word(symbol):
        return True
    if is_frequent_word(symbol):
        return False
    beside = [_bare(words[k]) for k in (i - 1, i + 1) if 0 <= k < len(words)]
    return not any(w.isupper() and is_common_word(w) for w in beside)


def _acronym_word(word: _Word) -> bool:
    """A word of two capitals or more and no lower-case letter ('FFO', 'NOI', 'R&D'): an acronym, no word of a name."""
    letters = [ch for ch in _bare(word) if ch.isalpha()]
    return len(letters) >= MIN_ACRONYM_CAPITALS and all(ch.isupper() for ch in letters)


MIN_ACRONYM_CAPITALS = 2


def _names_metric(text: str, word: _Word) -> bool:
    """Whether the capitals written from ``word`` on to the next space abbreviate a metric ('EPS', 'R&D')."""
    token = text[word.start:].split(maxsplit=1)[0].strip(".,;:?!")
    return token.isupper() and canonical(token) is not None


MAX_GIVEN_NAME_CHARS = 200  # the longest registrant names are about 100 characters


def _capitalised(word: _Word) -> bool:
    return word.text[:1].isupper() or word.text[:1].isdigit()


def _opens_sentence(text: str, word: _Word) -> bool:
    before = text[: word.start].rstrip()
    return not before or before[-1] in _SENTENCE_END


def _written_as_name(text: str, words: list[_Word], i: int, j: int) -> bool:
    """An ordinary word (words i..j) is a name when capitalised and, opening a sentence, possessive or not
    followed by an object (then it is a verb)."""
    if not _capitalised(words[i]):
        return False
    if words[j].possessive or not _opens_sentence(text, words[i]):
        return True
    return j + 1 < len(words) and words[j + 1].low not in OBJECT_WORDS


def _breaks_name(words: list[_Word], i: int) -> bool:
    """Whether the capitalised words from ``i`` on are no part of a name: a metric ('Net Revenue'), a period
    ('Q1', 'FY2023', 'March', '3Q FY24'), or words that never name a company."""
    run = []
    for w in words[i:]:
        if not _capitalised(w) or w.low == "and":
            break
        run.append(w.text)
    if not run:
        return True
    first = run[0].lower()
    return (
        first in NOT_NAMES
        or is_month(first)
        or bool(find_periods(run[0]))
        # a period written over several words ('3Q FY24', a count glued to its span: no word of a name)
        or any(p.start == 0 for p in find_periods(" ".join(run)))
        or bool(find_metrics(" ".join(run)))
        or canonical(run[0]) is not None
    )


class EntityRegistry(Sequence[str]):
    """The companies finrag knows, as a sequence of their names (sorted) with the ways to find them."""

    def __init__(self, entities: Iterable[Entity] = ()) -> None:
        self._by_id: dict[str, Entity] = {}
        for entity in entities:
            self._by_id[entity.entity_id] = entity
        self._forms: dict[str, list[_Form]] | None = None
        self._part_words: frozenset[str] | None = None
        self._part_names: frozenset[str] | None = None
        self._terms: dict[str, str] | None = None

    # --- construction ----------------------------------------------------------------------------------
    @classmethod
    def of(cls, names: Iterable[str]) -> EntityRegistry:
        """A registry of plain names (one entity per name key): what a caller holding only names passes."""
        registry = cls()
        for name in names:
            if name and name.strip():
                registry.attach(DocumentMeta(doc_id="", name="", company=name.strip(), company_source="text"))
        return registry

    @property
    def entities(self) -> list[Entity]:
        """Every entity, by name."""
        return sorted(self._by_id.values(), key=lambda e: (e.name.lower(), e.entity_id))

    # --- Sequence[str]: the names --------------------------------------------------------------------
    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def _known(self) -> list[str]:
        return [e.name for e in self.entities if e.name_source]

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        return self._known()[index]

    def __len__(self) -> int:
        return len(self._known())

    def __iter__(self) -> Iterator[str]:
        return iter(self._known())

    @property
    def complete(self) -> bool:
        """Whether every entity's company is known (each filing named one): only then can a company the
        registry lacks be said to have no filing."""
        return all(e.name_source for e in self._by_id.values())

    @property
    def sole(self) -> str:
        """The one company of an index of one filer's filings, or '' (none, several, or a filing whose company is
        not known): a name no filing goes by is then a part of that filer, never another company's figure."""
        return self[0] if len(self) == 1 and self.complete else ""

    def part_owners(self, name: str) -> set[str]:
        """The companies whose filings print ``name`` as a part of them (a segment, product or region; see
        :attr:`Entity.parts`)."""
        key = name_key(name)
        return {e.name for e in self._by_id.values() if e.name_source and key
                and any(name_key(part) == key for part in e.parts)}

    def part_names(self) -> frozenset[str]:
        """Every part name the indexed filings print, as printed ('Cloud Services', 'Asia Pacific')."""
        if self._part_names is None:
            self._part_names = frozenset(part for e in self._by_id.values() for part in e.parts)
        return self._part_names

    def defined_terms(self) -> dict[str, str]:
        """Each acronym the indexed filings define, with the words it stands for as printed ('ARR' -> 'Annual
        recurring revenue'); an acronym two filings define differently is left out (it names no one thing)."""
        if self._terms is None:
            longs: dict[str, set[str]] = {}
            for e in self._by_id.values():
                for term in e.terms:
                    longs.setdefault(term.short, set()).add(term.long)
            self._terms = {short: next(iter(found)) for short, found in longs.items()
                           if len({" ".join(name_tokens(x)) for x in found}) == 1}
        return self._terms

    def part_words(self) -> frozenset[str]:
        """The lower-cased words of every part name the indexed filings print ('cloud', 'services' of Cloud
        Services)."""
        if self._part_words is None:
            self._part_words = frozenset(w for part in self.part_names() for w in name_tokens(part))
        return self._part_words

    def part_owner(self, name: str) -> str:
        """The one company whose filings print ``name`` as a part of it, or '' when none does or several do."""
        owners = self.part_owners(name)
        return owners.pop() if len(owners) == 1 else ""

    def get(self, entity_id: str) -> Entity | None:
        """The entity with this id, or None."""
        return self._by_id.get(entity_id)

    # --- names -----------------------------------------------------------------------------------------
    def names_of(self, entity: Entity) -> list[str]:
        """Every name an entity goes by: its name, former names and aliases (not its tickers)."""
        return list(dict.fromkeys([entity.name, *entity.former_names, *entity.aliases]))

    def _index(self) -> dict[str, list[_Form]]:
        """Every written form of every entity, by its words run together. Besides each full name (with and
        without legal forms): its leading words ('MGM Resorts' of 'MGM Resorts International') and a
        distinctive first word ('MGM'), each only while no other entity is written so; never an ordinary word."""
        if self._forms is not None:
            return self._forms
        forms: dict[str, list[_Form]] = {}
        partial: dict[str, set[str]] = {}
        known = [e for e in self._by_id.values() if e.name_source]  # a filing's own name is no company name
        for e in known:
            for name in self.names_of(e):
                core = core_tokens(name)
                if not core:
                    continue
                common = len(core) == 1 and is_common_word(core[0])
                forms.setdefault("".join(core), []).append(_Form(e.entity_id, "".join(core), "name", common))
                full = "".join(name_tokens(name))
                if full != "".join(core):
                    forms.setdefault(full, []).append(_Form(e.entity_id, full, "name", False))
                for n in range(1, len(core)):
                    head = core[:n]
                    if n == 1 and (
                        len(head[0]) < SHORT_FORM_MIN or is_common_word(head[0]) or head[0] in LEGAL_FORMS | NOT_NAMES
                    ):
                        continue
                    if head[-1] in {"and", "of", "the"}:
                        continue
                    partial.setdefault("".join(head), set()).add(e.entity_id)
        for compact, owners in partial.items():
            if len(owners) == 1 and compact not in forms:
                forms[compact] = [_Form(next(iter(owners)), compact, "short", False)]
        for e in self._by_id.values():
            for ticker in e.tickers:
                forms.setdefault("$" + ticker.upper(), []).append(_Form(e.entity_id, ticker.upper(), "ticker", False))
        self._forms = forms
        return forms

    def mentions(self, text: str) -> list[Mention]:
        """Every entity ``text`` names, in order of appearance (one mention per span, the longest)."""
        if not self._by_id or not text:
            return []
        forms = self._index()
        words = _words(text)
        out: list[Mention] = []
        i = 0
        while i < len(words):
            found = self._match_at(text, words, i, forms)
            if found is None:
                i += 1
                continue
            entity_id, j = found
            out.append(Mention(self._by_id[entity_id], words[i].start, words[j].end, text[words[i].start : words[j].end]))
            i = j + 1
        if not out:
            out = self._short_forms(text, words)
        return out

    def _match_at(
        self, text: str, words: list[_Word], i: int, forms: dict[str, list[_Form]], whole: bool = True
    ) -> tuple[str, int] | None:
        """The entity a name written from word ``i`` on stands for, and its last word. ``whole``: the name must
        not run on into a longer proper name ('Johnson Controls')."""
        best: tuple[str, int] | None = None
        symbol = _bare(words[i])
        ticker = forms.get("$" + symbol) if symbol.isupper() else None
        if ticker and len(words[i].low) >= 2 and _written_as_ticker(words, i):
            best = (ticker[0].entity_id, i)
        acc = ""
        for j in range(i, min(len(words), i + MAX_NAME_TOKENS)):
            acc += words[j].low
            for form in forms.get(acc, []):
                if form.kind == "ticker":
                    continue
                if form.common and not _written_as_name(text, words, i, j):
                    continue
                if best is None or j >= best[1]:
                    best = (form.entity_id, j)
            if words[j].possessive:
                break
        if best is None:
            return None
        entity_id, j = best
        if not whole:
            return entity_id, j
        # The words before and after must not continue a longer proper name ('Johnson Controls', 'Kraft Foods').
        k = j + 1
        while k < len(words) and words[k].low in LEGAL_FORMS and _capitalised(words[k]) and not words[j].possessive:
            k += 1
        if (
            k < len(words)
            and not words[j].possessive
            and _capitalised(words[k])
            # a metric's abbreviation after a name is what is asked of the company ('MMM EPS', 'Adatum R&D'), and so
            # is any other acronym ('OCLT FFO', 'Ocelot Logistics Trust NOI')
            and not _names_metric(text, words[k])
            and not _acronym_word(words[k])
            and _capitalised(words[i])
            and words[k].start - words[k - 1].end <= 1
            and not _breaks_name(words, k)
        ):
            return None
        if i > 0 and _capitalised(words[i - 1]) and _capitalised(words[i]) and not words[i - 1].possessive:
            prev = words[i - 1]
            if words[i].start - prev.end <= 1 and not _opens_sentence(text, prev) and not _breaks_name(words, i - 1):
                return None
        return entity_id, k - 1

    def _short_forms(self, text: str, words: list[_Word]) -> list[Mention]:
        """Words written as a short form of a name's words ('AMEX', 'NRL', 'NoRiLo'): two or more capitals,
        not a metric, a period or a word that never names a company."""
        out: list[Mention] = []
        for w in words:
            letters = w.low
            if (
                len(letters) < SHORT_FORM_MIN
                or sum(ch.isupper() for ch in w.text) < 2
                or not letters.isalpha()
                or letters in NOT_NAMES
                or canonical(w.text) is not None
            ):
                continue
            for e in self.entities:
                core = [t for t in core_tokens(e.name) if t != "and"]
                if len(core) > 1 and abbreviates(letters, core):
                    out.append(Mention(e, w.start, w.end, w.text))
                    break
        return out

    def leading(self, name: str) -> tuple[Entity, str] | None:
        """The entity a name no company goes by opens with, and the words after it: 'CTSO Cloud Platforms' ->
        (Contoso, 'Cloud Platforms'). None when the name opens with no entity's name or ticker, is all of it, or
        runs on with a legal form or a word naming a filer ('Contoso Bank': another company's name)."""
        words = _words(name)
        found = self._match_at(name, words, 0, self._index(), whole=False) if words else None
        if found is None or found[1] + 1 >= len(words):
            return None
        rest = words[found[1] + 1:]
        if any(w.low in LEGAL_FORMS | FILER_WORDS for w in rest):
            return None
        return self._by_id[found[0]], name[rest[0].start:].strip()

    def with_names_for_tickers(self, text: str) -> str:
        """``text`` with each ticker it writes for a company ('ADTM', "ADTM's") in the registry's name for that
        company: every later reader knows a company by its name, and none takes a symbol for a word of the
        question."""
        for m in reversed(self.mentions(text)):
            surface = _POSSESSIVE_END_RE.sub("", m.surface)
            if surface in m.entity.tickers:
                text = text[: m.start] + m.entity.name + m.surface[len(surface):] + text[m.end:]
        return text

    def named_in(self, text: str) -> Entity | None:
        """The first entity ``text`` names, or None."""
        found = self.mentions(text)
        return found[0].entity if found else None

    def resolve(self, name: str) -> Entity | None:
        """The entity a name stands for: an id, a CIK, a ticker, or a name, former name or alias (its key,
        exactly; a name inside a longer text is :meth:`named_in`'s job). None when none is known."""
        ref = (name or "").strip()
        if not ref:
            return None
        if ref in self._by_id:
            return self._by_id[ref]
        digits = ref.removeprefix("cik:").lstrip("0")
        if digits.isdigit():
            for e in self._by_id.values():
                if e.cik and e.cik.lstrip("0") == digits:
                    return e
        for e in self._by_id.values():
            if ref.upper() in (t.upper() for t in e.tickers) and (ref.isupper() or len(ref) <= 5):
                return e
        key = name_key(ref)
        if not key:
            return None
        for form in self._index().get(key, []):
            if form.kind == "name":
                return self._by_id[form.entity_id]
        return None

    def knows(self, name: str) -> bool:
        """Whether ``name`` is, or writes, a company the registry holds ('Kraft Heinz', 'MGM Resorts')."""
        return self.resolve(name) is not None or bool(self.mentions(name))

    def same(self, a: str, b: str) -> bool:
        """Whether two names denote one company: both resolve to one entity, or (neither known) one key."""
        if not a or not b:
            return False
        ea, eb = self.resolve(a), self.resolve(b)
        if ea is not None or eb is not None:
            return ea is not None and eb is not None and ea.entity_id == eb.entity_id
        return name_key(a) == name_key(b)

    def canonical_name(self, name: str) -> str:
        """The registry's name for a company named ``name`` (an alias, a ticker, a former name); ``name`` when
        the registry does not know it."""
        entity = self.resolve(name)
        return entity.name if entity else name

    def named_by(self, text: str, company: str) -> bool:
        """Whether ``text`` names the company ``company`` by any of its names, as whole words."""
        entity = self.resolve(company)
        names = self.names_of(entity) if entity else [company]
        return any(names_company(text, n) for n in names if len(name_key(n)) >= SHORT_FORM_MIN)

    # --- attaching filings ---------------------------------------------------------------------------
    def find(self, meta: DocumentMeta) -> Entity | None:
        """The entity a filing belongs to, from its strongest evidence: CIK, commission file number, ticker,
        then its name (or a name it says it had before) against every entity's names."""
        for e in self._by_id.values():
            if meta.cik and e.cik and meta.cik.lstrip("0") == e.cik.lstrip("0"):
                return e
        for e in self._by_id.values():
            if meta.file_number and meta.file_number in e.file_numbers:
                return e
        for e in self._by_id.values():
            if meta.ticker and meta.ticker.upper() in (t.upper() for t in e.tickers):
                return e
        keys = {name_key(n) for n in [meta.printed_name or meta.company, *meta.former_names] if name_key(n)}
        for e in self._by_id.values():
            if keys & {name_key(n) for n in self.names_of(e)}:
                return e
        return None

    def attach(self, meta: DocumentMeta) -> tuple[Entity, str]:
        """Attach a filing to its entity (found or new) and fold the filing's evidence into it. Returns the
        entity and the id it had before when this evidence re-keys it (a CIK learned later), else ''."""
        found = self.find(meta)
        printed = (meta.printed_name or meta.company).strip()
        evidence = Entity(
            entity_id=_key_of(meta.cik, meta.file_number, meta.ticker, printed),
            name=printed or meta.name,
            cik=meta.cik,
            file_numbers=[meta.file_number] if meta.file_number else [],
            tickers=[meta.ticker.upper()] if meta.ticker else [],
            former_names=list(meta.former_names),
            # No name at all (no cover, release or file-name company): the entity is the filing's alone, its
            # company unknown ('' source), and no question is refused for naming a company it lacks.
            name_source=(meta.company_source or "text") if printed else "",
            name_as_of=meta.period_end or meta.fiscal_period,
        )
        if found is None:
            self._put(evidence)
            return evidence, ""
        merged = _fold(found, evidence)
        old_id = found.entity_id if merged.entity_id != found.entity_id else ""
        if old_id:
            del self._by_id[old_id]
        self._put(merged)
        return merged, old_id

    def merge(self, keep: str, gone: str, force: bool = False) -> Entity:
        """Fold entity ``gone`` into ``keep`` (names, tickers, identifiers); returns the entity kept. Two registrants
        the SEC numbers differently (two CIKs) are two companies: refused unless ``force``."""
        a, b = self.resolve(keep), self.resolve(gone)
        if a is None or b is None:
            raise KeyError(keep if a is None else gone)
        if a.entity_id == b.entity_id:
            return a
        if a.cik and b.cik and a.cik != b.cik and not force:
            raise FinragError(f"{a.name} (CIK {a.cik}) and {b.name} (CIK {b.cik}) are two registrants; merging them "
                              "would answer one's questions with the other's figures. Pass --force if one filer "
                              "really changed its CIK.")
        kept = _fold(a, b.model_copy(update={"name_source": "", "name_as_of": ""}), keep_id=True)
        kept.former_names = _unique([*kept.former_names, b.name, *b.former_names], exclude=kept.name)
        del self._by_id[b.entity_id]
        self._put(kept)
        return kept

    def checked_name(self, entity_id: str, name: str, what: str = "name") -> str:
        """``name`` as a company name given by hand for ``entity_id``, stripped; FinragError when it is empty, too
        long, holds a control character, or is already another indexed company's name, alias or ticker."""
        clean = " ".join(name.split())
        if not clean:
            raise FinragError(f"the {what} is empty; give the words people use for the company")
        if len(clean) > MAX_GIVEN_NAME_CHARS:
            raise FinragError(f"the {what} has {len(clean)} characters; a company's {what} has at most "
                              f"{MAX_GIVEN_NAME_CHARS}")
        if any(ord(c) < 32 or ord(c) == 127 for c in name if c not in " \t\n"):
            raise FinragError(f"the {what} holds a control character")
        other = self.resolve(clean)
        if other is not None and other.entity_id != entity_id:
            raise FinragError(f"'{clean}' already names {other.name}; use `finrag companies merge` if they are "
                              "one company")
        return clean

    def rename(self, entity_id: str, name: str) -> Entity:
        """Give an entity a name by hand ('edited' outranks every detected source); the old name is kept as a
        former name."""
        name = self.checked_name(entity_id, name)
        e = self._by_id[entity_id]
        renamed = e.model_copy(update={"name": name, "name_source": "edited"})
        renamed.former_names = _unique([*e.former_names, e.name], exclude=name)
        self._put(renamed)
        return renamed

    def _put(self, entity: Entity) -> None:
        self._by_id[entity.entity_id] = entity
        self._forms = None
        self._part_words = None
        self._part_names = None
        self._terms = None


def _key_of(cik: str, file_number: str, ticker: str, name: str) -> str:
    """An entity's id from its strongest identifier."""
    if cik:
        return f"cik:{cik.zfill(10)}"
    if file_number:
        return f"file:{file_number}"
    if ticker:
        return f"ticker:{ticker.upper()}"
    return f"name:{name_key(name)}"


def _rank(entity: Entity) -> int:
    return SOURCE_RANK.get(entity.name_source, 0)


def _unique(names: Iterable[str], exclude: str = "") -> list[str]:
    """Names without repeats by key, and without ``exclude``'s key."""
    seen = {name_key(exclude)} if exclude else set()
    out = []
    for n in names:
        k = name_key(n)
        if n and k and k not in seen:
            seen.add(k)
            out.append(n)
    return out


def _fold(current: Entity, new: Entity, keep_id: bool = False) -> Entity:
    """``current`` with ``new``'s evidence: identifiers added, the name of the stronger (then newer) source."""
    name, source, as_of = current.name, current.name_source, current.name_as_of
    stronger = SOURCE_RANK.get(new.name_source, 0) > _rank(current)
    same_rank = SOURCE_RANK.get(new.name_source, 0) == _rank(current)
    # At one rank the newer filing's name wins (a renamed filer), and a name in mixed case beats the same
    # name in capitals (a file stem, an all-caps cover)
    newer = same_rank and (
        new.name_as_of > current.name_as_of
        or (new.name_as_of == current.name_as_of and current.name.isupper() and not new.name.isupper())
    )
    if new.name and (stronger or newer) and current.name_source != "edited":
        name, source, as_of = new.name, new.name_source, new.name_as_of
    strong_names = [n for n, src in ((current.name, current.name_source), (new.name, new.name_source))
                    if n and SOURCE_RANK.get(src, 0) >= SOURCE_RANK["text"]]
    former = _unique([*current.former_names, *new.former_names, *strong_names], exclude=name)
    cik = current.cik or new.cik
    entity_id = current.entity_id
    if not keep_id:
        candidate = _key_of(cik, (current.file_numbers + new.file_numbers + [""])[0],
                            (current.tickers + new.tickers + [""])[0], name)
        # Re-key only upward: a name key becomes a ticker, file number or CIK key, never the reverse.
        order = ("name:", "ticker:", "file:", "cik:")
        if order.index(candidate.split(":")[0] + ":") > order.index(entity_id.split(":")[0] + ":"):
            entity_id = candidate
    return Entity(
        entity_id=entity_id,
        name=name,
        cik=cik,
        file_numbers=list(dict.fromkeys(current.file_numbers + new.file_numbers)),
        tickers=list(dict.fromkeys(new.tickers + current.tickers if newer else current.tickers + new.tickers)),
        former_names=former,
        aliases=_unique([*current.aliases, *new.aliases], exclude=name),
        name_source=source,
        name_as_of=as_of,
    )


def as_registry(companies: EntityRegistry | Iterable[str] | None) -> EntityRegistry:
    """The registry a caller passed, or one made of the plain names it passed."""
    if isinstance(companies, EntityRegistry):
        return companies
    return EntityRegistry.of(companies or ())
