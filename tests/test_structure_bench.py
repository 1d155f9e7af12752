"""The table-structure benchmark (issue 58, item 4) on a typeset inline-XBRL release: the filing printed to PDF by
headless Chromium, read like any PDF, and scored against its own tags. The release's header groups each year's
'Amount | Percent to Sales' under the year and the years under 'SECOND QUARTER'; read from the page's text alone
its figures have no period, read from where the words stand each has the quarter the filer tagged."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agent.errors import FinragError
from evals.structure_bench import print_to_pdf, render, run_structure_bench, tagged_table_facts

pytestmark = pytest.mark.skipif(
    not (shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")),
    reason="Chromium prints the filing to PDF (Debian: apt-get install chromium; CI installs it)",
)

CONTEXTS = {"q2_2023": ("2023-04-01", "2023-07-01"), "q2_2022": ("2022-04-03", "2022-07-02")}
ROWS = [  # label, (2023 amount, % of sales), (2022 amount, % of sales), change, concept
    ("Net sales", ("5,221,400", "100.00%"), ("5,010,900", "100.00%"), "4.2%", "Revenues"),
    ("Cost of sales", ("3,401,200", "65.14"), ("3,280,100", "65.46"), "3.7", "CostOfRevenue"),
    ("Gross margin", ("1,820,200", "34.86"), ("1,730,800", "34.54"), "5.2", "GrossProfit"),
    ("Operating income", ("717,900", "13.75"), ("680,400", "13.58"), "5.5", "OperatingIncomeLoss"),
    ("Net earnings", ("540,100", "10.34"), ("512,300", "10.22"), "5.4", "NetIncomeLoss"),
]


def _release() -> str:
    contexts = "".join(
        f'<xbrli:context id="{cid}"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0000000001'
        f"</xbrli:identifier></xbrli:entity><xbrli:period><xbrli:startDate>{start}</xbrli:startDate>"
        f"<xbrli:endDate>{end}</xbrli:endDate></xbrli:period></xbrli:context>"
        for cid, (start, end) in CONTEXTS.items())

    def tagged(concept: str, context: str, text: str) -> str:
        return (f'<ix:nonFraction name="us-gaap:{concept}" contextRef="{context}" unitRef="usd" id="{concept}-'
                f'{context}" decimals="-3" scale="3" format="ixt:num-dot-decimal">{text}</ix:nonFraction>')

    rows = "".join(
        f"<tr><td>{label}</td><td>{tagged(concept, 'q2_2023', a[0])}</td><td>{a[1]}</td>"
        f"<td>{tagged(concept, 'q2_2022', b[0])}</td><td>{b[1]}</td><td>{change}</td></tr>"
        for label, a, b, change, concept in ROWS)
    return f"""<html xmlns="http://www.w3.org/1999/xhtml" xmlns:ix="http://www.xbrl.org/2013/inlineXBRL"
 xmlns:xbrli="http://www.xbrl.org/2003/instance" xmlns:us-gaap="http://fasb.org/us-gaap/2023"
 xmlns:ixt="http://www.xbrl.org/inlineXBRL/transformation/2020-02-12"
 xmlns:iso4217="http://www.xbrl.org/2003/iso4217"><head><title>Litware</title></head><body>
<div style="display:none"><ix:header><ix:resources>{contexts}
<xbrli:unit id="usd"><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unit></ix:resources></ix:header></div>
<p>Litware Stores, Inc. Reports Second Quarter 2023 Results</p>
<p>CONSOLIDATED STATEMENTS OF EARNINGS (Unaudited)</p><p>(in thousands, except per share data)</p>
<table style="width:90%;font-family:Helvetica;font-size:10pt">
<tr><td style="width:40%"></td><td colspan="5" style="text-align:center">SECOND QUARTER</td></tr>
<tr><td></td><td colspan="2" style="text-align:center">2023</td><td colspan="2" style="text-align:center">2022</td>
<td style="text-align:center">Percent</td></tr>
<tr><td></td><td style="text-align:right">Amount</td><td style="text-align:right">Percent to Sales</td>
<td style="text-align:right">Amount</td><td style="text-align:right">Percent to Sales</td>
<td style="text-align:right">Increase (Decrease)</td></tr>
{rows}</table></body></html>"""


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("structure") / "litware-20230701.htm"
    path.write_text(_release(), encoding="utf-8")
    return path


def test_the_ground_truth_is_the_filers_tags_inside_tables(release: Path) -> None:
    facts, fy_end_month, _ = tagged_table_facts(release)
    assert len(facts) == 2 * len(ROWS)
    assert {f.period for f in facts} == {"FY2023Q2", "FY2022Q2"} and fy_end_month == 12


def test_the_layout_reading_recovers_each_tagged_figure_with_its_period(release: Path) -> None:
    scores = {s.reader: s for s in run_structure_bench(release, ["layout", "text"])}
    layout, text = scores["layout"], scores["text"]
    assert layout.tagged == text.tagged == 2 * len(ROWS)
    assert layout.figure == text.figure == layout.tagged  # both find the numbers...
    assert layout.period == layout.part == layout.tagged  # ...the layout's reading puts each under its quarter
    assert text.period < layout.period  # the page's text alone does not say which column a year heads
    table = render(list(scores.values()))
    assert "| litware-20230701.htm | layout |" in table and "(100.0%)" in table


def test_an_unknown_reader_and_a_missing_chromium_say_so(release: Path, monkeypatch: pytest.MonkeyPatch,
                                                         tmp_path: Path) -> None:
    with pytest.raises(FinragError, match="unknown reader"):
        run_structure_bench(release, ["camelot"])
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(FinragError, match="install it"):
        print_to_pdf(release, tmp_path / "out.pdf")


def test_the_command_writes_its_table_and_says_what_is_wrong(release: Path, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    from cli.main import main

    assert main(["--home", str(tmp_path / "home"), "eval", "structure", str(release), "--readers", "layout",
                 "--out", str(tmp_path / "out")]) == 0
    assert "| litware-20230701.htm | layout |" in (tmp_path / "out" / "structure.md").read_text()
    assert main(["--home", str(tmp_path / "home"), "eval", "structure", "--readers", "camelot"]) != 0
    assert "unknown reader 'camelot'" in capsys.readouterr().err
    assert main(["--home", str(tmp_path / "home"), "eval", "structure", str(tmp_path / "none.htm")]) != 0
    assert "no such file" in capsys.readouterr().err
