"""``finrag fetch``: EDGAR look-ups, pacing, back-off, resumable downloads and the ingest that follows, all over
recorded responses (EDGAR's JSON and index-page shapes, trimmed to the rows used); never the network."""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

import pytest

from agent.config import Settings
from agent.index.store import Store
from cli import ask_cmd, fetch_cmd
from tools.edgar import MAX_TRIES, DocumentRef, EdgarClient, EdgarError, FilingRef, Response

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "edgar"
AGENT = "Jane Analyst jane@example.com"
CIK = "0000320193"
LOCAL = "http://127.0.0.1"  # the host a local server answers to
TEN_Q = "0000320193-25-000057"
EIGHT_K = "0000320193-25-000055"

TICKERS = {"0": {"cik_str": 320193, "ticker": "AAPL", "title": "Apple Inc."},
           "1": {"cik_str": 789019, "ticker": "MSFT", "title": "MICROSOFT CORP"}}
SUBMISSIONS = {
    "cik": "320193", "name": "Apple Inc.", "tickers": ["AAPL"],
    "filings": {"recent": {
        "accessionNumber": [TEN_Q, EIGHT_K, "0000320193-24-000123", "0000320193-25-000008"],
        "filingDate": ["2025-05-02", "2025-05-01", "2024-11-01", "2025-01-31"],
        "reportDate": ["2025-03-29", "2025-05-01", "2024-09-28", "2024-12-28"],
        "form": ["10-Q", "8-K", "10-K", "10-Q"],
        "items": ["", "2.02,9.01", "", ""],
        "primaryDocument": ["aapl-20250329.htm", "aapl-20250501.htm", "aapl-20240928.htm", "aapl-20241228.htm"],
    }},
}
INDEX_PAGE = b"""<html><body><table class="tableFile" summary="Document Format Files">
<tr><th>Seq</th><th>Description</th><th>Document</th><th>Type</th><th>Size</th></tr>
<tr><td>1</td><td>8-K</td><td><a href="/Archives/edgar/data/320193/000032019325000055/aapl-20250501.htm">aapl-20250501.htm</a></td><td>8-K</td><td>31000</td></tr>
<tr><td>2</td><td>EX-99.1</td><td><a href="/Archives/edgar/data/320193/000032019325000055/a8-kex991q2202503292025.htm">a8-kex991q2202503292025.htm</a></td><td>EX-99.1</td><td>1200</td></tr>
</table></body></html>"""
RELEASE = b"""<html><body><p>Apple reports second quarter results</p>
<p>CUPERTINO, California - May 1, 2025 - Apple today announced financial results for its fiscal 2025 second quarter
ended March 29, 2025. The Company posted quarterly revenue of $95.4 billion.</p></body></html>"""


def apple_10q() -> bytes:
    return gzip.decompress((FIXTURES / "aapl-20250329.htm.gz").read_bytes())


class Recorded:
    """A transport replaying recorded responses by URL; it keeps every request it was sent."""

    def __init__(self, replies: dict[str, list[Response] | Response]) -> None:
        self.replies = {url: r if isinstance(r, list) else [r] for url, r in replies.items()}
        self.sent: list[tuple[str, dict[str, str]]] = []

    def __call__(self, url: str, headers: dict[str, str]) -> Response:
        self.sent.append((url, headers))
        queue = self.replies.get(url)
        if not queue:
            return Response(status=404, body=b"Not Found")
        return queue.pop(0) if len(queue) > 1 else queue[0]


def recorded() -> Recorded:
    archive = "https://www.sec.gov/Archives/edgar/data/320193"
    return Recorded({
        "https://www.sec.gov/files/company_tickers.json": Response(status=200, body=json.dumps(TICKERS).encode()),
        f"https://data.sec.gov/submissions/CIK{CIK}.json": Response(
            status=200, body=gzip.compress(json.dumps(SUBMISSIONS).encode()), headers={"content-encoding": "gzip"}),
        f"{archive}/000032019325000057/aapl-20250329.htm": Response(status=200, body=apple_10q()),
        f"{archive}/000032019325000055/{EIGHT_K}-index.htm": Response(status=200, body=INDEX_PAGE),
        f"{archive}/000032019325000055/a8-kex991q2202503292025.htm": Response(status=200, body=RELEASE),
    })


class Clock:
    """Simulated time: sleeping advances it."""

    def __init__(self) -> None:
        self.now, self.slept = 0.0, []

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds

    def __call__(self) -> float:
        return self.now


def fetch(argv: list[str], settings: Settings, transport: Recorded, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    parser = argparse.ArgumentParser(prog="finrag")
    fetch_cmd.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["fetch", *argv, "--no-progress"])
    code = fetch_cmd.run(args, settings, transport=transport)
    out, err = capsys.readouterr()
    return code, out + err


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings.from_env(home=tmp_path / "home", sec_user_agent=AGENT)


def test_fetch_downloads_the_quarter_and_ingests_it_with_its_facts(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    transport = recorded()
    code, said = fetch(["AAPL", "--form", "10-Q", "--year", "2025", "--limit", "1"], settings, transport, capsys)
    assert code == 0, said
    saved = settings.home / "filings" / CIK / TEN_Q / "aapl-20250329.htm"
    assert saved.read_bytes() == apple_10q()
    assert "Apple Inc. (CIK 0000320193): 1 10-Q filing(s), 1 file(s)" in said and "674 XBRL facts" in said
    assert all(h["User-Agent"] == AGENT for _, h in transport.sent)
    with Store.open(settings) as store:
        meta = store.get_document("aapl-20250329")
        assert (meta.company, meta.fiscal_period, meta.filing_date, meta.n_facts) == (
            "Apple Inc.", "FY2025Q2", "2025-05-02", 674)
    parser = argparse.ArgumentParser(prog="finrag")
    ask_cmd.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["ask", "What were Apple's iPhone net sales for the six months ended March 29, 2025?"])
    assert args.func(args, settings) == 0
    assert "$115,979 million" in capsys.readouterr().out

    # a second run downloads nothing again and finds the filing unchanged in the index
    again = recorded()
    code, said = fetch(["AAPL", "--form", "10-Q", "--year", "2025", "--limit", "1"], settings, again, capsys)
    assert code == 0 and "have" in said and "1 unchanged" in said
    assert not any(url.endswith(".htm") for url, _ in again.sent)


def test_earnings_fetches_the_press_release_exhibit_of_a_results_8k(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    code, said = fetch(["320193", "--form", "earnings", "--no-ingest"], settings, recorded(), capsys)
    assert code == 0, said
    assert (settings.home / "filings" / CIK / EIGHT_K / "a8-kex991q2202503292025.htm").read_bytes() == RELEASE
    assert not (settings.home / "filings" / CIK / EIGHT_K / "aapl-20250501.htm").exists()  # the 8-K cover is not asked


def test_without_a_user_agent_fetch_says_how_to_set_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bare = Settings.from_env(home=tmp_path / "home", sec_user_agent="")
    transport = recorded()
    code, said = fetch(["AAPL"], bare, transport, capsys)
    assert code == 2 and "FINRAG_SEC_USER_AGENT" in said and not transport.sent


def test_an_unknown_ticker_and_a_year_without_filings_are_one_clear_line(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    code, said = fetch(["ZZZZ"], settings, recorded(), capsys)
    assert code == 2 and "no company with the ticker 'ZZZZ'" in said
    code, said = fetch(["AAPL", "--form", "10-K", "--year", "2019"], settings, recorded(), capsys)
    assert code == 1 and "lists no 10-K filing of Apple Inc. for 2019" in said


def test_requests_keep_to_ten_a_second() -> None:
    clock = Clock()
    client = EdgarClient(AGENT, transport=recorded(), sleep=clock.sleep, clock=clock)
    for _ in range(25):
        client.request("https://www.sec.gov/files/company_tickers.json")
    assert client.requests == 25 and clock.now >= 2.4 - 1e-9  # 25 requests: 24 intervals of 0.1 s at least


def test_back_off_on_429_and_a_clear_error_when_edgar_never_answers() -> None:
    url = "https://www.sec.gov/files/company_tickers.json"
    slow = Response(status=429, headers={"retry-after": "3"})
    clock = Clock()
    client = EdgarClient(AGENT, transport=Recorded({url: [slow, slow, Response(status=200, body=b"{}")]}),
                         sleep=clock.sleep, clock=clock)
    assert client.json(url) == {}
    backoffs = [s for s in clock.slept if s >= 1.0]
    assert backoffs == [3.0, 6.0]  # Retry-After honoured, then doubled

    class Down:
        def __call__(self, url: str, headers: dict[str, str]) -> Response:
            raise OSError("Network is unreachable")

    clock = Clock()
    client = EdgarClient(AGENT, transport=Down(), sleep=clock.sleep, clock=clock)
    with pytest.raises(EdgarError, match=f"after {MAX_TRIES} tries: network error"):
        client.request(url)
    with pytest.raises(EdgarError, match="HTTP 404"):
        EdgarClient(AGENT, transport=Recorded({}), sleep=clock.sleep, clock=clock).request(url)


def test_a_partial_download_is_continued_with_a_range_request(tmp_path: Path) -> None:
    body = apple_10q()
    filing = FilingRef(cik=CIK, accession=TEN_Q, form="10-Q", filing_date="2025-05-02",
                       primary_document="aapl-20250329.htm")
    doc = DocumentRef(filing=filing, name="aapl-20250329.htm")
    (tmp_path / "aapl-20250329.htm.part").write_bytes(body[:1000])
    transport = Recorded({doc.url: Response(status=206, body=body[1000:])})
    clock = Clock()
    path, fresh = EdgarClient(AGENT, transport=transport, sleep=clock.sleep, clock=clock).download(doc, tmp_path)
    assert fresh and path.read_bytes() == body and not (tmp_path / "aapl-20250329.htm.part").exists()
    assert transport.sent[0][1]["Range"] == "bytes=1000-"
    # complete already: nothing is asked again
    assert EdgarClient(AGENT, transport=transport, sleep=clock.sleep, clock=clock).download(doc, tmp_path) == (path, False)
    assert len(transport.sent) == 1


def test_a_hostile_file_name_from_an_index_page_stays_inside_the_folder(tmp_path: Path) -> None:
    filing = FilingRef(cik=CIK, accession=EIGHT_K, form="8-K", filing_date="2025-05-01", primary_document="x.htm")
    doc = DocumentRef(filing=filing, name="../../.bashrc")
    clock = Clock()
    path, _ = EdgarClient(AGENT, transport=Recorded({doc.url: Response(status=200, body=b"x")}),
                          sleep=clock.sleep, clock=clock).download(doc, tmp_path)
    assert path.parent == tmp_path and not path.name.startswith(".")


def test_the_browser_fetches_and_ingests_with_progress(settings: Settings) -> None:
    from starlette.testclient import TestClient

    from graphs.http import build_app

    with TestClient(build_app(settings, edgar_transport=recorded()), base_url=LOCAL) as client:
        reply = client.post("/api/fetch", json={"company": "AAPL", "form": "10-Q", "year": 2025})
        assert reply.status_code == 200
        events = [json.loads(line) for line in reply.text.splitlines()]
        kinds = [e["event"] for e in events]
        assert kinds[0] == "downloaded" and "found" in kinds and "progress" in kinds and kinds[-1] == "result"
        report = events[-1]["report"]
        assert report["status"] == "ingested" and report["facts"] == 674
        assert report["path"] == f"filings/{CIK}/{TEN_Q}/aapl-20250329.htm"  # never the server's own paths
        assert client.get("/api/docs").json()[0]["name"] == "aapl-20250329"
        bad = client.post("/api/fetch", json={"company": "../etc", "form": "10-Q"})
        assert bad.status_code == 400 and "company" in bad.json()["error"]


def test_the_browser_is_told_to_set_a_user_agent(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from graphs.http import build_app

    bare = Settings.from_env(home=tmp_path / "home", sec_user_agent="")
    with TestClient(build_app(bare, edgar_transport=recorded()), base_url=LOCAL) as client:
        reply = client.post("/api/fetch", json={"company": "AAPL"})
        assert reply.status_code == 400 and "FINRAG_SEC_USER_AGENT" in reply.json()["error"]


def test_the_real_transport_refuses_a_reply_larger_than_any_filing(monkeypatch: pytest.MonkeyPatch) -> None:
    import contextlib
    import http.server
    import socketserver
    import threading

    import tools.edgar as edgar

    class Huge(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the handler's own name
            self.send_response(200)
            self.send_header("Content-Length", str(3 << 20))
            self.end_headers()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client stopped reading
                self.wfile.write(b"x" * (3 << 20))

        def log_message(self, *args: object) -> None:
            pass

    server = socketserver.TCPServer(("127.0.0.1", 0), Huge)  # this machine only
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/filing.htm"
        monkeypatch.setattr(edgar, "MAX_DOWNLOAD_MB", 1.0)
        with pytest.raises(EdgarError, match="over 1 MB"):
            edgar.urllib_transport(url, {"User-Agent": AGENT})
        monkeypatch.setattr(edgar, "MAX_DOWNLOAD_MB", 10.0)
        assert len(edgar.urllib_transport(url, {"User-Agent": AGENT}).body) == 3 << 20
    finally:
        server.shutdown()
        server.server_close()
