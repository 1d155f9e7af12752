"""`finrag eval rules`: the phrase rules of the question's readers, each definition counted once."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from evals.rules_bench import count_module, run_rules_bench, text_readers, word_sets

MODULE = '''
import re

WORDS = r"rise|rose|fell"  # a class: three alternatives, counted here once
SHARED = re.compile(rf"\\b(?:{WORDS})\\b")
AGAIN = re.compile(rf"\\bthe\\s+(?:{WORDS})\\s+in\\b", re.I)
PLAIN = re.compile(
    r"\\b(?:ab|cd)\\b"
    r"|\\bef\\b"
)


def use(text: str, pattern: str) -> bool:
    return bool(re.search(r"xx|yy", text)) or bool(re.search(pattern, text))
'''


def test_a_class_interpolated_into_patterns_counts_once(tmp_path: Path) -> None:
    path = tmp_path / "readers.py"
    path.write_text(MODULE, encoding="utf-8")
    count = count_module(path)
    assert (count.compiled, count.calls) == (3, 5)
    # WORDS 3 (once, not again in SHARED and AGAIN), PLAIN 2 + the 2 inside its group, 'xx|yy' 2
    assert count.alternatives == 3 + 0 + 0 + 4 + 2
    assert count.unread == 0  # a name passed as the pattern is a fragment, counted where it is defined
    assert count.lines == 1 + 1 + 1 + 2 + 1  # WORDS, SHARED, AGAIN, PLAIN's two lines, 'xx|yy'


def test_adding_a_copy_of_a_class_adds_its_words_again(tmp_path: Path) -> None:
    path = tmp_path / "readers.py"
    path.write_text(MODULE, encoding="utf-8")
    once = count_module(path).alternatives
    path.write_text(MODULE + '\nCOPY = re.compile(r"\\b(?:rise|rose|fell)\\b")\n', encoding="utf-8")
    assert count_module(path).alternatives == once + 3


def test_the_checkouts_readers_are_counted_with_a_total() -> None:
    rows = run_rules_bench()
    total = rows[-1]
    assert total.module == "all" and total.compiled > 0 and total.alternatives > 0
    assert total.compiled == sum(r.compiled for r in rows[:-1])
    assert any(r.module.endswith("wording.py") for r in rows)


# The readers' rules when the wording issue (28) was filed: compiled patterns, re. calls, alternatives, pattern lines.
AT_FILING = (185, 256, 1887, 376)


def test_the_readers_hold_fewer_rules_than_when_the_wording_issue_was_filed() -> None:
    # A learned part or a merged twin takes rules away; a new phrase list for one wording puts them back, and fails
    # here. Issue 28 counted the patterns of agent/query, agent/answer and the word classes, not the period reader.
    rows = [r for r in run_rules_bench()[:-1] if not r.module.endswith("periods.py")]
    totals = [sum(getattr(r, f) for r in rows) for f in ("compiled", "calls", "alternatives", "lines")]
    assert all(now < then for now, then in zip(totals, AT_FILING, strict=True))


# Issue 57, item 5: the count with the period reader (agent/finance/periods.py) and the word lists, when first counted
# (compiled, re. calls, alternatives, pattern lines, word sets, their words). It is to fall to half; never to rise.
WIDER_WHEN_COUNTED = (225, 285, 2096, 444, 62, 945)


def test_the_wider_count_never_rises() -> None:
    total = run_rules_bench()[-1]
    now = (total.compiled, total.calls, total.alternatives, total.lines, total.word_sets, total.set_words)
    assert all(a <= b for a, b in zip(now, WIDER_WHEN_COUNTED, strict=True)), now
    assert any(r.module.endswith("periods.py") and r.alternatives for r in run_rules_bench())


def test_word_lists_are_counted_as_rules() -> None:
    tree = ast.parse('A = frozenset(("due", "payable"))\nB = frozenset(_words("carrying book fair"))\n'
                     'C = ("2013", "2014")\nD = {"only"}\nE = re.compile(r"due now")\n')
    assert word_sets(tree) == [2, 3]  # figures, a lone word and a pattern are no word lists


READER = '''
def takes(question: str) -> bool:
    return "revenue" in question


def reads(sub_query) -> str:
    return sub_query.question.lower()


def plan_only(sub_query) -> list[str]:
    return sub_query.intent.metrics


class Reader:
    def method(self, state, *, question_text: str = "") -> str:
        return question_text
'''

# Functions of agent/answer and agent/retrieval that read the question's words (104 when counted first; issue
# 57 asks for 0: each stage reads the plan). A stage moved onto the plan lowers it; a new reader of the words fails.
TEXT_READERS_WHEN_COUNTED = 67


def test_functions_that_read_the_question_text_are_counted() -> None:
    assert text_readers(ast.parse(READER)) == ["takes", "reads", "method"]


def test_no_new_stage_reads_the_question_text() -> None:
    assert run_rules_bench()[-1].text_readers <= TEXT_READERS_WHEN_COUNTED


def test_the_command_prints_the_table(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "cli.main", "eval", "rules", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "| all |" in done.stdout and (tmp_path / "rules.json").exists()
    bad = subprocess.run([sys.executable, "-m", "cli.main", "eval", "rules", "--agent", str(tmp_path)],
                         capture_output=True, text=True, timeout=120, check=False)
    assert bad.returncode != 0 and "no agent/ folder" in bad.stderr + bad.stdout
