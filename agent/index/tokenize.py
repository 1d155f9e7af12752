"""The finance-aware BM25 tokenizer, shared by search (queries) and the store (the BM25 token files):

* lower-case, Unicode-normalised (NFKC), currency signs and ``%`` dropped;
* numbers stay whole: ``1,577`` -> ``1577`` (thousands separators removed, so "1,577" and "1577" match),
  ``4.2`` stays ``4.2``, ``2018`` stays ``2018``;
* finance compounds stay one token: ``PP&E`` -> ``pp&e``, ``S&P`` -> ``s&p``; hyphenated compounds keep the
  whole and add their parts: ``10-K`` -> ``10-k``, ``10``; ``2017-2018`` -> ``2017-2018``, ``2017``, ``2018``;
  dotted abbreviations lose their dots: ``U.S.`` -> ``us``;
* possessive ``'s`` removed; a short English stopword list removed; single letters dropped;
* light plural stemming only (``revenues`` -> ``revenue``, ``liabilities`` -> ``liability``, ``taxes`` ->
  ``tax``), never on numbers or compounds, so ``loss``, ``gas`` and ``basis`` are left alone.
"""

from __future__ import annotations

import re
import unicodedata

# ---------------------------------------------------------------------------------------------------------
# tokenizer
# ---------------------------------------------------------------------------------------------------------
TOKENIZER_VERSION = "fin-1"  # stored in the index manifest: changing the rules below forces a BM25 rebuild


STOPWORDS = frozenset(
    {
        "a", "an", "and", "are", "as", "at", "be", "been", "being", "but", "by", "for", "from", "had", "has",
        "have", "he", "her", "his", "i", "if", "in", "into", "is", "it", "its", "of", "on", "or", "our", "over",
        "she", "so", "such", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this",
        "those", "to", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "will",
        "with", "would", "you", "your",
    }
)  # function words only: "not", "no", "net", "total" carry meaning in filings and stay


_TOKEN_RE = re.compile(
    r"""
    (?P<grouped>\d{1,3}(?:,\d{3})+(?:\.\d+)?)     # 1,577  1,577.25
  | (?P<dotted>(?:[a-z]\.){2,})                  # u.s.  e.g.  (dotted abbreviations)
  | (?P<word>[a-z0-9]+(?:[&\-][a-z0-9]+)*(?:\.\d+)?)  # pp&e  s&p  10-k  non-gaap  2017-2018  4.2  fy2018
    """,
    re.VERBOSE,
)


_POSSESSIVE_RE = re.compile(r"(?<=[a-z])['’]s\b")


def _stem(token: str) -> str:
    """Light plural stripping for plain alphabetic words of four letters or more."""
    if len(token) < 4 or not token.isalpha():
        return token
    if token.endswith("ies") and len(token) > 4:
        return token[:-3] + "y"
    if token.endswith(("sses", "xes", "ches", "shes")):
        return token[:-2]
    if token.endswith("s") and not token.endswith(("ss", "us", "is")):
        return token[:-1]
    return token


def _keep(token: str) -> bool:
    """Drop stopwords and single letters (single digits carry meaning: 'Item 7', '3 months')."""
    return (len(token) > 1 or token.isdigit()) and token not in STOPWORDS


def tokenize(text: str) -> list[str]:
    """Finance-aware BM25 tokens of ``text`` (see the module docstring for the rules)."""
    text = _POSSESSIVE_RE.sub("", unicodedata.normalize("NFKC", text).lower())
    out: list[str] = []
    for match in _TOKEN_RE.finditer(text):
        if match.group("grouped"):
            out.append(match.group("grouped").replace(",", ""))
        elif match.group("dotted"):
            out.append(match.group("dotted").replace(".", ""))
        else:
            token = match.group("word")
            if "-" in token:
                out.append(token)
                out.extend(_stem(part) for part in token.split("-") if _keep(part))
            elif "&" in token:
                out.append(token)
            else:
                token = _stem(token)
                if _keep(token):
                    out.append(token)
    return out
