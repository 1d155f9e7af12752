"""Hardening, third pass (issue 62): a filing that lies or prints what no number holds, a name that collides, a
field typed wrong. One clear message each; the rest of the filing, and everything stored, stays right."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import ask_once, ingested_typeset, stated

from agent.config import Settings
from agent.finance.numbers import MAX_FIGURE_DIGITS, find_numbers, overlong_figures, parse_number

pytestmark = pytest.mark.usefixtures("no_yfinance")

HUGE = "1" + "0" * 320  # 321 digits: a float is infinity, and JSON stores infinity as null

LONG_FILING = f"""# Longnum Corporation

FORM 10-K

For the fiscal year ended December 31, 2024

Longnum Corporation
(Exact name of registrant as specified in its charter)

## Item 7. Results of Operations

Revenue was ${HUGE} million in 2024, up from $5 million in 2023.

(in millions)

| | 2024 | 2023 |
|---|---|---|
| Revenue | {HUGE} | 5 |
| Net income | 3 | 2 |
"""


def test_a_figure_too_long_for_a_number_keeps_its_place_unread() -> None:
    figure = parse_number(f"${HUGE} million")
    assert figure is not None and not figure.readable and figure.value == 0.0
    assert [n.readable for n in find_numbers(f"Revenue was ${HUGE} million, up from $5 million.")] == [False, True]
    assert parse_number("9" * MAX_FIGURE_DIGITS).readable  # the longest a figure may be is read
    assert overlong_figures(f"a {HUGE} b 12") == [(2, 321)]


@pytest.fixture(scope="module")
def long_home(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("long"), "LONGNUM_2024_10K.md", LONG_FILING)



def test_ingest_names_where_the_long_figure_stands(tmp_path: Path) -> None:
    from agent.ingest.pipeline import open_ingestor

    path = tmp_path / "LONGNUM_2024_10K.md"
    path.write_text(LONG_FILING, encoding="utf-8")
    with open_ingestor(Settings.from_env(home=tmp_path / "home")) as ingestor:
        report = ingestor.ingest_file(path)
    assert report.status == "ingested"
    assert report.warnings == ["p. 1: a figure of 321 digits is more than a number can hold; kept as text, never "
                               "read as a figure"] * 2


def test_the_long_figure_is_never_stated_nor_replaced_and_the_rest_answers(long_home: Settings) -> None:
    refused = ask_once(long_home, "What was Longnum's revenue in 2024?")
    assert refused.startswith("Not found") and "more digits than a number can hold" in refused, refused
    assert "$5 million" not in stated(refused) and "$0" not in refused, refused  # no other figure takes its year
    change = ask_once(long_home, "What was the change in Longnum's revenue from 2023 to 2024?")
    assert change.startswith("Not found") and "decrease" not in stated(change), change
    assert "$3 million" in ask_once(long_home, "What was Longnum's net income in 2024?")
    assert "$5 million" in ask_once(long_home, "What was Longnum's revenue in 2023?")


@pytest.mark.parametrize("figure", ["—", "n/a", "$ —", "-"])
def test_a_figure_printed_as_a_dash_or_na_boxes_its_row_without_an_error(tmp_path: Path, figure: str) -> None:
    from support import text_pdf

    from agent.index.render import _pdf_boxes, quote_parts

    pdf = text_pdf(tmp_path / "DASH.pdf", ["Balance sheet\n| Goodwill | 1,200 | — |\n| Other | n/a | 5 |"])
    boxes = _pdf_boxes(pdf, 1, quote_parts("Goodwill | 2024: 1,200 | 2023: —", figure))
    assert boxes and boxes[0].kind == "label"  # the row is boxed whatever the figure's search finds


def _two_registrants():
    from agent.entities import EntityRegistry
    from agent.schemas import Entity

    return EntityRegistry([
        Entity(entity_id="cik:0000320193", name="Apple Inc.", cik="0000320193", tickers=["AAPL"], name_source="cover"),
        Entity(entity_id="cik:0000051143", name="International Business Machines Corporation", cik="0000051143",
               tickers=["IBM"], name_source="cover"),
    ])


def test_a_merge_of_two_ciks_is_refused_unless_forced() -> None:
    from agent.errors import FinragError

    registry = _two_registrants()
    with pytest.raises(FinragError, match="two registrants"):
        registry.merge("Apple Inc.", "IBM")
    assert registry.resolve("IBM").name.startswith("International")  # nothing changed
    assert registry.merge("Apple Inc.", "IBM", force=True).entity_id == "cik:0000320193"


@pytest.mark.parametrize(("name", "why"), [
    ("", "empty"), ("   ", "empty"), ("x" * 5000, "at most 200"), ("IBM", "already names International"),
    ("Apple\x07Inc", "control character"),
])
def test_a_name_given_by_hand_is_checked(name: str, why: str) -> None:
    from agent.errors import FinragError

    registry = _two_registrants()
    with pytest.raises(FinragError, match=why):
        registry.rename("cik:0000320193", name)
    assert registry.rename("cik:0000320193", "  Apple   Computer ").name == "Apple Computer"


def test_the_store_refuses_a_bad_alias_and_keeps_what_it_had(settings: Settings) -> None:
    from agent.errors import FinragError
    from agent.index.store import Store
    from agent.schemas import DocumentMeta

    with Store.open(settings) as store:
        for name, cik in (("Apple Inc.", "0000320193"), ("Intel Corporation", "0000050863")):
            meta = DocumentMeta(doc_id=cik * 4, name=name.split()[0].upper(), company=name, cik=cik, form="10-K")
            store.add_document(meta, [], [], [], [], [], [])
        with pytest.raises(FinragError, match="already names Intel"):
            store.add_alias("Apple Inc.", "Intel Corporation")
        with pytest.raises(FinragError, match="two registrants"):
            store.merge_entities("Apple Inc.", "Intel Corporation")
        assert store.entities().resolve("Intel Corporation").cik == "0000050863"
        assert store.entities().resolve("Apple Inc.").aliases == []


@pytest.mark.parametrize(("field", "value", "why"), [
    ("fiscal_year", "abc", "is no year"), ("fiscal_year", "12345678901234567890", "is no year"),
    ("filing_date", "2024-02-31", "is no date"), ("period_end", "0001-01-01", "outside the years"),
    ("ticker", "AD\nTM", "control character"), ("ticker", "A B", "is no ticker"),
    ("fiscal_period", "FY2024Q5", "FY2024Q2"), ("company", "   ", "empty"),
])
def test_a_typed_edit_that_no_filing_can_carry_is_refused_with_the_shape_it_needs(field: str, value: str,
                                                                                 why: str) -> None:
    from agent.errors import StoreError
    from agent.index.edits import checked_edits

    with pytest.raises(StoreError, match=why):
        checked_edits({field: value})


def test_edits_are_typed_before_they_are_stored() -> None:
    from agent.index.edits import checked_edits

    assert checked_edits({"fiscal_year": " 2024", "ticker": "brk.b", "fiscal_period": "fy2024q2",
                          "filing_date": "2024-02-29"}) == {
        "fiscal_year": 2024, "ticker": "BRK.B", "fiscal_period": "FY2024Q2", "filing_date": "2024-02-29"}


def test_docs_edit_says_what_is_wrong_and_stores_nothing(settings: Settings, tmp_path: Path, capsys) -> None:
    from cli.main import main

    path = tmp_path / "LONGNUM_2024_10K.md"
    path.write_text(LONG_FILING, encoding="utf-8")
    home = ["--home", str(settings.home)]
    assert main([*home, "ingest", str(path)]) == 0
    assert main([*home, "docs", "edit", "LONGNUM_2024_10K", "--fiscal-year", "abc"]) == 1
    err = capsys.readouterr().err
    assert "fiscal_year: 'abc' is no year" in err and "Traceback" not in err
    assert main([*home, "docs", "edit", "LONGNUM_2024_10K", "--fiscal-year", "2023"]) == 0
    out = capsys.readouterr().out
    # a new year is the calendar the filing's figures are typed in: the user is told how to have them read in it
    assert "fiscal_year=2023" in out and f"finrag ingest {path}" in out
    assert main([*home, "ingest", str(path)]) == 0 and "1 ingested" in capsys.readouterr().out


def test_markup_that_breaks_the_tag_reader_is_reported_and_the_text_still_answers(tmp_path: Path) -> None:
    import gzip

    from agent.index.store import Store
    from agent.ingest.pipeline import open_ingestor

    edgar = Path(__file__).resolve().parent / "fixtures" / "edgar" / "aapl-20250329.htm.gz"
    data = gzip.decompress(edgar.read_bytes())
    path = tmp_path / "aapl-20250329.htm"
    # a stray closing tag in <head>: the page's text reads as before, the XBRL reader finds no fact
    path.write_bytes(data.replace(b"<title>aapl-20250329</title>", b"<title>aapl-20250329</title></body>", 1))
    settings = Settings.from_env(home=tmp_path / "home")
    with open_ingestor(settings) as ingestor:
        report = ingestor.ingest_file(path)
    assert report.status == "ingested" and report.facts == 0
    assert any(w.startswith("inline XBRL: 0 of 674 tagged figures read") for w in report.warnings), report.warnings
    meta = Store.open(settings).list_documents()[0]
    assert meta.fy_end_month != 12  # no December fallback: the cover's words, or unknown


def test_a_name_that_does_not_resolve_is_said_at_once_not_retried() -> None:
    import socket
    import urllib.error

    from tools.edgar import EdgarClient, EdgarError

    calls: list[str] = []

    def unresolved(url: str, headers: dict[str, str]):
        calls.append(url)
        raise urllib.error.URLError(socket.gaierror(-3, "Temporary failure in name resolution"))

    slept: list[float] = []
    client = EdgarClient("Jane Analyst jane@example.com", transport=unresolved, sleep=slept.append)
    with pytest.raises(EdgarError, match="does not resolve"):
        client.request("https://data.sec.gov/submissions/CIK0000320193.json")
    assert len(calls) == 1 and not [s for s in slept if s >= 1.0]


def test_fetch_checks_the_year_before_asking_edgar(settings: Settings, capsys, monkeypatch) -> None:
    from cli.main import main

    monkeypatch.setenv("FINRAG_SEC_USER_AGENT", "Jane Analyst jane@example.com")
    assert main(["--home", str(settings.home), "fetch", "AAPL", "--year", "0"]) == 2
    assert "--year 0 has no filings on EDGAR" in capsys.readouterr().err


@pytest.mark.parametrize("content", [bytes(range(256)) * 400, b"\x89PNG\r\n\x1a\n" + b"\x00" * 5000])
def test_a_binary_file_renamed_html_is_refused_not_ingested_as_garbage(settings: Settings, tmp_path: Path,
                                                                      content: bytes) -> None:
    from agent.ingest.pipeline import open_ingestor

    path = tmp_path / "REPORT.html"
    path.write_bytes(content)
    with open_ingestor(settings) as ingestor:
        report = ingestor.ingest_file(path)
    assert report.status == "failed" and "looks like a binary file, not HTML" in report.error


@pytest.fixture()
def web(settings: Settings):
    from starlette.testclient import TestClient

    from graphs.http import build_app

    with TestClient(build_app(settings), base_url="http://127.0.0.1:8765") as client:
        yield client


def test_a_page_of_another_site_may_not_change_anything(web) -> None:
    for path, body in (("/api/ask", '{"question": "hi"}'), ("/api/upload?name=x.md", "# x")):
        reply = web.post(path, content=body, headers={"origin": "https://evil.example", "content-type": "text/plain"})
        assert reply.status_code == 403 and "another site" in reply.json()["error"], path
    reply = web.post("/api/threads", headers={"sec-fetch-site": "cross-site"})
    assert reply.status_code == 403
    assert web.post("/api/threads", headers={"origin": "http://127.0.0.1:8765"}).status_code == 200
    assert web.post("/api/threads").status_code == 200  # a client that sends no origin (curl, an SDK)


def test_a_host_the_server_does_not_answer_to_is_refused(web) -> None:
    reply = web.get("/api/docs", headers={"host": "rebound.evil.example:8765"})
    assert reply.status_code == 403 and "FINRAG_SERVE_HOSTS" in reply.json()["error"]
    assert web.get("/api/docs", headers={"host": "localhost:8765"}).status_code == 200


def test_threads_belong_to_the_browser_that_opened_them(web, settings: Settings) -> None:
    from graphs.http import CLIENT_COOKIE

    web.get("/")
    mine = web.cookies.get(CLIENT_COOKIE)
    assert mine and len(mine) >= 16
    asked = web.post("/api/ask", json={"question": "hello", "thread_id": "t-mine"})
    assert asked.status_code == 200
    assert [t["thread_id"] for t in web.get("/api/threads").json()["threads"]] == ["t-mine"]
    web.cookies.clear()
    web.cookies.set(CLIENT_COOKIE, "another-browser-secret-0123")
    assert web.get("/api/threads").json()["threads"] == []
    assert web.get("/api/threads/t-mine").status_code == 404
    assert web.post("/api/ask", json={"question": "and now?", "thread_id": "t-mine"}).status_code == 404
    web.cookies.clear()
    web.cookies.set(CLIENT_COOKIE, mine)
    assert web.get("/api/threads/t-mine").json()["turns"]


def test_serve_help_says_how_to_protect_a_server_on_a_network(capsys) -> None:
    from cli.main import main

    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    out = capsys.readouterr().out
    assert "FINRAG_SERVE_TOKEN" in out and "FINRAG_SERVE_HOSTS" in out


_NET_SALES_TAG = ('<ix:nonFraction unitRef="usd" contextRef="c-20" decimals="-6" '
                  'name="us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax" format="ixt:num-dot-decimal" '
                  'scale="6" id="f-62">95,359</ix:nonFraction>')


@pytest.mark.parametrize(("case", "tampered", "why"), [
    ("hidden", _NET_SALES_TAG.replace(">95,359<", '><span style="display:none">1</span><') + "95,359",
     "the page prints ''"),
    ("format", _NET_SALES_TAG.replace("ixt:num-dot-decimal", "ixt:fixed-zero"), "the tag reads 0"),
    ("scale", _NET_SALES_TAG.replace('scale="6"', 'scale="-999"'), "scale -999"),
    ("value", _NET_SALES_TAG.replace(">95,359<", ">1e400<"), "no finite number"),
])
def test_a_tag_that_says_other_than_the_page_is_left_out_and_named(tmp_path: Path, case: str, tampered: str,
                                                                    why: str) -> None:
    import gzip

    from agent.ingest.parsing import load_pages
    from agent.ingest.xbrl import read_facts

    edgar = Path(__file__).resolve().parent / "fixtures" / "edgar" / "aapl-20250329.htm.gz"
    data = gzip.decompress(edgar.read_bytes())
    assert _NET_SALES_TAG.encode() in data
    path = tmp_path / "aapl-20250329.htm"
    path.write_bytes(data.replace(_NET_SALES_TAG.encode(), tampered.encode(), 1))
    parsed = load_pages(path, Settings.from_env(home=tmp_path))
    read = read_facts(str(path), path.read_bytes(), parsed.fact_spans, pages=[p.text for p in parsed.pages])
    assert [d for d in read.disagreements if d.startswith("f-62:")] and why in read.disagreements[0], read.disagreements
    assert "f-62" not in {f.fact_id for f in read.facts}
    assert len(read.facts) == 673  # every other tag of the filing agrees with its page


def test_the_real_filings_tags_all_agree_with_their_pages(tmp_path: Path) -> None:
    import gzip

    from agent.ingest.parsing import load_pages
    from agent.ingest.xbrl import read_facts

    for stem, tagged in (("aapl-20250329", 674), ("ibm-20241231", 62)):
        path = tmp_path / f"{stem}.htm"
        path.write_bytes(gzip.decompress((Path(__file__).resolve().parent / "fixtures" / "edgar" /
                                          f"{stem}.htm.gz").read_bytes()))
        parsed = load_pages(path, Settings.from_env(home=tmp_path))
        read = read_facts(str(path), path.read_bytes(), parsed.fact_spans, pages=[p.text for p in parsed.pages])
        assert (len(read.facts), read.disagreements) == (tagged, []), read.disagreements


def test_an_upload_is_read_once_and_the_same_bytes_again_make_no_second_copy(web, settings: Settings,
                                                                             monkeypatch) -> None:
    import json

    from agent.ingest import parsing, pipeline

    reads: list[str] = []
    real = parsing.load_pages

    def counted(path, *args, **kwargs):
        reads.append(Path(path).name)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(parsing, "load_pages", counted)  # the upload's own check would call it here
    monkeypatch.setattr(pipeline, "load_pages", counted)  # the ingest reads the file here
    first = web.put("/api/upload", params={"name": "LONGNUM_2024_10K.md"}, content=LONG_FILING.encode())
    assert json.loads(first.text.splitlines()[-1])["report"]["status"] == "ingested"
    assert reads == ["LONGNUM_2024_10K.md"]  # parsed once, by the ingest
    again = web.put("/api/upload", params={"name": "copy of the 10-K.md"}, content=LONG_FILING.encode())
    report = json.loads(again.text.splitlines()[-1])["report"]
    assert report["status"] == "unchanged" and report["name"] == "LONGNUM_2024_10K", report
    assert sorted(p.name for p in (settings.home / "uploads").iterdir()) == ["LONGNUM_2024_10K.md"]


def test_a_filing_tagging_more_figures_than_any_filing_is_read_as_text(tmp_path: Path) -> None:
    import gzip

    from agent.ingest.pipeline import open_ingestor

    edgar = Path(__file__).resolve().parent / "fixtures" / "edgar" / "ibm-20241231.htm.gz"
    path = tmp_path / "ibm-20241231.htm"
    path.write_bytes(gzip.decompress(edgar.read_bytes()))
    with open_ingestor(Settings.from_env(home=tmp_path / "home", max_facts=50)) as ingestor:
        report = ingestor.ingest_file(path)
    assert report.status == "ingested" and report.facts == 0 and report.chunks > 0
    assert any(w.startswith("inline XBRL: 62 tagged figures is more than max_facts=50") for w in report.warnings)


def test_a_turn_is_saved_once_and_a_long_thread_is_read_back_a_page_at_a_time(tmp_path: Path) -> None:
    from support import ingested_sample

    from graphs.service import Assistant

    settings = ingested_sample(tmp_path / "home")
    with Assistant(settings) as assistant:
        for year in (2024, 2023, 2022):
            assistant.ask(f"What were Northwind's capital expenditures in {year}?", thread_id="long")
        snapshots = list(assistant.graph.get_state_history(assistant._config("long")))
        assert len(snapshots) == 3  # one checkpoint a turn, not one a step (each kept the turn's evidence again)
        assert [r.turn for r in assistant.results("long", last=2)] == [2, 3]
        assert len(assistant.results("long")) == 3

    from starlette.testclient import TestClient

    from graphs.http import build_app

    with TestClient(build_app(settings), base_url="http://127.0.0.1") as web:
        page = web.get("/api/threads/long", params={"last": 1}).json()
        assert [r["turn"] for r in page["results"]] == [3] and page["more"] is True
        assert web.get("/api/threads/long", params={"last": "x"}).status_code == 400


@pytest.fixture(scope="module")
def apple_html(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import gzip

    path = tmp_path_factory.mktemp("apple") / "aapl-20250329.htm"
    path.write_bytes(gzip.decompress((Path(__file__).resolve().parent / "fixtures" / "edgar" /
                                      "aapl-20250329.htm.gz").read_bytes()))
    return path


def test_a_large_html_file_is_read_in_a_child_under_the_budget(apple_html: Path, tmp_path: Path, monkeypatch) -> None:
    from agent.ingest import parsing

    settings = Settings.from_env(home=tmp_path)
    here = [p.text for p in parsing.load_pages(apple_html, settings).pages]
    monkeypatch.setattr(parsing, "HTML_CHILD_MB", 0.0)  # every HTML file goes to the child
    assert [p.text for p in parsing.load_pages(apple_html, settings).pages] == here


@pytest.mark.parametrize(("budget", "why"), [
    ({"max_parse_seconds": 0.05}, "took over max_parse_seconds=0.05"),
    ({"max_parse_memory_mb": 2.0}, "needs more than max_parse_memory_mb=2 MB"),
])
def test_an_html_parse_over_its_budget_stops_with_the_reason(apple_html: Path, tmp_path: Path, monkeypatch,
                                                             budget: dict, why: str) -> None:
    from agent.errors import IngestError
    from agent.ingest import parsing

    monkeypatch.setattr(parsing, "HTML_CHILD_MB", 0.0)
    with pytest.raises(IngestError, match=why):
        parsing.load_pages(apple_html, Settings.from_env(home=tmp_path, **budget))
