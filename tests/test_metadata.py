"""Document metadata from file names and cover pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.ingest.metadata import MetadataGuess, detect_metadata, parse_file_name
from agent.schemas import Page

TEN_K_COVER = """UNITED STATES
SECURITIES AND EXCHANGE COMMISSION
Washington, D.C. 20549
Form 10-K
☑ ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2022
OR
☐ TRANSITION REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
Commission File No. 1-7657
American Express Company
(Exact name of registrant as specified in its charter)
Securities registered pursuant to Section 12(b) of the Act:
Title of each class Trading Symbol(s) Name of each exchange on which registered
Common Shares (par value $0.20 per Share) AXP New York Stock Exchange"""

TEN_Q_COVER = """FORM 10-Q
☒ QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d)
For the quarterly period ended July 2, 2023
COMMISSION FILE NUMBER 1-3619
PFIZER INC.
(Exact name of registrant as specified in its charter)
Title of each class Trading Symbol(s) Name of each exchange on which registered
Common Stock, $0.05 par value PFE New York Stock Exchange"""

EIGHT_K_COVER = """FORM 8-K
CURRENT REPORT
Pursuant to Section 13 or 15(d) of the Securities Exchange Act of 1934
Date of Report (Date of earliest event reported): May 3, 2023
PepsiCo, Inc.
(Exact name of registrant as specified in its charter)
Title of each class Trading Symbol(s) Name of each exchange on which registered
Common Stock, par value 1-2/3 cents per share PEP The Nasdaq Stock Market LLC"""

RELEASE = """March 9, 2023
Ulta Beauty Announces Fourth Quarter
Fiscal 2022 Results
BOLINGBROOK, Ill.--(BUSINESS WIRE)-- Ulta Beauty, Inc. (NASDAQ: ULTA) today
announced financial results for the thirteen-week period ended January 28, 2023"""

OLD_10K_COVER = """FORM 10-K
For the fiscal year ended December 31, 2018
Commission file number 1-3285
3M COMPANY
State of Incorporation: Delaware"""


def pages(*texts: str) -> list[Page]:
    return [Page(page=i, text=t) for i, t in enumerate(texts)]


@pytest.mark.parametrize(
    ("name", "company", "year", "quarter", "form", "dated"),
    [
        ("3M_2018_10K.pdf", "3M", 2018, None, "10-K", ""),
        ("MGMRESORTS_2023Q2_10Q.pdf", "MGMRESORTS", 2023, 2, "10-Q", ""),
        ("PEPSICO_2023_8K_dated-2023-05-05.pdf", "PEPSICO", 2023, None, "8-K", "2023-05-05"),
        ("FOOTLOCKER_2022_8K_dated_2022-08-19.pdf", "FOOTLOCKER", 2022, None, "8-K", "2022-08-19"),
        ("ULTABEAUTY_2023Q4_EARNINGS.pdf", "ULTABEAUTY", 2023, 4, "EARNINGS", ""),
        ("american_water_works_2021_10-K.htm", "american water works", 2021, None, "10-K", ""),
        ("notes.md", "", None, None, "", ""),
    ],
)
def test_file_name_hints(name: str, company: str, year: int | None, quarter: int | None, form: str, dated: str) -> None:
    hints = parse_file_name(Path(name))
    assert (hints.company, hints.year, hints.quarter, hints.form, hints.dated) == (company, year, quarter, form, dated)


def test_ten_k_cover() -> None:
    guess = detect_metadata(Path("AMERICANEXPRESS_2022_10K.pdf"), pages(TEN_K_COVER))
    assert guess == MetadataGuess(
        company="American Express Company", company_source="cover", file_number="001-07657", ticker="AXP",
        form="10-K", fiscal_year=2022,
        fiscal_period="FY2022", period_end="2022-12-31", fy_end_month=12, filing_date="",
    )


def test_cover_wins_over_a_bare_file_name() -> None:
    guess = detect_metadata(Path("download.pdf"), pages(TEN_Q_COVER))
    # July 2 ends the second quarter of a 52/53-week year: the period is named after June.
    assert guess == MetadataGuess(
        company="Pfizer Inc.", company_source="cover", file_number="001-03619", ticker="PFE", form="10-Q",
        fiscal_year=2023,
        fiscal_period="FY2023Q2", period_end="2023-07-02", filing_date="",
    )


def test_a_name_printed_before_its_caption_on_one_line_is_the_registrant() -> None:
    cover = TEN_Q_COVER.replace("PFIZER INC.\n(Exact", "PFIZER INC. (Exact")
    guess = detect_metadata(Path("PFE_2023Q2_10Q.pdf"), pages(cover))
    assert (guess.company, guess.company_source) == ("Pfizer Inc.", "cover")  # not 'PFE' from the file name


def test_eight_k_dates() -> None:
    guess = detect_metadata(Path("PEPSICO_2023_8K_dated-2023-05-05.pdf"), pages(EIGHT_K_COVER))
    assert (guess.company, guess.ticker, guess.form, guess.fiscal_period, guess.filing_date) == (
        "PepsiCo, Inc.", "PEP", "8-K", "FY2023", "2023-05-05"
    )
    undated = detect_metadata(Path("pepsico_8k.pdf"), pages(EIGHT_K_COVER))
    assert (undated.filing_date, undated.fiscal_year, undated.fiscal_period) == ("2023-05-03", 2023, "FY2023")


def test_earnings_release() -> None:
    guess = detect_metadata(Path("ULTABEAUTY_2023Q4_EARNINGS.pdf"), pages(RELEASE))
    assert (guess.company, guess.ticker, guess.form, guess.fiscal_year, guess.fiscal_period) == (
        "Ulta Beauty, Inc.", "ULTA", "EARNINGS", 2023, "FY2023Q4"
    )
    unnamed = detect_metadata(Path("release.pdf"), pages(RELEASE))
    assert unnamed.form == "EARNINGS" and unnamed.company == "Ulta Beauty, Inc."


def test_name_after_commission_number_and_ticker_in_the_text() -> None:
    business = "Item 1. Business\nThe Company’s ticker symbol is MMM. As used herein, the term “3M” means 3M."
    guess = detect_metadata(Path("3M_2018_10K.pdf"), pages(OLD_10K_COVER, "Table of Contents", business))
    assert (guess.company, guess.ticker, guess.form, guess.period_end, guess.fiscal_period) == (
        "3M Company", "MMM", "10-K", "2018-12-31", "FY2018"
    )


def test_fiscal_year_named_by_its_end_and_small_caps_names() -> None:
    cover = (
        "FORM 10-K\nFOR THE FISCAL YEAR ENDED MAY 31, 2019\nCommission File No. 1-10635\n"
        "MGM R ESORTS I NTERNATIONAL\n(Exact name of Registrant as specified in its charter)"
    )
    guess = detect_metadata(Path("annual.pdf"), pages(cover))
    assert (guess.company, guess.fiscal_year, guess.fiscal_period, guess.period_end) == (
        "MGM Resorts International", 2019, "FY2019", "2019-05-31"
    )


def test_nothing_known_stays_empty() -> None:
    assert detect_metadata(Path("notes.txt"), pages("some plain notes about nothing")) == MetadataGuess()


SIGNATURES = """SIGNATURES
Pursuant to the requirements of Section 13 or 15(d) of the Securities Exchange Act of 1934, PepsiCo has duly
caused this report to be signed on its behalf by the undersigned, thereunto duly authorized.
Dated: February 8, 2023
PepsiCo, Inc."""


def test_filing_date_from_the_signature_page() -> None:
    cover = TEN_K_COVER
    guess = detect_metadata(Path("AMERICANEXPRESS_2022_10K.pdf"), pages(cover, "Item 1. Business", SIGNATURES))
    assert guess.filing_date == "2023-02-08"
    # A signature dated before the period ends (a quoted older report) is no filing date.
    early = SIGNATURES.replace("February 8, 2023", "February 8, 2022")
    assert detect_metadata(Path("X_2022_10K.pdf"), pages(cover, early)).filing_date == ""


@pytest.mark.parametrize("dateline", [
    "PURCHASE, N.Y. - April 25, 2023 - PepsiCo, Inc. today reported results for the first quarter.",
    "Las Vegas, Nevada, April 25, 2023 – MGM Resorts International today reported results.",
    "April 25, 2023\nContoso Reports First Quarter Results",
])
def test_filing_date_from_a_release_dateline(dateline: str) -> None:
    text = f"Contoso Reports First-Quarter 2023 Results\nfor the quarter ended March 25, 2023\n{dateline}"
    guess = detect_metadata(Path("CONTOSO_2023Q1_EARNINGS.pdf"), pages(text))
    assert guess.filing_date == "2023-04-25"


def test_a_cover_whose_name_is_an_image_takes_the_registrant_the_signatures_name() -> None:
    # The cover's text layer has no name above '(Exact name of Registrant ...)' (a logo); the signature block has.
    cover = ("FORM 10-K\nFor the fiscal year ended December 31, 2017\nCommission File Number 001-02217\n"
             "(Exact name of Registrant as specified in its charter)\nDelaware")
    header = "ACME WIDGETS CORPORATION AND SUBSIDIARIES\nTable of Contents"
    body = "Acme Widgets Corporation makes widgets. Acme Widgets Corporation was founded in 1901."
    signatures = ("Pursuant to the requirements of Section 13 or 15(d) of the Securities Exchange Act of 1934, the "
                  "registrant has duly caused this report to be signed.\nACME WIDGETS CORPORATION\n(Registrant)\nBy:")
    guess = detect_metadata(Path("ACMEWIDGETS_2017_10K.pdf"), pages(cover, header, body, signatures))
    assert (guess.company, guess.company_source, guess.file_number) == ("Acme Widgets Corporation", "text", "001-02217")
    no_signatures = detect_metadata(Path("ACMEWIDGETS_2017_10K.pdf"), pages(cover, header, body))
    assert no_signatures.company == "Acme Widgets Corporation"


def test_ticker_over_its_caption() -> None:
    # the cover prints each field's caption under it, the trading-symbol row included
    cover = (
        "FORM 10-K\nFOR THE FISCAL YEAR ENDED MAY 31, 2023\nCommission File No. 1-10635\nWINGTIP, Inc.\n"
        "(Exact name of Registrant as specified in its charter)\n"
        "SECURITIES REGISTERED PURSUANT TO SECTION 12(B) OF THE ACT:\n"
        "Class B Common Stock WTP New York Stock Exchange\n"
        "(Title of each class) (Trading symbol) (Name of each exchange on which registered)\n"
        "SECURITIES REGISTERED PURSUANT TO SECTION 12(G) OF THE ACT:\nNONE"
    )
    guess = detect_metadata(Path("annual.pdf"), pages(cover))
    assert (guess.company, guess.ticker) == ("WINGTIP, Inc.", "WTP")
