"""Labelled questions for the learned readers, read off the datasets' own gold answers.

The operation model's labels come from the gold arithmetic; the answer-kind model's from what the gold answer is
(an amount, or words: a description, names, years).

ConvFinQA writes each turn's answer as a program (``subtract(60.94, 25.14), divide(#0, 25.14)``) that repeats the
earlier turns' steps; a turn's operation is what its *new* steps do. TAT-QA writes a derivation
(``(44.1-56.7)/56.7``). Both are read structurally -- which operator, over what -- never from the question's
words, so the labels do not encode the phrasings the model is meant to learn.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from agent.query.operations import ANSWER_FIGURE, ANSWER_WORDS, LabelledQuestion, OperationContext
from evals.datasets import (
    ConvTurn,
    FinanceBenchQuestion,
    TatQAQuestion,
    load_convfinqa,
    load_financebench,
    load_tatqa,
)

_STEP_RE = re.compile(r"(\w+)\(([^()]*)\)")

# Dividing by one of these constants changes the scale ('that in millions'), not the figure's meaning.
_SCALE_CONSTANTS = frozenset(("const_100", "const_1000", "const_1000000", "const_10000", "100", "1000", "1000000"))

Step = tuple[str, list[str]]


def _steps(program: str) -> list[Step]:
    return [(op, [a.strip() for a in args.split(",")]) for op, args in _STEP_RE.findall(program or "")]


def _addends(steps: list[Step], index: int) -> int:
    """How many figures the add chain ending at step ``index`` sums."""
    op, args = steps[index]
    if op != "add":
        return 0
    return sum(_addends(steps, int(a[1:])) if a.startswith("#") else 1 for a in args)


def _ref(steps: list[Step], arg: str) -> Step | None:
    return steps[int(arg[1:])] if arg.startswith("#") and int(arg[1:]) < len(steps) else None


def program_operation(program: str, earlier_program: str) -> str:
    """The operation of a ConvFinQA turn: what its program adds to the one before it."""
    steps, before = _steps(program), _steps(earlier_program)
    new = steps[len(before):] if before and steps[: len(before)] == before else steps
    if not new:
        return "lookup"
    ops = [op for op, _ in new]
    last_op, last_args = new[-1]
    if all(op == "add" for op in ops):
        return "sum"
    if ops == ["subtract"]:
        return "change"
    if last_op in {"exp", "power"}:
        return "cagr"
    if last_op != "divide" or len(last_args) != 2:
        return "other"
    numerator, divisor = last_args
    source = _ref(steps, numerator)
    if source is not None and source[0] == "subtract" and divisor in source[1]:
        return "percent_change"  # a change over one of its own figures
    if source is not None and source[0] == "add" and divisor.removeprefix("const_").isdigit():
        n = int(divisor.removeprefix("const_"))
        if n == _addends(steps, int(numerator[1:])):
            return "average"
    if divisor in _SCALE_CONSTANTS or numerator.startswith("const_"):
        return "other"
    return "ratio"


def _clean_derivation(text: str) -> str:
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text)
    return text.replace("$", "").replace("%", "").replace("×", "*").replace("[", "(").replace("]", ")").strip()


def _operands(node: ast.expr, kind: type[ast.operator]) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, kind):
        return _operands(node.left, kind) + _operands(node.right, kind)
    return [node]


def _strip_hundred(node: ast.expr) -> ast.expr:
    """'(a - b) / b * 100' is the same operation as '(a - b) / b'."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        for side, other in ((node.right, node.left), (node.left, node.right)):
            if isinstance(side, ast.Constant) and side.value == 100:
                return other
    return node


def _constant(node: ast.expr) -> float | None:
    """The value of an expression of literal numbers ('2019-2017+1' -> 3); None when it holds a figure."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub):
        left, right = _constant(node.left), _constant(node.right)
        if left is not None and right is not None and float(left).is_integer() and float(right).is_integer():
            value = left + right if isinstance(node.op, ast.Add) else left - right
            return value if 0 < value < 100 else None  # a count of periods, not a figure
    return None


def derivation_operation(question: TatQAQuestion) -> str:
    """The operation of a TAT-QA question, from its answer type and derivation."""
    if question.answer_type in {"span", "multi-span"}:
        return "lookup"
    if question.answer_type != "arithmetic":
        return "other"
    try:
        tree = ast.parse(_clean_derivation(question.derivation), mode="eval").body
    except (SyntaxError, ValueError):
        return "other"
    node = _strip_hundred(tree.operand if isinstance(tree, ast.UnaryOp) else tree)
    if not isinstance(node, ast.BinOp):
        return "other"
    if isinstance(node.op, ast.Sub):
        return "change"
    if isinstance(node.op, ast.Add):
        return "sum"
    if isinstance(node.op, ast.Pow):
        return "cagr"
    if not isinstance(node.op, ast.Div):
        return "other"
    top = node.left
    if isinstance(top, ast.BinOp) and isinstance(top.op, ast.Sub):
        if ast.dump(node.right) in {ast.dump(o) for o in _operands(top, ast.Sub)}:
            return "percent_change"
        return "other"
    addends = _operands(top, ast.Add)
    divisor = _constant(node.right)
    if len(addends) > 1 and divisor == len(addends):
        return "average"  # '(8,217+7,527+6,447)/(2019-2017+1)' too
    if divisor in {100, 1000, 1000000}:
        return "other"
    return "ratio"


def _last_computed(operation: str) -> str:
    return "" if operation in {"lookup", "other"} else operation


def convfinqa_questions(data_dir: Path) -> Iterator[LabelledQuestion]:
    """Every ConvFinQA turn, labelled, with the conversation context the turn was asked in."""
    for conversation in load_convfinqa(data_dir).conversations:
        earlier: ConvTurn | None = None
        last = ""
        answers = 0
        for turn in sorted(conversation.turns, key=lambda t: t.turn):
            operation = program_operation(turn.program, earlier.program if earlier else "")
            yield LabelledQuestion(
                question=turn.question,
                context=OperationContext(follow_up=earlier is not None, last_operation=last, answers=answers),
                operation=operation,
                group=f"convfinqa:{conversation.company or conversation.doc_name.split('/')[0]}",
                source=f"{conversation.id}#{turn.turn}",
            )
            # as in the conversation's slots: the last computation stays 'that' through lookups
            earlier, last, answers = turn, _last_computed(operation) or last, answers + 1


def tatqa_questions(data_dir: Path) -> Iterator[LabelledQuestion]:
    """Every TAT-QA question, labelled; each asked on its own (no conversation)."""
    for question in load_tatqa(data_dir).questions:
        if question.answer_type in {"span", "multi-span"} and "%" in str(question.answer):
            # a percentage the filing prints ('the percentage change ... was 2.5%') was asked as arithmetic but
            # read, not computed: its words name an operation its label would deny
            continue
        yield LabelledQuestion(
            question=question.question,
            operation=derivation_operation(question),
            group=f"tatqa:{question.doc_name}",
            source=question.id,
        )


def labelled_questions(data_dir: Path) -> list[LabelledQuestion]:
    """All labelled questions of the findata layout (ConvFinQA turns, then TAT-QA questions)."""
    return [*convfinqa_questions(data_dir), *tatqa_questions(data_dir)]


# A gold answer that is an amount and nothing else ('$2.5 million', '27,728', '23%', '(494)'); a bare year is no
# amount, and a sentence with a number in it ('within 30 days of recognition') is words.
_AMOUNT_RE = re.compile(r"\W*[$€£]?\s*\(?-?\s*(?!(?:19|20)\d\d\W*$)\d[\d,]*(?:\.\d+)?\)?\s*"
                        r"(?:%|percent|per\s+cent|million|billion|thousand|m|bn|k)?\W*", re.IGNORECASE)


def answer_kind(question: TatQAQuestion) -> str:
    """Whether a TAT-QA question asks for an amount ('figure') or for words ('words': a description, names), from
    its gold answer: one computed, counted or picked from figures (a derivation says how) is a figure's."""
    if question.answer_type in {"arithmetic", "count"} or question.derivation.strip():
        return ANSWER_FIGURE  # computed, counted, or picked by comparing figures ('which years exceed $5 million')
    answers = question.answer if isinstance(question.answer, list) else [question.answer]
    return ANSWER_FIGURE if any(_AMOUNT_RE.fullmatch(str(a).strip()) for a in answers) else ANSWER_WORDS


_YES_NO_ANSWER_RE = re.compile(r"^\W*(?:yes|no)\b", re.IGNORECASE)


def financebench_kind(question: FinanceBenchQuestion) -> str:
    """A FinanceBench question's answer kind: a figure when its gold answer is an amount or it was generated from a
    metric; words when the answer states no number at all; '' (left out) for a yes-or-no question (figures decide
    those; the answer step reads them apart) and for an analyst's sentence with figures in it ('Total amount PepsiCo
    may borrow ... = $8,400,000,000', 'margin decreased by 1.7% due to ...'), which may ask either."""
    if question.question_type == "metrics-generated" or _AMOUNT_RE.fullmatch(question.answer.strip()):
        return ANSWER_FIGURE
    if _YES_NO_ANSWER_RE.match(question.answer) or re.search(r"\d", question.answer):
        return ""
    return ANSWER_WORDS


def answer_kind_questions(data_dir: Path) -> list[LabelledQuestion]:
    """Every ConvFinQA turn (each asks for a figure), every TAT-QA question and every FinanceBench question that is
    not a yes-or-no one, labelled with its answer kind. Read without their conversation: only ConvFinQA has
    follow-ups, so a model that saw the context would learn that a first question asks for words, not what the words
    ask."""
    turns = [LabelledQuestion(question=q.question, operation=ANSWER_FIGURE, group=q.group, source=q.source)
             for q in convfinqa_questions(data_dir)]
    tatqa = [
        LabelledQuestion(question=q.question, operation=answer_kind(q), group=f"tatqa:{q.doc_name}", source=q.id)
        for q in load_tatqa(data_dir).questions
    ]
    financebench = [
        LabelledQuestion(question=q.question, operation=kind, group=f"financebench:{q.company}", source=q.id)
        for q in _financebench_questions(data_dir) if (kind := financebench_kind(q))
    ]
    return [*turns, *tatqa, *financebench]


def _financebench_questions(data_dir: Path) -> list[FinanceBenchQuestion]:
    """FinanceBench's questions, or none when the layout has no FinanceBench folder (a smaller data set)."""
    if not (Path(data_dir) / "financebench").is_dir():
        return []
    return load_financebench(data_dir).questions
