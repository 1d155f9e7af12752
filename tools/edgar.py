"""Filings from SEC EDGAR: a company's 10-K, 10-Q, 8-K and earnings-release exhibits, downloaded for ingest.

The SEC asks every client to send a User-Agent that names a person or company and an e-mail address, and to make
at most 10 requests a second; this client refuses to run without the first (``FINRAG_SEC_USER_AGENT``) and keeps
to the second, backing off when told to slow down (HTTP 429 or 503) or when the network fails. Downloads are
resumable: a file is written as ``.part`` and renamed when complete; a later run skips complete files and asks for
the rest of a partial one. The transport is injectable, so tests replay recorded responses and never reach the
network.
"""

from __future__ import annotations

import gzip
import json
import re
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from agent.ingest.pipeline import MetadataOverrides

# The SEC's fair-access limit: at most 10 requests a second from one client.
MAX_REQUESTS_PER_SECOND = 10
# Tries per request before giving up; the wait doubles each time from BACKOFF_FIRST_S.
MAX_TRIES = 5
BACKOFF_FIRST_S = 1.0
TIMEOUT_S = 30.0  # one request; a filing is a few MB at most
MAX_DOWNLOAD_MB = 200.0  # the ingest limit (max_file_mb): a larger reply is refused while it is read
CHUNK_BYTES = 1 << 16  # written to the .part file a piece at a time, so an interrupted download keeps what came

FILINGS_DIR = "filings"  # under FINRAG_HOME: filings/<CIK>/<accession>/<file>
TICKERS_URL = "https://www.sec.gov/files/company_tickers.json"
SUBMISSIONS_URL = "https://data.sec.gov/submissions/CIK{cik}.json"
ARCHIVE_URL = "https://www.sec.gov/Archives/edgar/data/{cik}/{folder}/{name}"
FORMS = ("10-K", "10-Q", "8-K", "earnings")
_RETRY_STATUSES = {429, 500, 502, 503, 504}
_EARNINGS_ITEM = "2.02"  # 8-K item 2.02: Results of Operations and Financial Condition
_EXHIBIT_99_RE = re.compile(r"^EX-99(?:\.\d+)?$", re.IGNORECASE)
_USER_AGENT_RE = re.compile(r"\S+.*@\S+\.\S+")  # a name and an e-mail address


class EdgarError(Exception):
    """EDGAR could not be used: one clear sentence for the person at the terminal."""


class Response(BaseModel):
    """What the transport returns: status, body and the headers the client reads."""

    status: int
    body: bytes = b""
    headers: dict[str, str] = Field(default_factory=dict)


Transport = Callable[[str, dict[str, str]], Response]


class FilingRef(BaseModel):
    """One filing in a company's EDGAR submissions."""

    cik: str
    accession: str = Field(description="0000320193-25-000057")
    form: str
    filing_date: str
    report_date: str = ""
    primary_document: str
    items: str = Field(default="", description="8-K items, e.g. '2.02,9.01'")

    @property
    def folder(self) -> str:
        """The filing's folder in the archive: the accession number without dashes."""
        return self.accession.replace("-", "")


class DocumentRef(BaseModel):
    """One file of a filing to download."""

    filing: FilingRef
    name: str
    kind: str = Field(default="", description="the filing's primary document, or the exhibit type (EX-99.1)")

    @property
    def url(self) -> str:
        """Where EDGAR serves the file."""
        return ARCHIVE_URL.format(cik=int(self.filing.cik), folder=self.filing.folder, name=self.name)


def urllib_transport(url: str, headers: dict[str, str]) -> Response:
    """The real network, through urllib: HTTP errors are responses, network failures raise OSError."""
    request = urllib.request.Request(url, headers=headers)
    limit = int(MAX_DOWNLOAD_MB * 1024 * 1024)
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as reply:  # noqa: S310 - https URLs built here
            body = reply.read(limit + 1)
            if len(body) > limit:  # no filing is this large: stop before it fills memory
                raise EdgarError(f"{url} is over {MAX_DOWNLOAD_MB:g} MB; finrag does not download it")
            return Response(status=reply.status, body=body, headers={k.lower(): v for k, v in reply.headers.items()})
    except urllib.error.HTTPError as exc:
        return Response(status=exc.code, body=exc.read() or b"", headers={k.lower(): v for k, v in exc.headers.items()})


def check_user_agent(user_agent: str) -> str:
    """The User-Agent the SEC requires, or an :class:`EdgarError` that says how to set it."""
    user_agent = user_agent.strip()
    if not _USER_AGENT_RE.fullmatch(user_agent):
        raise EdgarError(
            "EDGAR needs a User-Agent that names you and an e-mail address: set FINRAG_SEC_USER_AGENT, e.g. "
            "export FINRAG_SEC_USER_AGENT='Jane Analyst jane@example.com' (the SEC's fair-access rule)"
        )
    return user_agent


class EdgarClient:
    """A polite EDGAR client: the User-Agent on every request, 10 requests a second at most, back-off on 429/5xx
    and network errors."""

    def __init__(
        self,
        user_agent: str,
        transport: Transport = urllib_transport,
        max_per_second: float = MAX_REQUESTS_PER_SECOND,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.user_agent = check_user_agent(user_agent)
        self.transport = transport
        self.interval = 1.0 / max_per_second
        self.sleep, self.clock = sleep, clock
        self._last = float("-inf")
        self.requests = 0

    def _paced(self) -> None:
        wait = self._last + self.interval - self.clock()
        if wait > 0:
            self.sleep(wait)
        self._last = self.clock()

    def request(self, url: str, headers: dict[str, str] | None = None) -> Response:
        """GET ``url`` with pacing and back-off; a 2xx (or 416 for a finished range) response, else EdgarError."""
        sent = {"User-Agent": self.user_agent, **(headers or {})}
        delay = BACKOFF_FIRST_S
        problem = ""
        for _ in range(MAX_TRIES):
            self._paced()
            self.requests += 1
            try:
                reply = self.transport(url, sent)
            except OSError as exc:
                if _name_unresolved(exc):  # no DNS answer is no passing congestion: retrying only makes the user wait
                    raise EdgarError(f"cannot reach EDGAR: {url.split('/')[2]} does not resolve (no network or no "
                                     "DNS); `finrag fetch` needs the internet, `finrag ingest` does not") from exc
                problem = f"network error ({exc})"
            else:
                if reply.status < 300 or reply.status == 416:
                    if reply.headers.get("content-encoding") == "gzip":
                        return reply.model_copy(update={"body": _gunzip(reply.body, url)})
                    return reply
                if reply.status not in _RETRY_STATUSES:
                    raise EdgarError(f"EDGAR answered HTTP {reply.status} for {url}")
                problem = f"HTTP {reply.status}"
                delay = max(delay, _retry_after(reply))
            self.sleep(delay)
            delay *= 2
        raise EdgarError(f"EDGAR did not answer {url} after {MAX_TRIES} tries: {problem}")

    def json(self, url: str) -> dict:
        """A JSON document from EDGAR."""
        body = self.request(url, {"Accept-Encoding": "gzip"}).body  # JSON compresses tenfold; files ask ranges
        try:
            return json.loads(body)
        except json.JSONDecodeError as exc:
            raise EdgarError(f"EDGAR sent something that is not JSON for {url}") from exc

    # ------------------------------------------------------------------------------------------------------
    def company(self, ticker_or_cik: str) -> tuple[str, str]:
        """(10-digit CIK, name) of a ticker ('AAPL') or a CIK ('320193')."""
        key = ticker_or_cik.strip()
        if key.isdigit():
            submissions = self.json(SUBMISSIONS_URL.format(cik=key.zfill(10)))
            return key.zfill(10), str(submissions.get("name", ""))
        for row in self.json(TICKERS_URL).values():
            if str(row.get("ticker", "")).upper() == key.upper():
                return str(row["cik_str"]).zfill(10), str(row.get("title", ""))
        raise EdgarError(f"no company with the ticker '{key}' on EDGAR (give its CIK instead)")

    def filings(self, cik: str, form: str, year: int | None = None, limit: int | None = None) -> list[FilingRef]:
        """The company's filings of ``form`` (newest first), of the report year ``year`` when given. ``earnings``
        is an 8-K that reports results (item 2.02)."""
        recent = self.json(SUBMISSIONS_URL.format(cik=cik)).get("filings", {}).get("recent", {})
        wanted = "8-K" if form == "earnings" else form.upper()
        out: list[FilingRef] = []
        for row in _columns(recent):
            if row.get("form", "").upper() != wanted:
                continue
            if form == "earnings" and _EARNINGS_ITEM not in row.get("items", ""):
                continue
            dated = row.get("reportDate") or row.get("filingDate", "")
            if year is not None and not dated.startswith(str(year)):
                continue
            out.append(FilingRef(cik=cik, accession=row["accessionNumber"], form=row["form"],
                                 filing_date=row.get("filingDate", ""), report_date=row.get("reportDate", ""),
                                 primary_document=row["primaryDocument"], items=row.get("items", "")))
        out.sort(key=lambda f: f.filing_date, reverse=True)
        return out[:limit] if limit else out

    def documents(self, filing: FilingRef, form: str) -> list[DocumentRef]:
        """What to download of a filing: its primary document, or for ``earnings`` its EX-99 exhibits (the
        press release), read from the filing's index page."""
        if form != "earnings":
            return [DocumentRef(filing=filing, name=filing.primary_document, kind=filing.form)]
        index = DocumentRef(filing=filing, name=f"{filing.accession}-index.htm").url
        return [DocumentRef(filing=filing, name=name, kind=kind)
                for name, kind in _index_documents(self.request(index).body) if _EXHIBIT_99_RE.match(kind)]

    def download(self, doc: DocumentRef, folder: Path) -> tuple[Path, bool]:
        """``doc`` saved under ``folder``; (path, True) when downloaded now, (path, False) when already complete.
        A ``.part`` file left by an interrupted run is continued with an HTTP range request."""
        target = folder / _safe_name(doc.name)
        if target.exists():
            return target, False
        folder.mkdir(parents=True, exist_ok=True)
        part = target.with_name(target.name + ".part")
        have = part.stat().st_size if part.exists() else 0
        reply = self.request(doc.url, {"Range": f"bytes={have}-"} if have else None)
        if reply.status == 206:
            mode = "ab"
        elif reply.status == 416:  # the part already holds the whole file
            part.rename(target)
            return target, True
        else:
            mode = "wb"
        with part.open(mode) as fh:
            for piece in _pieces(reply.body):
                fh.write(piece)
        part.rename(target)
        return target, True


def _gunzip(body: bytes, url: str) -> bytes:
    try:
        return gzip.decompress(body)
    except (OSError, EOFError) as exc:
        raise EdgarError(f"EDGAR sent a broken compressed reply for {url}") from exc


class FetchedFile(BaseModel):
    """A file of a fetched filing, on disk."""

    path: Path
    form: str
    filing_date: str
    report_date: str = ""
    fresh: bool = Field(description="downloaded by this run (False: it was already complete)")


def ingest_overrides(fetched: FetchedFile, form: str) -> MetadataOverrides:
    """What EDGAR says of a fetched file that its ingest should keep: the filing date, and that an earnings
    fetch's exhibit is an earnings release."""
    from agent.ingest.pipeline import MetadataOverrides

    return MetadataOverrides(form="EARNINGS" if form == "earnings" else "", filing_date=fetched.filing_date)


class FetchResult(BaseModel):
    """What a fetch found and saved."""

    cik: str
    name: str
    filings: int = 0
    files: list[FetchedFile] = Field(default_factory=list)


def fetch_filings(
    client: EdgarClient,
    company: str,
    form: str,
    folder: Path,
    year: int | None = None,
    limit: int | None = None,
    on_file: Callable[[FetchedFile], None] | None = None,
) -> FetchResult:
    """Download a company's filings of ``form`` into ``folder/<CIK>/<accession>/``; ``on_file`` hears of each
    file as it is saved (or found already complete)."""
    cik, name = client.company(company)
    filings = client.filings(cik, form, year, limit)
    result = FetchResult(cik=cik, name=name or cik, filings=len(filings))
    for filing in filings:
        for doc in client.documents(filing, form):
            path, fresh = client.download(doc, folder / cik / filing.accession)
            done = FetchedFile(path=path, form=filing.form, filing_date=filing.filing_date,
                               report_date=filing.report_date, fresh=fresh)
            result.files.append(done)
            if on_file is not None:
                on_file(done)
    return result


def _pieces(body: bytes) -> Iterator[bytes]:
    for start in range(0, len(body), CHUNK_BYTES):
        yield body[start:start + CHUNK_BYTES]


def _name_unresolved(exc: OSError) -> bool:
    """Whether a network error is a failed name lookup (urllib wraps the resolver's error in its reason)."""
    reason = getattr(exc, "reason", exc)
    return isinstance(reason, socket.gaierror) or isinstance(exc, socket.gaierror)


def _retry_after(reply: Response) -> float:
    try:
        return float(reply.headers.get("retry-after", "0"))
    except ValueError:
        return 0.0


def _columns(recent: dict[str, list]) -> Iterator[dict[str, str]]:
    """EDGAR's column-wise 'recent' table as rows."""
    names = list(recent)
    for values in zip(*(recent[n] for n in names), strict=False):
        yield {n: str(v) for n, v in zip(names, values, strict=True)}


def _index_documents(html: bytes) -> list[tuple[str, str]]:
    """(file name, type) of each row of a filing index page's document table."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "lxml")
    out = []
    for row in soup.find_all("tr"):
        cells = row.find_all("td")
        link = row.find("a", href=True)
        if len(cells) >= 4 and link is not None:
            out.append((str(link["href"]).rsplit("/", 1)[-1], cells[3].get_text(strip=True)))
    return out


def _safe_name(name: str) -> str:
    """A file name from EDGAR as a plain local name (no folders, no hidden files)."""
    clean = re.sub(r"[^A-Za-z0-9._-]", "_", name.rsplit("/", 1)[-1]).lstrip(".")
    return clean or "document.htm"
