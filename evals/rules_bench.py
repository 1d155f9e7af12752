"""How many phrase rules the readers of a question hold: the regular expressions and word lists of `agent/query`,
`agent/answer`, the word classes (`agent/finance/wording.py`) and the period reader (`agent/finance/periods.py`),
counted per module -- and how many functions after the plan
still read the question's text (issue 57: the plan is the one reading; `agent/answer` and `agent/retrieval`
should read its fields, never the words again).

Issue 28 asks for fewer of them as learned parts take over. Each definition counts once: a pattern's interpolated
fragment (``rf"\\b(?:{CHANGE})\\b"``) counts as one literal where it is used and by its own alternatives where it is
defined, so a word class read by twelve patterns is one rule, not twelve. Counted from the source (``ast``), never
by importing it.
"""

from __future__ import annotations

import ast
from pathlib import Path

from pydantic import BaseModel, Field

try:  # the parser of the standard library's regular expressions (re._parser since 3.11)
    import re._parser as sre_parse  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - Python < 3.11
    import sre_parse  # type: ignore[no-redef]

AGENT = Path(__file__).resolve().parent.parent / "agent"
RULE_PACKAGES = ("query", "answer")  # the readers of a question
PLAN_READERS = ("answer", "retrieval")  # the stages after the plan, which should read it and not the question
TEXT_NAMES = frozenset(("question", "question_text", "asked_text"))  # a parameter or attribute holding the words
WORD_CLASSES = Path("finance") / "wording.py"
PERIODS = Path("finance") / "periods.py"  # reads the periods a question names, as it reads a filing's
COLUMN_PERIODS = Path("finance") / "column_periods.py"  # the period reader's part for table labels, split from it
SET_MIN_WORDS = 2  # a literal of fewer strings is a constant, not a word list
FRAGMENT = "Z"  # what an interpolated fragment counts as inside the pattern that uses it: one literal


class RuleCount(BaseModel):
    """The phrase rules of one module."""

    module: str
    compiled: int = Field(description="re.compile calls")
    calls: int = Field(description="every re.* call (compile, search, sub, ...) with a pattern")
    alternatives: int = Field(description="branches of the patterns' alternations, fragments counted where defined")
    lines: int = Field(description="source lines of the patterns and of the fragments they interpolate")
    unread: int = Field(default=0, description="patterns built at run time, not counted")
    text_readers: int = Field(default=0, description="functions after the plan that take or read the question's "
                              "text (a 'question' parameter, or an object's '.question'); 0 in agent/query")
    word_sets: int = Field(default=0, description="module-level sets, tuples or lists of words (a phrase rule written "
                           "as a word list: 'frozenset((\"due\", \"payable\"))')")
    set_words: int = Field(default=0, description="the words those sets hold")


def _text(node: ast.expr) -> str | None:
    """A pattern's source with each interpolated name as one literal; None when it is built otherwise."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else FRAGMENT for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _text(node.left), _text(node.right)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.Name):
        return FRAGMENT
    return None


def _branches(parsed: object) -> int:
    n = 0
    for op, av in parsed:  # type: ignore[attr-defined]
        name = str(op)
        if name == "BRANCH":
            n += len(av[1]) + sum(_branches(b) for b in av[1])
        elif name == "SUBPATTERN":
            n += _branches(av[-1])
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            n += _branches(av[2])
        elif name in ("ASSERT", "ASSERT_NOT"):
            n += _branches(av[1])
    return n


def _alternatives(pattern: str) -> int | None:
    try:
        return _branches(sre_parse.parse(pattern.replace("{{", "{").replace("}}", "}")))
    except Exception:  # noqa: BLE001 - a pattern the parser rejects is counted as unread, not as an error
        return None


def count_module(path: Path, name: str = "") -> RuleCount:
    """The phrase rules of one Python module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    used: set[str] = set()
    lines: set[int] = set()
    compiled = calls = alternatives = unread = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            used |= {v.value.id for v in node.values if isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Name)}
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "re" and node.args):
            continue
        calls += 1
        compiled += node.func.attr == "compile"
        pattern = node.args[0]
        if isinstance(pattern, ast.Name):
            used.add(pattern.id)
            continue
        lines.update(range(pattern.lineno, (pattern.end_lineno or pattern.lineno) + 1))
        text = _text(pattern)
        counted = _alternatives(text) if text is not None else None
        if counted is None:
            unread += 1
        else:
            alternatives += counted
    for node in tree.body:  # the fragments the patterns interpolate, counted where they are defined
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id in used and isinstance(node.value, (ast.Constant, ast.JoinedStr, ast.BinOp))):
            text = _text(node.value)
            counted = _alternatives(text) if text is not None else None
            if counted is not None:
                alternatives += counted
                lines.update(range(node.value.lineno, (node.value.end_lineno or node.value.lineno) + 1))
    sets = word_sets(tree)
    return RuleCount(module=name or path.name, compiled=compiled, calls=calls, alternatives=alternatives,
                     lines=len(lines), unread=unread, word_sets=len(sets), set_words=sum(sets))


def _words_of(node: ast.expr) -> list[str] | None:
    """The strings of a set, tuple or list literal (also inside ``frozenset(...)``/``set(...)``), or of one string
    of words split or handed to a helper; None for anything else."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in {"frozenset", "set"} \
            and len(node.args) == 1:
        node = node.args[0]
    if isinstance(node, ast.Call) and len(node.args) <= 1 and not (
            isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"):
        # 'due payable'.split(), or a helper over one string of words (_content_words("carrying book fair"))
        inner = node.func.value if isinstance(node.func, ast.Attribute) and not node.args else (
            node.args[0] if node.args else None)
        if isinstance(inner, ast.Constant) and isinstance(inner.value, str) and " " in inner.value.strip():
            return inner.value.split()
        return None
    if not isinstance(node, ast.Set | ast.Tuple | ast.List):
        return None
    if not all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        return None
    return [e.value for e in node.elts]  # type: ignore[attr-defined]


def word_sets(tree: ast.Module) -> list[int]:
    """The size of each module-level literal of words ('frozenset(("due", "payable"))'): phrase rules written as
    word lists; a literal of fewer than :data:`SET_MIN_WORDS` strings, or of strings that are no words, is none."""
    sizes = []
    for node in tree.body:
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        words = _words_of(value) if value is not None else None
        if words and len(words) >= SET_MIN_WORDS and all(any(ch.isalpha() for ch in w) for w in words):
            sizes.append(len(words))
    return sizes


def text_readers(tree: ast.Module) -> list[str]:
    """The functions of a module that take the question's words as a parameter or read them off an object."""
    names = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        arguments = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
        takes = any(a.arg in TEXT_NAMES for a in arguments)
        reads = any(isinstance(n, ast.Attribute) and n.attr in TEXT_NAMES and isinstance(n.ctx, ast.Load)
                    for n in ast.walk(node))
        if takes or reads:
            names.append(node.name)
    return names


def run_rules_bench(agent: Path = AGENT) -> list[RuleCount]:
    """Each module of the question's readers, most alternatives first, and their total last."""
    packages = dict.fromkeys((*RULE_PACKAGES, *PLAN_READERS))
    paths = [p for package in packages for p in sorted((agent / package).glob("*.py"))]
    shared = [agent / WORD_CLASSES, agent / PERIODS, agent / COLUMN_PERIODS]  # the finance modules that read a question's words too
    paths += [p for p in shared if p.exists()]
    rows = []
    for path in paths:
        row = count_module(path, str(path.relative_to(agent.parent)))
        if path.parent.name not in RULE_PACKAGES and path not in shared:  # read for the question only
            row = RuleCount(module=row.module, compiled=0, calls=0, alternatives=0, lines=0)
        if path.parent.name in PLAN_READERS:
            row.text_readers = len(text_readers(ast.parse(path.read_text(encoding="utf-8"))))
        rows.append(row)
    rows.sort(key=lambda r: (-r.alternatives, -r.text_readers, r.module))
    total = RuleCount(module="all", compiled=sum(r.compiled for r in rows), calls=sum(r.calls for r in rows),
                      alternatives=sum(r.alternatives for r in rows), lines=sum(r.lines for r in rows),
                      unread=sum(r.unread for r in rows), text_readers=sum(r.text_readers for r in rows),
                      word_sets=sum(r.word_sets for r in rows), set_words=sum(r.set_words for r in rows))
    return [*[r for r in rows if r.calls or r.alternatives or r.text_readers or r.word_sets], total]


def render(rows: list[RuleCount]) -> str:
    """The counts as a Markdown table."""
    out = ["| module | compiled | re. calls | alternatives | pattern lines | word sets | their words "
           "| functions reading the question's text |",
           "|---|---|---|---|---|---|---|---|"]
    out += [f"| {r.module} | {r.compiled} | {r.calls} | {r.alternatives} | {r.lines} | {r.word_sets} | {r.set_words} "
            f"| {r.text_readers} |" for r in rows]
    return "\n".join(out)
