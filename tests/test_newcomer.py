"""What a new user sees: progress inside a long file, readable answers, clean logs, a cold start without torch."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import pytest
from support import ingested_sample

from agent.answer.verify import split_sentences
from agent.answer.words import clip_words
from agent.config import Settings
from agent.ingest.pipeline import open_ingestor
from cli import ask_cmd
from cli.main import main

SAMPLE = Path(__file__).resolve().parent.parent / "agent" / "samples" / "NORTHWIND_2024_10K.md"

pytestmark = pytest.mark.usefixtures("no_yfinance")


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_sample(tmp_path_factory.mktemp("newcomer") / "home")


def ask(settings: Settings, question: str, capsys: pytest.CaptureFixture[str]) -> str:
    parser = argparse.ArgumentParser()
    ask_cmd.register(parser.add_subparsers())
    args = parser.parse_args(["ask", question])
    assert args.func(args, settings) == 0
    return capsys.readouterr().out


def test_a_computed_figure_lists_every_row_it_used_with_currency_and_scale(settings: Settings, capsys) -> None:
    out = ask(settings, "What was Northwind's free cash flow in 2024?", capsys)
    assert "$438 million (computed: 875 - 437 = 438, $ in millions)" in out
    sources = out.split("Sources:")[1]
    assert "Net cash provided by operating activities" in sources and "Purchases of property" in sources


def test_per_share_amounts_are_not_called_unscaled(settings: Settings, capsys) -> None:
    out = ask(settings, "What was Northwind's diluted EPS in 2024?", capsys)
    assert "$3.00" in out and "states no scale" not in out


def test_ingest_reports_progress_per_stage(tmp_path: Path) -> None:
    events: list[tuple[str, int, int]] = []
    with open_ingestor(Settings.from_env(home=tmp_path), on_progress=lambda *e: events.append(e)) as ingestor:
        report = ingestor.ingest_file(SAMPLE)
    reads = [e for e in events if e[0] == "read"]
    embeds = [e for e in events if e[0] == "embed"]
    assert reads[-1] == ("read", report.pages, report.pages)
    assert embeds[0][1] == 0 and embeds[-1][1] == embeds[-1][2] > 0
    assert [e[1] for e in embeds] == sorted(e[1] for e in embeds)


def test_progress_in_a_log_is_plain_lines(tmp_path: Path, capsys) -> None:
    code = main(["--home", str(tmp_path), "ingest", str(SAMPLE)])
    out, err = capsys.readouterr()
    assert code == 0 and "\r" not in err and "\r" not in out
    assert "NORTHWIND_2024_10K.md: read 8 pages" in err and "NORTHWIND_2024_10K.md: embedded 18 chunks" in err
    assert out.splitlines()[0].startswith("ingested   NORTHWIND_2024_10K")  # no progress glued to it


def test_chat_help_teaches(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["chat", "--help"])
    out = capsys.readouterr().out
    assert "/trace" in out and "/new" in out and "Follow-ups" in out


def test_chat_prints_each_answer_once(settings: Settings, capsys) -> None:
    parser = argparse.ArgumentParser()
    ask_cmd.register(parser.add_subparsers())
    args = parser.parse_args(["chat"])
    ask_cmd.handle_chat(args, settings, stdin=io.StringIO("What were Northwind's capital expenditures in 2024?\n"))
    assert capsys.readouterr().out.count("$437 million") == 1


def test_headings_do_not_run_into_text_and_quotes_end_on_a_word() -> None:
    text = ("Business Risks\nRisks associated with our operations include\ncompetition and weather.\n"
            "Revenue increased due to higher\nVolume in Europe.")
    assert [text[a:b] for a, b in split_sentences(text)] == [
        "Business Risks",
        "Risks associated with our operations include\ncompetition and weather.",
        "Revenue increased due to higher\nVolume in Europe.",  # a wrapped sentence is no heading
    ]
    assert clip_words("the quick brown fox jumps over the lazy dog", 18) == "the quick brown …"
    assert clip_words("short", 18) == "short"


def test_cold_start_benchmark_measures_fresh_processes() -> None:
    from evals.cold_start import run_cold_bench

    (result,) = run_cold_bench(runs=1, commands=["search"])
    assert result.command == "search" and result.cpu_median_s > 0 and result.wall_median_s > 0
    assert result.same_output


def test_an_average_or_change_of_one_named_row_is_computed_from_its_columns(settings: Settings, capsys) -> None:
    """'What is the average revenue?' over a row with three years: the average of those years, in code and
    cited; 'the change in 2024': that year against the one before; a question naming anything besides the row
    ('duration') is refused, with the read figure as the closest evidence, rather than guessed."""
    out = ask(settings, "What is Northwind's average revenue?", capsys)
    assert "revenue over FY2022 to FY2024: $4,365 million ((3,978 + 4,305 + 4,812) / 3" in out
    out = ask(settings, "What was the change in Northwind's revenue in 2024?", capsys)
    assert "$507 million, from $4,305 million in FY2023 to $4,812 million in FY2024 (4,812 - 4,305 = 507)" in out
    out = ask(settings, "What is the average duration of Northwind's revenue?", capsys)
    assert out.startswith("Not found in the filings: an average of revenue")
    assert "Closest evidence (not the figure asked)" in out


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("In which year was Northwind's revenue the largest?",
         "Year with Northwind Instruments, Inc.'s highest revenue: 2024 ($4,812 million) (FY2024 4,812 > FY2023 4,305 "
         "> FY2022 3,978) [NORTHWIND_2024_10K, p. 5]."),
        ("Which fiscal year had the lowest revenue for Northwind?",
         "Year with Northwind Instruments, Inc.'s lowest revenue: 2022 ($3,978 million)"),
        ("In which years was Northwind's revenue reported?", "Revenue is reported for 2024, 2023 and 2022 [NORTHWIND_2024_10K, p. 5]."),
        ("In which years was Northwind's revenue more than $4,000 million?",
         "Periods with Northwind Instruments, Inc. revenue above $4,000 million: 2023 and 2024: 2 of 3, FY2022 to FY2024"),
        ("Are there any segments of Northwind that represent more than 20% of its revenue in 2024?",
         "Not found in the filings: the periods or items meeting a threshold"),
        ("What was the largest liability on Northwind's balance sheet in 2024?",
         "Not found in the filings: the item with the highest or lowest value"),
        # the segment table's rows ranked in code (a balance sheet's rows, assets among them, are no liabilities)
        ("Which segment had the highest revenue for Northwind in 2024?",
         "Segment with Northwind Instruments, Inc.'s highest revenue in FY2024: Industrial Sensors revenue ($2,905 "
         "million) (Industrial Sensors revenue 2,905 > Medical Devices revenue 1,907)"),
    ],
)
def test_a_which_year_question_is_answered_with_the_year_or_refused(
    settings: Settings, capsys, question: str, expected: str
) -> None:
    """'In which year was X the largest?' is answered by comparing the named row's years in code (the year
    leads; no single year's figure is stated as the answer); 'which years' lists the row's years; a threshold
    ('more than $4,000 million') is counted over the row's years in code, and a choice between items ('which
    segment') is refused rather than answered with one figure."""
    out = ask(settings, question, capsys)
    assert out.startswith(expected), out
    assert "revenue in FY2024 was $4,812 million" not in out.split("Sources:")[0] or out.startswith("Not found")
