"""The words of a turn that the plan reads. An analyst types a ticker for the company, clips the words of a
metric ('op income', 'rev') and puts an opener before the question ('Quick question for you: ...'). The plan reads
the question with each ticker written as the registry's name for its company, each clipped word written out as the
lexicon's (:func:`agent.finance.lexicon.written_out`), without an opener that names nothing the question could be
about, and with a clause fronted before the question put after it: every later reader sees one company under one
name, the metric in the lexicon's words, its parts where parts are read, and no stray words to take for a part.
"""

from __future__ import annotations

from agent.entities import EntityRegistry
from agent.entities.names import abbreviates, is_common_word, is_frequent_word, name_tokens
from agent.finance.lexicon import find_metrics, written_out
from agent.finance.periods import find_periods, without_periods
from agent.finance.wording import plain_words
from agent.ingest.cards import find_scope_entities
from agent.query.cues import NON_NUMERIC_RELATIONS, is_operation_word
from agent.query.intent import relation_of
from agent.query.kind import ASKER_WORDS, QUESTION_WORDS, addresses_reader, in_question_form
from agent.query.scope import NAME_JOINERS, PLAIN_MODIFIERS, STOP_WORDS
from agent.schemas import Relation

OPENER_MARKS = (":", " -- ", " - ", " — ", " – ")  # what ends an opener before the question
MAX_OPENER_CHARS = 60  # an opener is a few words
MIN_OPENER_WORDS = 2  # one word before a colon may be the part asked about ('Europe: what was revenue?')


_SOURCE_WORDS = 3  # 'from the release' ending a request


FRONTED_PREPOSITIONS = ("in", "for", "at", "within", "across", "during")  # 'In Europe, what was revenue?'

# Words of a span of time, a basis or an operation an analyst abbreviates ('qtr', 'yr', '6 mos', 'wks', 'adj', 'avg'),
# each read in the plural too; see _abbreviations_written_out.
ABBREVIATED_WORDS = ("quarter", "year", "month", "week", "adjusted", "average")
MIN_ABBREVIATED_AWAY = 2  # letters an abbreviation leaves out of its word: 'mont' is a typo, 'mth' an abbreviation
MAX_ABBREVIATION_LETTERS = 4  # 'qtr', 'mths', 'adj'; a longer word is a word of its own
MIN_ACRONYM_LETTERS = 3  # 'US' and 'EU' are words of their own as often as acronyms of a part, unless in capitals
MIN_CAPITALS_LETTERS = 2  # 'US', 'EU' in capitals amid lower-case words
LAST_YEAR_OF_CENTURY = 69  # a year written with two digits after an apostrophe: "'23" is 2023, "'98" 1998


def plain_question(question: str, registry: EntityRegistry) -> str:
    """``question`` as the plan reads it: tickers written as company names, an opener cut, a fronted clause put
    after what it narrows (see the module)."""
    question = _contractions_written_out(question)
    spelled = _acronyms_written_out(_abbreviations_written_out(registry.with_names_for_tickers(question)), registry)
    # a question typed all in lower case writes its names so too; one that capitalises any word after its first
    # writes them capitalised, and its words in lower case are no names ('statement of financial position')
    typed_lower = not any(w[:1].isupper() for w in question.split()[1:])
    named = _company_before_part(_names_as_printed(spelled, registry) if typed_lower else spelled, registry)
    plain = _clause_after(_without_opener(written_out(named, is_common_word, STOP_WORDS.__contains__), registry))
    return _without_request(_without_purpose(plain), registry)


def _without_purpose(text: str) -> str:
    """``text`` without a closing phrase saying what the one asking wants the figure for ('... for my comps sheet',
    '... for our model'): what is theirs is never what the figure is of."""
    words = text.split()
    at = next((k for k in range(1, len(words) - 1) if words[k].lower() == "for"
               and words[k + 1].lower().strip(",.;:!?") in ASKER_WORDS), -1)
    if at < 0:
        return text
    end = text.rstrip()[-1:] if text.rstrip()[-1:] in "?.!" else ""
    return " ".join(words[:at]).rstrip(" ,;:") + end


def _contractions_written_out(text: str) -> str:
    """``text`` with a question word's or a pronoun's contraction written out ("what's the increase?" as "what is the
    increase?"): its 's is 'is', never a possessive."""
    out = []
    for word in text.split(" "):
        head = word[:-2] if word[-2:] in {"'s", "’s"} else ""
        out.append(f"{head} is" if head.lower() in {"what", "how", "where", "who", "which", "that", "it", "there"}
                   else word)
    return " ".join(out)


def _abbreviates(short: str, word: str) -> bool:
    """Whether ``short`` is written as an abbreviation of ``word``: its first letter, then letters of it in order,
    at least :data:`MIN_ABBREVIATED_AWAY` left out ('qtr' of 'quarter', 'yr' of 'year', 'mos' of 'months')."""
    rest = iter(word[1:])
    return short[:1] == word[:1] and len(word) - len(short) >= MIN_ABBREVIATED_AWAY and all(c in rest for c in short[1:])


def _abbreviations_written_out(text: str) -> str:
    """``text`` with each abbreviated word of a span of time, a basis or an operation written out ('qtr ended
    3/29/25' -> 'quarter ended 3/29/25', '6 mos' -> '6 months', 'adj. EPS' -> 'adjusted EPS', 'avg' -> 'average')
    and each year written short in full ("'23" -> '2023'), so the period, scope and operation readers read them: a
    word of letters (and maybe a stop) that is no ordinary word, no part of a period already read, and abbreviates
    one of :data:`ABBREVIATED_WORDS` (its plural when it ends in 's')."""
    read = [(p.start, p.end) for p in find_periods(text)]
    out, at = [], 0
    for word in text.split(" "):
        start, at = at, at + len(word) + 1
        core = word.rstrip("?!,;:")
        if len(core) == 3 and core[0] in "'’" and core[1:].isdigit():  # "FCF '23": a year written short
            century = "20" if int(core[1:]) <= LAST_YEAR_OF_CENTURY else "19"
            out.append(f"{century}{core[1:]}{word[len(core):]}")
            continue
        low = core.removesuffix(".").lower()
        found = [w for w in (f"{w}s" if low.endswith("s") else w for w in ABBREVIATED_WORDS) if _abbreviates(low, w)]
        if (len(found) != 1 or not low.isascii() or not low.isalpha() or len(low) > MAX_ABBREVIATION_LETTERS
                or is_common_word(low) or any(a <= start < b for a, b in read)):
            out.append(word)
            continue
        out.append(found[0] + word[len(core):])
    return " ".join(out)


def _acronyms_written_out(text: str, registry: EntityRegistry) -> str:
    """``text`` with each acronym an indexed filing defines written as it defines it ('ARR' -> 'Annual recurring
    revenue', from 'Annual recurring revenue (ARR)'), unless it is a metric's or a company's; and each acronym of a
    part the indexed filings print written as they print it ('APAC' -> 'Asia
    Pacific', 'LATAM' -> 'Latin America', 'U.S.' -> 'United States'): a word in capitals, of three letters or more or
    written with stops ('U.S.' is no 'us'), that is no ordinary word, no company, no metric and no part printed as it is written, whose
    letters begin the words of exactly one part's name of two words or more, each word in order giving at least one
    (:func:`~agent.entities.names.abbreviates`)."""
    # the parts of the one company the question names, when it names one: an acronym another filer prints as a row
    # ('U.S.') is still the name this company prints in full ('United States')
    named = {m.entity.entity_id: m.entity for m in registry.mentions(text)}
    company = next(iter(named.values())) if len(named) == 1 else None
    names = frozenset(company.parts) if company is not None else registry.part_names()
    parts = {name for name in names if len(name_tokens(name)) >= 2}
    printed = {tuple(name_tokens(name)) for name in names}
    # the terms of the company asked about, as its filings define them
    defined = {t.short: t.long for t in company.terms} if company is not None else registry.defined_terms()
    # a common word in capitals ('US', 'IT') is an acronym where the rest is not in capitals too
    shouted = not any(ch.islower() for ch in text)
    out = []
    for word in text.split(" "):
        core = word.rstrip("?!,;:") if word.count(".") > 1 else word.rstrip("?!,;:.")  # 'U.S.' keeps its last stop
        letters = core.replace(".", "")
        if core in defined and not find_metrics(core) and not registry.mentions(core):
            out.append(defined[core] + word[len(core):])  # the filing's own definition ('ARR': 'Annual recurring revenue')
            continue
        found = {p for p in parts if abbreviates(letters.lower(), name_tokens(p))} if (
            (len(letters) >= (MIN_ACRONYM_LETTERS if shouted else MIN_CAPITALS_LETTERS) or "." in core)
            and letters.isalpha() and letters.isupper()
            and ("." in core or not is_common_word(letters) or not shouted) and not find_metrics(core)
            and not registry.mentions(core)
            and tuple(name_tokens(core)) not in printed) else set()
        out.append(found.pop() + word[len(core):] if len(found) == 1 else word)
    return " ".join(out)


def _names_as_printed(text: str, registry: EntityRegistry) -> str:
    """``text`` (a question typed in lower case) with each company name and each part the indexed filings print
    written in their capitals ('fourth coffee rigid packaging op income' -> 'Fourth Coffee Rigid Packaging op
    income'), so the readers of names take them for the names they are: a part printed as a name (each word
    capitalised) of two words or more, or of one word that is no ordinary word ('halvora'), and a company's name as
    its registry entry writes it."""
    words = text.split(" ")
    names = set(registry.part_names())
    for mention in registry.mentions(text):
        typed = mention.surface.split()
        printed = [w for w in mention.entity.name.split() if w.lower() in {t.lower() for t in typed}]
        if mention.surface.islower() and len(printed) == len(typed):
            names.add(" ".join(printed))
    for part in sorted(names, key=len, reverse=True):
        printed = part.split()
        if (len(printed) < 2 and is_common_word(part)) or not all(w[:1].isupper() for w in printed):
            continue  # an ordinary word, or a description the filing prints in lower case ('Manufacturing sites')
        for i in range(len(words) - len(printed) + 1):
            run = words[i : i + len(printed)]
            core = [*run[:-1], run[-1].rstrip("?!,;:.")]
            if [w.lower() for w in core] == [w.lower() for w in printed] and all(w.islower() for w in core):
                words[i : i + len(printed)] = [*printed[:-1], printed[-1] + run[-1][len(core[-1]):]]
    return " ".join(words)


def _only_asks(head: str, registry: EntityRegistry) -> bool:
    """Words that speak to or for the one asking and name nothing a figure is."""
    return addresses_reader(head) and _names_no_figure(head, registry)


def _commands(head: str, text: str, registry: EntityRegistry) -> bool:
    """'Pull Contoso's total deposits ...', 'Show Litware's backlog ...': one ordinary word before a company written
    with its possessive is a verb telling the reader what to do (a word narrowing the figure would stand after the
    possessive), when it names nothing a figure is, is no participle or modifier ('Adjusted', 'Total') and the text
    asks a lookup, not a comparison or a computation."""
    word = head.strip()
    low = word.lower()
    return (word.isalpha() and is_common_word(word) and not low.endswith("ed") and low not in PLAIN_MODIFIERS
            and _names_no_figure(word, registry) and relation_of(text) == Relation.LOOKUP)


def _names_no_figure(words: str, registry: EntityRegistry) -> bool:
    """No metric, period, number, company or arithmetic among ``words``."""
    return (not find_metrics(words) and not find_periods(words) and not any(c.isdigit() for c in words)
            and not registry.mentions(words) and not any(is_operation_word(w) for w in plain_words(words)))


def _without_request(text: str, registry: EntityRegistry) -> str:
    """'Can you pull Contoso's total deposits at June 30?', 'For my model I need Contoso's ...': a request (no
    question in form) whose words before the company it names speak to or for the one asking and name nothing a
    figure is (no metric, period, number, arithmetic) is the lookup it asks for: "What was Contoso's total
    deposits at June 30?". A request to explain or to compute keeps its words."""
    words = text.split()
    wh = next((k for k, w in enumerate(words) if w.lower().strip(",;:") in QUESTION_WORDS), -1)
    if wh > 0 and _only_asks(" ".join(words[:wh]), registry):
        return " ".join([words[wh][:1].upper() + words[wh][1:], *words[wh + 1:]])  # 'Could you tell me what ...'
    mentions = registry.mentions(text)
    if not mentions or in_question_form(text) or relation_of(text) in NON_NUMERIC_RELATIONS:
        return text
    first = min(mentions, key=lambda m: m.start)
    owned = first.surface.endswith(_POSSESSIVES) or text[first.end:].lstrip(" .").startswith(_POSSESSIVES)
    if not (_only_asks(text[:first.start], registry) or owned and _commands(text[:first.start], text, registry)):
        return text
    start = first.start
    asked = text[start:].strip().rstrip(".!?").split()
    if len(asked) > _SOURCE_WORDS and [w.lower() for w in asked[-_SOURCE_WORDS:-1]] == ["from", "the"] and (
            asked[-1].isalpha() and asked[-1].islower()):
        asked = asked[:-_SOURCE_WORDS]  # 'pull ... from the release': where to read it, not whose figure it is
    return f"What was {' '.join(asked)}?"


def _capitalised_runs(text: str) -> list[tuple[int, int]]:
    """(start, end) of each run of two or more capitalised words in ``text``, words of one name joined by 'and' or
    '&' inside it ('CTSO Cloud Platforms', 'Defense, Space & Security'); a question mark, a colon or a semicolon ends
    a run ('MGM Resorts? Answer in millions')."""
    runs: list[tuple[int, int]] = []
    start, end, words, pos = -1, -1, 0, 0
    for word in [*text.split(), ""]:
        at = text.find(word, pos) if word else len(text)
        pos = at + len(word)
        bare = word.rstrip(_RUN_ENDS)
        if word[:1].isupper() or (word[:1].isdigit() and start >= 0):
            start, end, words = (at if start < 0 else start), at + len(bare), words + 1
            if bare == word:
                continue
        elif word in NAME_JOINERS and start >= 0:
            continue
        if words > 1:
            runs.append((start, end))
        start, words = -1, 0
    return runs


_RUN_ENDS = "?!;:\"'”)"  # punctuation that ends a run of a name's words
_POSSESSIVES = ("'s", "’s", "'", "’")


def _company_before_part(text: str, registry: EntityRegistry) -> str:
    """``text`` with a company's name or ticker that runs on into words no company goes by written as the
    company's ('CTSO Cloud Platforms op income' -> "Contoso Systems Corporation's Cloud Platforms op income"): an
    analyst names the company, then its part; the part's figure must then name the part (the gate checks it)."""
    printed = [tuple(name_tokens(name)) for name in registry.part_names()]
    for start, end in reversed(_capitalised_runs(text)):
        run = text[start:end]
        tokens = tuple(name_tokens(run))
        if any(len(p) >= 2 and tokens[: len(p)] == p for p in printed):
            continue  # a part named after its company, as printed ('Lamna Care Delivery' of Lamna Healthcare)
        named = next((m for m in registry.mentions(run) if m.start == 0), None)
        if run.endswith(_POSSESSIVES) or (named is not None and (
                named.surface.endswith(_POSSESSIVES) or run[named.end:].lstrip(" .").startswith(_POSSESSIVES))):
            # "Northwind's Industrial Sensors": the company's part, as written; "Contoso Media's revenues": a name
            # owning the figure, the company's or a part named after it (the part's row must print it whole)
            continue
        # the company written out, then maybe its part ('Adatum Corp. Cloud Services'), or its ticker run on
        lead = (named.entity, run[named.end:].lstrip(" .,").strip()) if named is not None else registry.leading(run)
        if (lead is None or not any(ch.isalpha() for ch in without_periods(lead[1]))
                or lead[1].split()[0] in NAME_JOINERS or registry.knows(lead[1])):
            continue  # the company alone, two companies, or the company then a period
        # the company then its part, or then a metric ('TSPN R&D expense': the name's legal form ends the name)
        entity, rest = lead
        text = f"{text[:start]}{entity.name}'s {rest}{text[end:]}"
    return text


def _clause_after(text: str) -> str:
    """'In Latin America in 2024, what was revenue?' -> 'what was revenue in Latin America in 2024?': a clause
    fronted before the question narrows what it asks, and every reader of a part looks for it after the metric.
    A connective of one ordinary word ('In total, ...', 'In addition, ...') narrows nothing and stays. The clause
    ends at the first comma outside a period ('For the year ended May 27, 2012, what was ...')."""
    dates = [(p.start, p.end) for p in find_periods(text)]
    cut = next((i for i, c in enumerate(text) if c == "," and not any(a <= i < b for a, b in dates)), len(text))
    head, comma, rest = text[:cut], text[cut : cut + 1], text[cut + 1 :]
    words = head.split()
    if (not comma or len(words) < 2 or words[0].lower() not in FRONTED_PREPOSITIONS or "?" in head
            or not in_question_form(rest) or not rest.rstrip().endswith("?")):
        return text
    if len(words) == 2 and words[1].islower() and is_common_word(words[1]):
        return text
    asked = rest.strip().rstrip("?").rstrip()
    return f"{asked[:1].upper()}{asked[1:]} {words[0].lower()} {' '.join(words[1:])}?"


def _without_opener(text: str, registry: EntityRegistry) -> str:
    """``text`` without words before a colon or dash that only address the reader: at least two words, no
    capitalised word after the first (no name), no metric, period, company or number; and either a function word
    among them before a question ('Quick question for you: what was ...'), or only ordinary words that name no
    part a filing prints before a lookup naming a company ('Quick one - LWA backlog at YE24?'). Anything else
    before a colon may narrow what is asked ('consumer banking - CNFC NII 2Q25'), so it stays."""
    ends = [(i, mark) for mark in OPENER_MARKS if 0 < (i := text.find(mark)) <= MAX_OPENER_CHARS]
    if not ends:
        return text
    end, mark = min(ends)
    opener, rest = text[:end].strip(), text[end + len(mark):].strip()
    if not rest or "?" in opener:
        return text
    words = [w.strip(",.!") for w in opener.split()]
    if len(words) < MIN_OPENER_WORDS or any(w[:1].isupper() for w in words[1:]) or any(c.isdigit() for c in opener):
        return text
    if find_metrics(opener) or find_periods(opener) or registry.mentions(opener):
        return text
    addressed = any(w.lower() in STOP_WORDS for w in words) and in_question_form(rest)
    return rest if addressed or (_aside(words, registry) and registry.mentions(rest)) else text


def _aside(words: list[str], registry: EntityRegistry) -> bool:
    """Words of small talk ('Quick one', 'Heads up'): ordinary words, one of them among the most frequent, none a
    word of a part any filing prints ('cloud' of Cloud Services), no region and no named segment ('Mining
    segment')."""
    opener = " ".join(words)
    printed = registry.part_words()
    return (all(is_common_word(w) for w in words) and any(is_frequent_word(w) for w in words)
            and not any(w.lower() in printed for w in words) and not find_scope_entities(opener))
