"""Inline-XBRL facts: read at ingest, located on their page, answering through ``finrag ask``, cross-checking.

Two real filings from edgartools' public test fixtures (MIT; the filings are public EDGAR documents), gzipped in
``tests/fixtures/edgar``: Apple's 10-Q for the quarter ended March 29, 2025 (quarter and six-month contexts,
product and segment dimensions, a fiscal year ending in September) and IBM's 2024 10-K main document, whose
financial statements are an exhibit ("incorporated herein by reference").
"""

from __future__ import annotations

import argparse
import gzip
from pathlib import Path

import pytest
from support import ingested_typeset

from agent.answer.facts import FactFiling, answer_from_facts, cross_check, member_words
from agent.answer.records import Check, SubAnswer
from agent.config import Settings
from agent.finance.concepts import concepts_for
from agent.finance.metrics import METRICS
from agent.index.store import Store
from agent.ingest.parsing import _assemble, _html_pages, _line_marks, load_pages
from agent.ingest.pipeline import open_ingestor
from agent.ingest.xbrl import read_facts
from agent.query.names import question_names
from agent.query.plan import SubQuery
from agent.schemas import Basis, Citation, NumericValue, QueryIntent, ScopeTerm, TemporalScope, XbrlFact
from cli import ask_cmd

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "edgar"
APPLE, IBM = "aapl-20250329", "ibm-20241231"

pytestmark = pytest.mark.usefixtures("no_yfinance")


def unpacked(stem: str, folder: Path) -> Path:
    """The fixture filing as the .htm a user would ingest."""
    path = folder / f"{stem}.htm"
    if not path.exists():
        path.write_bytes(gzip.decompress((FIXTURES / f"{stem}.htm.gz").read_bytes()))
    return path


@pytest.fixture(scope="module")
def filings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("edgar")
    return {stem: unpacked(stem, folder) for stem in (APPLE, IBM)}


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, filings: dict[str, Path]) -> Settings:
    """One index with both filings ingested, shared by the module."""
    settings = Settings.from_env(home=tmp_path_factory.mktemp("xbrl") / "home")
    with open_ingestor(settings) as ingestor:
        for path in filings.values():
            assert ingestor.ingest_file(path).status == "ingested"
    return settings


def ask(question: str, settings: Settings, capsys: pytest.CaptureFixture[str]) -> str:
    parser = argparse.ArgumentParser(prog="finrag")
    ask_cmd.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["ask", question])
    assert args.func(args, settings) == 0
    return capsys.readouterr().out.split("\nSources:\n")[0]


# ---------------------------------------------------------------------------------------------------------
# Reading and locating
# ---------------------------------------------------------------------------------------------------------
def test_marks_locate_every_visible_fact_and_leave_the_text_as_it_was(filings: dict[str, Path]) -> None:
    path = filings[APPLE]
    settings = Settings()
    parsed = load_pages(path, settings)
    plain = _assemble(path, _line_marks(_html_pages(path, path.read_bytes()))[0], "html", settings)
    assert [p.text for p in parsed.pages] == [p.text for p in plain.pages]
    assert parsed.inline_xbrl and len(parsed.fact_spans) >= 660  # 674 tagged; the rest sit in hidden sections
    for span in parsed.fact_spans.values():
        assert parsed.pages[span.page].text[span.start:span.end].strip()


def test_facts_carry_concept_context_unit_scale_sign_and_page(filings: dict[str, Path]) -> None:
    path = filings[APPLE]
    parsed = load_pages(path, Settings())
    read = read_facts(str(path), path.read_bytes(), parsed.fact_spans)
    assert (read.registrant, read.cik, read.form, read.fiscal_year, read.fiscal_period, read.fy_end_month) == (
        "Apple Inc.", "0000320193", "10-Q", 2025, "Q2", 9)
    assert len(read.facts) == 674 and read.tickers[0] == "AAPL"
    iphone = [f for f in read.facts if f.dimensions.get("srt:ProductOrServiceAxis") == "aapl:IPhoneMember"
              and f.period == "FY2025Q2"]
    assert [(f.value, f.text, f.scale, f.unit, f.months) for f in iphone] == [(46_841e6, "46,841", 6, "USD", 3)]
    page = parsed.pages[iphone[0].page]
    assert page.text[iphone[0].span_start:iphone[0].span_end] == "46,841"
    eps = next(f for f in read.facts if f.concept == "us-gaap:EarningsPerShareDiluted" and f.period == "FY2025H1")
    assert (eps.value, eps.unit, eps.months) == (4.05, "USD/shares", 6)
    assert sum(f.value < 0 for f in read.facts) == 52  # every sign="-" of the file


def test_every_concept_mapping_names_a_lexicon_metric() -> None:
    from agent.finance.concepts import _CONCEPTS

    assert set(_CONCEPTS) <= set(METRICS)
    assert concepts_for("net income")[0] == "us-gaap:NetIncomeLoss" and concepts_for("no such metric") == ()
    assert member_words("aapl:GreaterChinaSegmentMember") == "Greater China"


def test_ingest_names_the_filing_from_its_cover_tags(home: Settings) -> None:
    with Store.open(home) as store:
        apple, ibm = store.get_document(APPLE), store.get_document(IBM)
        assert (apple.company, apple.company_source, apple.cik, apple.fiscal_period, apple.fy_end_month) == (
            "Apple Inc.", "xbrl", "0000320193", "FY2025Q2", 9)
        assert apple.n_facts == 674 and not apple.statements_elsewhere
        assert ibm.cik == "0000051143" and ibm.fiscal_period == "FY2024"
        assert "incorporated herein by reference" in ibm.statements_elsewhere
        assert len(store.facts([apple.doc_id], ["us-gaap:NetIncomeLoss"])) == 18  # 4 columns, 4 tables, 2 more


# ---------------------------------------------------------------------------------------------------------
# Answers through finrag ask
# ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("question", "figure", "period"), [
    # each column of the income statement: quarter and six months, this year and last
    ("What was Apple's total net sales for the three months ended March 29, 2025?", "$95,359 million", "FY2025Q2"),
    ("What was Apple's total net sales for the three months ended March 30, 2024?", "$90,753 million", "FY2024Q2"),
    ("What was Apple's total net sales for the six months ended March 29, 2025?", "$219,659 million", "FY2025H1"),
    ("What was Apple's net income for the six months ended March 30, 2024?", "$57,552 million", "FY2024H1"),
    # the quarter, not the six months the same page also prints
    ("What was Apple's net income in Q2 2025?", "$24,780 million", "FY2025Q2"),
    # a product and a segment: dimension members
    ("What were Apple's iPhone net sales in Q2 2025?", "$46,841 million", "FY2025Q2"),
    ("What were Apple's net sales in Greater China for the six months ended March 29, 2025?", "$34,515 million",
     "FY2025H1"),
    ("What was Apple's diluted EPS for the six months ended March 29, 2025?", "$4.05", "FY2025H1"),
    # shares in thousands under a header in millions: the tag's scale, verified against the tag
    ("What were Apple's shares outstanding as of March 29, 2025?", "14,939,315 thousand shares", "FY2025Q2"),
])
def test_tagged_figures_answer_with_their_period_and_page(
    question: str, figure: str, period: str, home: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    answer = ask(question, home, capsys)
    assert figure in answer and period in answer and f"[{APPLE}, p. " in answer, answer
    assert "[unverified]" not in answer


def test_a_qualifier_the_tags_do_not_carry_is_refused(home: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    answer = ask("What was Apple's adjusted net income in Q2 2025?", home, capsys)
    assert answer.startswith("Not found") and "adjusted" in answer


def test_a_quarter_of_the_year_asked_is_not_that_year(home: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    # The 10-Q holds no fiscal-2024 revenue. MD&A prints the March 2024 quarter's under 'Three Months Ended' over
    # 'March 30, 2024 | Change' columns: the typed columns keep the duration, so it is FY2024Q2, never FY2024
    # (the tag cross-check that used to catch the misreading is shown by the unit test above).
    answer = ask("What was Apple's revenue in fiscal 2024?", home, capsys)
    assert answer.startswith("Not found") and "FY2024" in answer and "90,753" not in answer.split("Closest")[0], answer


def test_a_main_document_without_statements_refuses_with_the_reason(
    home: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    answer = ask("What was IBM's total revenue in 2024?", home, capsys)
    assert answer.startswith("Not found") and "incorporated herein by reference" in answer, answer
    assert "[unverified]" not in answer


# ---------------------------------------------------------------------------------------------------------
# The reader's figure held against the tag on the same cell
# ---------------------------------------------------------------------------------------------------------
def _fact(text: str, value: float, period: str, months: int, scale: int = 6, page: int = 2) -> XbrlFact:
    return XbrlFact(fact_id=f"f-{period}", concept="us-gaap:NetIncomeLoss", label="Net Income Loss", value=value,
                    text=text, unit="USD", scale=scale, end="2025-03-29", months=months, period=period, page=page)


class _Source:
    def __init__(self, facts: list[XbrlFact], filings: list[FactFiling] | None = None) -> None:
        self.facts, self._filings = facts, filings or []

    def filings(self, company: str, concepts: object, doc: str = "") -> list[FactFiling]:
        return [f for f in self._filings if not doc or f.doc_name == doc]

    def on_page(self, doc_name: str, page: int) -> list[tuple[XbrlFact, str]]:
        return [(f, f"Net income | {f.text} | 900") for f in self.facts if f.page == page]

    def statements_elsewhere(self, doc_name: str) -> str:
        return ""


def _read(text: str, value: float, scale: float, period: str) -> SubAnswer:
    cite = Citation(doc="ACME_10Q", page=3, quote=f"Net income | {text} | 900")
    return SubAnswer(question="What was Acme's net income in Q2 2025?", status="found", metric="net income",
                     company="Acme", period=period, answer=f"Acme's net income was ${text} {cite.label()}.",
                     value=NumericValue(text=text, value=value, scale=scale, unit="USD", period=period),
                     display=f"${text}", quote=cite.quote, citation=cite, citations=[cite],
                     checks=[Check(name="scale", passed=False, detail="no scale")])


def test_a_figure_tagged_for_another_period_is_refused() -> None:
    # the six months' figure read as the quarter: the tag says what it is
    source = _Source([_fact("1,200", 1_200e6, "FY2025H1", 6)])
    out = cross_check(_read("1,200", 1200, 1e6, "FY2025Q2"), source)
    assert out.status == "not_found" and "FY2025H1" in out.missing and out.value is None


def test_a_figure_read_without_scale_takes_the_scale_of_its_tag() -> None:
    source = _Source([_fact("1,200", 1_200e6, "FY2025Q2", 3)])
    out = cross_check(_read("1,200", 1200, 1.0, "FY2025Q2"), source)
    assert out.status == "found" and out.value is not None and out.value.absolute == 1_200e6
    assert "million" in out.answer and any(c.name == "scale" and c.passed for c in out.checks)


def test_an_agreeing_tag_adds_a_check_and_an_untagged_figure_is_left_alone() -> None:
    agreeing = cross_check(_read("1,200", 1200, 1e6, "FY2025Q2"), _Source([_fact("1,200", 1_200e6, "FY2025Q2", 3)]))
    assert agreeing.status == "found" and "agrees with the filer's tag" in agreeing.checks[-1].detail
    untouched = _read("1,200", 1200, 1e6, "FY2025Q2")
    assert cross_check(untouched, _Source([_fact("7", 7e6, "FY2025Q2", 3)])) == untouched


def test_facts_answer_only_the_parts_asked_and_no_other_company() -> None:
    plain = _fact("1,200", 1_200e6, "FY2025Q2", 3)
    segment = plain.model_copy(update={"fact_id": "f-seg", "value": 300e6, "text": "300",
                                       "dimensions": {"us-gaap:StatementBusinessSegmentsAxis": "acme:RocketsMember"}})
    filing = FactFiling(doc_name="ACME_10Q", company="Acme Corp", fiscal_period="FY2025Q2", facts=[plain, segment])

    def sub(question: str, terms: list[str] = ()) -> SubQuery:  # type: ignore[assignment]
        intent = QueryIntent(question=question, names=question_names(question), metrics=["net income"],
                             requires_numeric=True,
                             temporal_scope=TemporalScope(periods=["FY2025Q2"]),
                             scope=[ScopeTerm(text=t, metric="net income") for t in terms])
        return SubQuery(id="q", question=question, company="Acme Corp", metric="net income", period="FY2025Q2",
                        intent=intent)

    source = _Source([], [filing])
    whole = answer_from_facts(sub("What was Acme Corp's net income in Q2 2025?"), source)
    assert whole is not None and whole.value is not None and whole.value.absolute == 1_200e6
    rockets = answer_from_facts(sub("What was Acme Corp's net income of Rockets in Q2 2025?", ["rockets"]), source)
    assert rockets is not None and rockets.value is not None and rockets.value.absolute == 300e6
    assert answer_from_facts(sub("Acme Corp's net income in Europe in Q2 2025?", ["europe"]), source) is None
    assert answer_from_facts(sub("What was Acme Corp's net income next to Globex in Q2 2025?"), source) is None
    # a tagged fact is as reported: never the adjusted figure, whatever the plan's parts
    adjusted = sub("What was Acme Corp's adjusted net income in Q2 2025?")
    adjusted.intent.wording.basis = [Basis.ADJUSTED]
    assert answer_from_facts(adjusted, source) is None


# ---------------------------------------------------------------------------------------------------------
# A retailer whose fiscal year ends in early February, typeset here as inline XBRL
# ---------------------------------------------------------------------------------------------------------
def _ix(name: str, context: str, value: str, scale: int = 6, sign: str = "") -> str:
    signed = f' sign="{sign}"' if sign else ""
    return (f'<ix:nonFraction name="us-gaap:{name}" contextRef="{context}" unitRef="usd" decimals="-6" '
            f'scale="{scale}" format="ixt:num-dot-decimal" id="{name}-{context}"{signed}>{value}</ix:nonFraction>')


def _context(cid: str, start: str, end: str) -> str:
    return (f'<xbrli:context id="{cid}"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0000999999'
            f'</xbrli:identifier></xbrli:entity><xbrli:period><xbrli:startDate>{start}</xbrli:startDate>'
            f'<xbrli:endDate>{end}</xbrli:endDate></xbrli:period></xbrli:context>')


HARBOR_10Q = f"""<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:ix="http://www.xbrl.org/2013/inlineXBRL"
 xmlns:xbrli="http://www.xbrl.org/2003/instance" xmlns:us-gaap="http://fasb.org/us-gaap/2024"
 xmlns:dei="http://xbrl.sec.gov/dei/2024" xmlns:iso4217="http://www.xbrl.org/2003/iso4217"
 xmlns:ixt="http://www.xbrl.org/inlineXBRL/transformation/2020-02-12"><head><title>Harbor Goods 10-Q</title></head>
<body>
<div style="display:none"><ix:header><ix:hidden>
<ix:nonNumeric name="dei:DocumentType" contextRef="q2">10-Q</ix:nonNumeric>
<ix:nonNumeric name="dei:EntityRegistrantName" contextRef="q2">Harbor Goods Inc.</ix:nonNumeric>
<ix:nonNumeric name="dei:EntityCentralIndexKey" contextRef="q2">0000999999</ix:nonNumeric>
<ix:nonNumeric name="dei:DocumentFiscalYearFocus" contextRef="q2">2025</ix:nonNumeric>
<ix:nonNumeric name="dei:DocumentFiscalPeriodFocus" contextRef="q2">Q2</ix:nonNumeric>
<ix:nonNumeric name="dei:CurrentFiscalYearEndDate" contextRef="q2">--01-31</ix:nonNumeric>
<ix:nonNumeric name="dei:DocumentPeriodEndDate" contextRef="q2">August 2, 2025</ix:nonNumeric>
</ix:hidden><ix:resources>
{_context("q2", "2025-05-04", "2025-08-02")}{_context("q2ly", "2024-05-05", "2024-08-03")}
{_context("h1", "2025-02-02", "2025-08-02")}{_context("h1ly", "2024-02-04", "2024-08-03")}
<xbrli:unit id="usd"><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unit>
</ix:resources></ix:header></div>
<p>UNITED STATES SECURITIES AND EXCHANGE COMMISSION</p><p>FORM 10-Q</p>
<p>QUARTERLY REPORT for the quarterly period ended August 2, 2025</p><p>Harbor Goods Inc.</p>
<h2>CONSOLIDATED STATEMENTS OF OPERATIONS</h2><p>(in millions)</p>
<table>
<tr><td></td><td>Three Months Ended</td><td></td><td>Six Months Ended</td><td></td></tr>
<tr><td></td><td>August 2, 2025</td><td>August 3, 2024</td><td>August 2, 2025</td><td>August 3, 2024</td></tr>
<tr><td>Net sales</td><td>$</td><td>{_ix("Revenues", "q2", "4,210")}</td><td>$</td><td>{_ix("Revenues", "q2ly", "3,980")}</td>
<td>$</td><td>{_ix("Revenues", "h1", "8,105")}</td><td>$</td><td>{_ix("Revenues", "h1ly", "7,730")}</td></tr>
<tr><td>Net income (loss)</td><td>{_ix("NetIncomeLoss", "q2", "112")}</td><td>({_ix("NetIncomeLoss", "q2ly", "25", sign="-")})</td>
<td>{_ix("NetIncomeLoss", "h1", "190")}</td><td>{_ix("NetIncomeLoss", "h1ly", "41")}</td></tr>
</table>
</body></html>
"""


@pytest.fixture(scope="module")
def harbor(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return ingested_typeset(tmp_path_factory.mktemp("harbor"), "harbor-20250802.htm", HARBOR_10Q)


def test_a_january_year_end_names_its_quarters_as_the_filer_does(harbor: Settings) -> None:
    with Store.open(harbor) as store:
        meta = store.get_document("harbor-20250802")
        # a January year-end the filer names by the year it began: its text is labelled its way too (13)
        assert (meta.company, meta.fiscal_period, meta.fy_end_month) == ("Harbor Goods Inc.", "FY2025Q2", 13)
        facts = {f.fact_id: f for f in store.facts([meta.doc_id])}
    assert facts["Revenues-q2"].period == "FY2025Q2" and facts["Revenues-q2"].period_by_dates == "FY2026Q2"
    assert facts["Revenues-h1"].period == "FY2025H1" and facts["NetIncomeLoss-q2ly"].value == -25e6


@pytest.mark.parametrize(("question", "figure"), [
    ("What were Harbor Goods' net sales in the second quarter of fiscal 2025?", "$4,210 million"),
    ("What were Harbor Goods' net sales for the three months ended August 3, 2024?", "$3,980 million"),
    ("What were Harbor Goods' net sales for the six months ended August 2, 2025?", "$8,105 million"),
    ("What was Harbor Goods' net income for the three months ended August 3, 2024?", "-$25 million"),
])
def test_a_january_year_end_10q_answers_each_column(
    question: str, figure: str, harbor: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    answer = ask(question, harbor, capsys)
    assert figure in answer and "[harbor-20250802, p. 1]" in answer, answer


BROKEN_TAGS = """<html xmlns:ix="http://www.xbrl.org/2013/inlineXBRL"><body><p>Broken Co annual report</p>
<table><tr><td>Revenue</td><td><ix:nonFraction name="us-gaap:Revenues" contextRef="nowhere" unitRef="usd" scale="6"
 id="f1">abc</ix:nonFraction></td></tr>
<tr><td>Net income</td><td><ix:nonFraction name="us-gaap:NetIncomeLoss" contextRef="c1" unitRef="zzz" scale="x"
 id="f2">1,000</ix:nonFraction></td></tr></table><p>Revenue grew in the year.</p></body></html>"""


def test_broken_tags_leave_the_text_ingested(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agent.errors import IngestError
    from agent.ingest import pipeline

    path = tmp_path / "broken.htm"
    path.write_text(BROKEN_TAGS, encoding="utf-8")
    settings = Settings.from_env(home=tmp_path / "home")
    with open_ingestor(settings) as ingestor:
        report = ingestor.ingest_file(path)
    assert report.status == "ingested" and report.facts == 0  # no context, no number: nothing to state

    def unreadable(*args: object, **kwargs: object) -> None:
        raise IngestError(str(path), "inline XBRL could not be read: boom")

    monkeypatch.setattr(pipeline, "read_facts", unreadable)
    other = tmp_path / "broken2.htm"
    other.write_text(BROKEN_TAGS.replace("Broken Co", "Broken Two"), encoding="utf-8")
    with open_ingestor(settings) as ingestor:
        report = ingestor.ingest_file(other)
    assert report.status == "ingested" and report.chunks >= 1
    assert report.warnings and "ingested as text" in report.warnings[0]
