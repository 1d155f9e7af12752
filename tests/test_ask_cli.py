"""``finrag ask`` and ``finrag chat`` over the sample filing (offline, one ingested index for the module)."""

from __future__ import annotations

import argparse
import io
import json

import pytest
from support import ingested_sample

from agent.config import Settings
from cli import ask_cmd

CAPEX_2024 = "What were Northwind's capital expenditures in 2024?"
CITATION = "[NORTHWIND_2024_10K, p. "


pytestmark = pytest.mark.usefixtures("no_yfinance")


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """One FINRAG_HOME with the sample filing ingested, shared by the module."""
    return ingested_sample(tmp_path_factory.mktemp("ask_cli") / "home")


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="finrag")
    ask_cmd.register(parser.add_subparsers(dest="command"))
    return parser.parse_args(argv)


def run(argv: list[str], settings: Settings, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    args = parse(argv)
    code = args.func(args, settings)
    out, err = capsys.readouterr()
    return code, out, err


def test_ask_prints_the_cited_answer_and_its_sources(settings: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["ask", CAPEX_2024], settings, capsys)
    assert code == 0
    answer, sources = out.split("\nSources:\n")
    assert "$437 million" in answer and CITATION in answer
    assert sources.strip().startswith(CITATION) and "(437)" in sources
    assert "--thread" in err


def test_an_answer_under_a_document_filter_says_what_it_was_asked_over(settings: Settings,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    filtered = "Asked over NORTHWIND_2024_10K only (the document filter); other filings were not searched."
    code, out, _ = run(["ask", CAPEX_2024, "--doc", "NORTHWIND_2024_10K"], settings, capsys)
    assert code == 0 and "$437 million" in out and filtered in out
    code, out, _ = run(["ask", "What was Contoso's revenue in 2024?", "--doc", "NORTHWIND_2024_10K"], settings, capsys)
    assert out.startswith("Not found") and filtered in out  # a refusal under a filter says so
    code, out, _ = run(["ask", CAPEX_2024], settings, capsys)
    assert "Asked over" not in out  # no filter, no line


def test_ask_json_carries_the_documented_fields(settings: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["ask", CAPEX_2024, "--json"], settings, capsys)
    data = json.loads(out)
    assert code == 0
    assert {"answer", "citations", "sub_queries", "routes", "timings", "tokens", "trace", "thread_id"} <= set(data)
    assert set(data["citations"][0]) == {"doc", "page", "quote", "figure", "checks"} and data["citations"][0]["page"] >= 1
    assert data["citations"][0]["figure"] == "(437)"
    assert data["routes"][0]["route"] == "deep_retrieval" and data["timings"]["total"] > 0
    assert data["tokens"]["calls"] == 0


def test_ask_thread_continues_a_conversation(settings: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(["ask", CAPEX_2024, "--json"], settings, capsys)
    thread = json.loads(out)["thread_id"]
    _, out, _ = run(["ask", "what about 2023?", "--thread", thread, "--json"], settings, capsys)
    data = json.loads(out)
    assert data["thread_id"] == thread and data["turn"] == 2
    assert "$392 million" in data["answer"] and "2023" in data["rewritten"]


def test_chat_streams_progress_and_understands_its_commands(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    stdin = io.StringIO(f"{CAPEX_2024}\n/trace\n/new\n/trace\n/bogus\n\n/quit\nnever read\n")
    code = ask_cmd.handle_chat(parse(["chat"]), settings, stdin=stdin)
    out = capsys.readouterr().out
    assert code == 0
    assert "· preprocess" in out and "· deep_retrieval/select" in out and "· answer" in out
    assert "$437 million" in out and "Sources:" in out
    first_turn = out.split("== candidates")[0]  # before the /trace output
    assert first_turn.count("$437 million") == 1  # the answer once, not also in a progress line
    assert "== candidates" in out and "[route " in out  # /trace: the audit trace and the routes
    assert "new thread" in out and "no turn yet in this thread" in out and "unknown command /bogus" in out
    assert "never read" not in out


def test_chat_resumes_a_thread_and_stops_at_end_of_input(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = run(["ask", CAPEX_2024, "--json"], settings, capsys)
    thread = json.loads(out)["thread_id"]
    code = ask_cmd.handle_chat(parse(["chat", "--thread", thread]), settings, stdin=io.StringIO("/trace\n"))
    out = capsys.readouterr().out
    assert code == 0 and f"thread {thread}" in out and "capital expenditure" in out


def test_registered_command_reports_bad_input_in_one_line(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    from cli import main as cli_main

    if "cli.ask_cmd" not in cli_main.COMMAND_MODULES:
        pytest.skip("cli.ask_cmd is not registered in cli/main.py COMMAND_MODULES yet")
    code = cli_main.main(["--home", str(settings.home), "ask", "   "])
    err = capsys.readouterr().err
    assert code == 1 and err.strip() == "finrag: the question is empty"


@pytest.mark.parametrize("question", ["Northwind 2024年的资本支出是多少？", "Каковы капитальные затраты Northwind в 2024 году?"])
def test_a_question_in_a_script_finrag_does_not_read_is_not_found(
    question: str, settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    # Its ticker and year would retrieve the cover page; the reader cannot tell what is asked, so it says so.
    code, out, _ = run(["ask", question, "--json"], settings, capsys)
    answer = json.loads(out)["answer"]
    assert answer.startswith("Not found") and "English" in answer and CITATION not in answer, answer


def test_readable_language() -> None:
    from agent.query.kind import readable_language

    assert readable_language("What was Nestlé's revenue in 2023?") and readable_language("2024?")
    assert not readable_language("资本支出是多少") and not readable_language("Каковы затраты")
