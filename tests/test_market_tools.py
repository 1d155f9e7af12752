"""Market tools: fake sources only; the real yfinance is never imported or called here."""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
import time
import types
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pandas as pd
import pytest
from langchain_core.messages import ToolMessage
from pydantic import ValidationError

from agent.config import Settings
from cli import market_cmd
from tools.cache import MarketCache
from tools.calls import MarketCall
from tools.market import (
    EmptyMarketData,
    FinancialStatement,
    MarketResult,
    MarketService,
    PriceBar,
    PriceHistory,
    Quote,
    StatementLine,
    YFinanceSource,
    build_market_tools,
    describe_failure,
    format_market_result,
)
from tools.routing import resolve_ticker, route_market_query

T0 = datetime(2024, 5, 1, 20, 0, tzinfo=UTC)


class _ForbiddenYFinance(types.ModuleType):
    """Stands in for yfinance: any use is recorded and fails loudly."""

    def __init__(self) -> None:
        super().__init__("yfinance")
        self.touched: list[str] = []

    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):
            raise AttributeError(name)
        self.touched.append(name)
        raise AssertionError(f"yfinance.{name} used in a test")


@pytest.fixture(autouse=True)
def no_yfinance(monkeypatch: pytest.MonkeyPatch) -> _ForbiddenYFinance:
    guard = _ForbiddenYFinance()
    monkeypatch.setitem(sys.modules, "yfinance", guard)
    yield guard
    assert guard.touched == [], f"yfinance was called: {guard.touched}"


class Clock:
    def __init__(self, now: datetime = T0) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


class FakeSource:
    """A scripted market-data source; `fail` makes every call raise it."""

    def __init__(self, price: float = 110.0) -> None:
        self.price = price
        self.calls: list[str] = []
        self.fail: BaseException | None = None
        self.delay_s = 0.0

    def _maybe_fail(self, name: str) -> None:
        self.calls.append(name)
        if self.delay_s:
            time.sleep(self.delay_s)
        if self.fail is not None:
            raise self.fail

    def fetch_quote(self, ticker: str) -> Quote:
        self._maybe_fail("quote")
        return Quote(
            ticker=ticker,
            price=self.price,
            previous_close=100.0,
            market_cap=2.5e12,
            currency="USD",
            exchange="NMS",
            year_high=130.0,
            year_low=90.0,
            as_of=T0,
        )

    def fetch_history(self, ticker: str, period: str, interval: str) -> PriceHistory:
        self._maybe_fail("history")
        start = datetime(2024, 1, 1, tzinfo=UTC)
        # 30 days; lows dip to 80 on day 10, highs peak at 150 on day 20.
        bars = [
            PriceBar(
                start=start + timedelta(days=k),
                open=100.0 + k,
                high=150.0 if k == 20 else 101.0 + k,
                low=80.0 if k == 10 else 99.0 + k,
                close=100.5 + k,
                volume=1000.0,
            )
            for k in range(30)
        ]
        return PriceHistory(ticker=ticker, period=period, interval=interval, currency="USD", bars=bars)

    def fetch_statement(self, ticker: str, statement: str, frequency: str) -> FinancialStatement:
        self._maybe_fail("statement")
        return FinancialStatement(
            ticker=ticker,
            statement=statement,  # type: ignore[arg-type]
            frequency=frequency,  # type: ignore[arg-type]
            currency="USD",
            periods=["2023-12-31", "2022-12-31"],
            lines=[
                StatementLine(name="Total Revenue", values=[32681000000.0, 34229000000.0]),
                StatementLine(name="Diluted EPS", values=[-12.63, float("nan")]),
            ],
        )


@pytest.fixture()
def settings(tmp_path: Path) -> Settings:
    return Settings.from_env(env={}, home=tmp_path / "home", market_cache_ttl_s=900, market_timeout_s=2.0)


def make(settings: Settings, source: FakeSource, clock: Clock | None = None) -> MarketService:
    return MarketService(settings, source=source, clock=clock or Clock())


# --- quote / history / statement through a fake source ------------------------------------------------------
def test_quote_computes_change_and_formats_every_figure_with_as_of_and_source(settings: Settings) -> None:
    result = make(settings, FakeSource(price=110.0)).quote(" aapl ")
    assert result.available and not result.stale and not result.from_cache
    q = result.quote
    assert q is not None and result.ticker == "AAPL"
    assert q.change == pytest.approx(10.0) and q.change_pct == pytest.approx(10.0)
    assert result.fetched_at == T0
    text = format_market_result(result)
    assert "Yahoo Finance via yfinance" in text
    assert "as of 2024-05-01 20:00 UTC" in text
    assert "110.00 USD" in text and "+10.00 USD" in text and "+10.00%" in text
    assert "2.50 trillion USD (2,500,000,000,000)" in text
    assert "90.00 USD to 130.00 USD" in text


def test_history_summary_figures_use_every_bar(settings: Settings) -> None:
    result = make(settings, FakeSource()).history("MSFT", "1mo", "1d")
    h = result.history
    assert h is not None
    assert (h.first_close, h.last_close, h.min_low, h.max_high) == (100.5, 129.5, 80.0, 150.0)
    assert h.change_pct == pytest.approx((129.5 - 100.5) / 100.5 * 100)
    rows = h.summary_rows(12)
    assert len(rows) == 12
    assert rows[0].open == 100.0 and rows[-1].close == 129.5
    assert min(r.low for r in rows) == 80.0 and max(r.high for r in rows) == 150.0
    assert sum(r.volume or 0 for r in rows) == pytest.approx(30_000.0)
    text = format_market_result(result)
    assert "lowest low: 80.00 USD; highest high: 150.00 USD" in text
    assert "30 bars from 2024-01-01 to 2024-01-30" in text


def test_unsupported_history_period_is_a_clear_message(settings: Settings) -> None:
    source = FakeSource()
    result = make(settings, source).history("MSFT", "7weeks", "1d")
    assert not result.available and "unsupported period" in result.message and source.calls == []


def test_statement_keeps_reported_values_and_states_scale(settings: Settings) -> None:
    result = make(settings, FakeSource()).statement("boeing", "income", "annual")
    s = result.statement
    assert s is not None and s.ticker == "BOEING"
    assert s.lines[1].values == [-12.63, None]  # NaN from upstream stays missing, never a number
    text = format_market_result(result)
    assert "Total Revenue: 32,681,000,000, 34,229,000,000" in text
    assert "Diluted EPS: -12.63, n/a" in text
    assert "in units, not scaled" in text and "periods ending 2023-12-31, 2022-12-31" in text


# --- cache and failure ------------------------------------------------------------------------------------
def test_fresh_cache_entry_is_served_without_calling_upstream(settings: Settings) -> None:
    source, clock = FakeSource(), Clock()
    service = make(settings, source, clock)
    first = service.quote("AAPL")
    clock.advance(settings.market_cache_ttl_s - 1)
    second = service.quote("AAPL")
    assert source.calls == ["quote"]
    assert second.from_cache and not second.stale and second.fetched_at == first.fetched_at
    assert second.quote == first.quote
    clock.advance(2)  # now older than the TTL: fetched again
    third = service.quote("AAPL")
    assert source.calls == ["quote", "quote"] and not third.from_cache


def test_cache_survives_a_new_service_instance(settings: Settings) -> None:
    make(settings, FakeSource()).quote("AAPL")
    other = FakeSource(price=1.0)
    again = make(settings, other).quote("AAPL")
    assert other.calls == [] and again.quote is not None and again.quote.price == 110.0


@pytest.mark.parametrize(
    ("failure", "reason"),
    [
        (RuntimeError("Too Many Requests. Rate limited. Try after a while."), "rate-limited"),
        (ConnectionError("Failed to resolve 'query2.finance.yahoo.com'"), "cannot reach Yahoo Finance"),
        (EmptyMarketData("no price returned for AAPL"), "no price returned"),
    ],
)
def test_upstream_failure_returns_stale_cached_value_with_as_of(
    settings: Settings, failure: BaseException, reason: str
) -> None:
    source, clock = FakeSource(), Clock()
    service = make(settings, source, clock)
    service.quote("AAPL")
    clock.advance(settings.market_cache_ttl_s * 3)
    source.fail = failure
    result = service.quote("AAPL")
    assert result.available and result.stale and result.from_cache
    assert result.fetched_at == T0  # the as-of time of the cached value, not now
    assert result.quote is not None and result.quote.price == 110.0
    assert reason in result.message and "as of 2024-05-01 20:00 UTC" in result.message
    text = format_market_result(result)
    assert text.startswith("STALE: live market data unavailable") and "retrieved 2024-05-01 20:00 UTC" in text


def test_no_cache_and_upstream_down_gives_clear_message_and_no_number(settings: Settings) -> None:
    source = FakeSource()
    source.fail = EmptyMarketData("empty frame from Yahoo")
    service = make(settings, source)
    for result in (service.quote("AAPL"), service.history("AAPL"), service.statement("AAPL")):
        assert (
            not result.available
            and result.quote is None
            and result.history is None
            and result.statement is None
        )
        text = format_market_result(result)
        assert text == "market data unavailable: empty frame from Yahoo"
        assert not re.search(r"\d", text)


def test_timeout_is_enforced_and_reported(settings: Settings) -> None:
    source = FakeSource()
    source.delay_s = 1.0
    started = time.perf_counter()
    result = make(settings.replace(market_timeout_s=0.05), source).quote("AAPL")
    assert time.perf_counter() - started < 0.9
    assert not result.available and "no answer from Yahoo Finance within 0.05 s" in result.message


def test_bad_data_from_upstream_is_a_failure_not_a_number(settings: Settings) -> None:
    class NaNSource(FakeSource):
        def fetch_quote(self, ticker: str) -> Quote:
            return Quote(ticker=ticker, price=float("nan"))

    result = make(settings, NaNSource()).quote("AAPL")
    assert not result.available and "market data unavailable" in result.message


def test_invalid_ticker_never_reaches_upstream(settings: Settings) -> None:
    source = FakeSource()
    result = make(settings, source).quote("not a ticker!")
    assert not result.available and "not a ticker symbol" in result.message and source.calls == []


def test_unreadable_cache_file_degrades_to_no_cache(settings: Settings, tmp_path: Path) -> None:
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not sqlite" * 100)
    cache = MarketCache(bad)
    assert cache.get("k") is None and cache.put("k", "quote", "{}", T0) is False
    source = FakeSource()
    source.fail = RuntimeError("offline")
    result = MarketService(settings, source=source, cache=cache).quote("AAPL")
    assert result.message == "market data unavailable: RuntimeError: offline"


def test_describe_failure_names_timeouts() -> None:
    assert describe_failure(TimeoutError("no answer within 1 s")) == "no answer within 1 s"


# --- LangChain tools ----------------------------------------------------------------------------------------
def test_build_market_tools_bindable_with_artifact(settings: Settings) -> None:
    tools = build_market_tools(settings, source=FakeSource())
    assert [t.name for t in tools] == ["get_quote", "get_price_history", "get_financial_statement"]
    content = tools[0].invoke({"ticker": "nke"})
    assert isinstance(content, str) and content.startswith("NKE quote as of")
    message = tools[1].invoke(
        {
            "type": "tool_call",
            "id": "call-1",
            "name": "get_price_history",
            "args": {"ticker": "NKE", "period": "3mo"},
        }
    )
    assert isinstance(message, ToolMessage) and isinstance(message.artifact, MarketResult)
    assert message.artifact.history is not None and message.artifact.history.period == "3mo"
    schema = tools[2].args_schema.model_json_schema()  # type: ignore[union-attr]
    assert schema["properties"]["statement"]["enum"] == ["income", "balance", "cashflow"]
    with pytest.raises(ValidationError):
        tools[1].invoke({"ticker": "NKE", "period": "7weeks"})


# --- offline router -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("question", "tool", "ticker", "extra"),
    [
        ("What is Apple's stock price today?", "get_quote", "AAPL", {}),
        ("What's the market cap of Microsoft?", "get_quote", "MSFT", {}),
        ("Nike share price today", "get_quote", "NKE", {}),
        ("What is the 52-week high for $TSLA?", "get_quote", "TSLA", {}),
        ("Where is KO trading at right now?", "get_quote", "KO", {}),
        ("What is the market value of 3M right now?", "get_quote", "MMM", {}),
        ("How did Nike stock do over the past week?", "get_price_history", "NKE", {"period": "5d"}),
        ("What is the current market capitalization of Johnson & Johnson?", "get_quote", "JNJ", {}),
        (
            "Show the price history of Netflix over the past 3 months",
            "get_price_history",
            "NFLX",
            {"period": "3mo"},
        ),
        ("How has 3M stock performed over the last year?", "get_price_history", "MMM", {"period": "1y"}),
        ("What is Boeing's stock performance year to date?", "get_price_history", "BA", {"period": "ytd"}),
        (
            "PepsiCo share price over the past 5 years",
            "get_price_history",
            "PEP",
            {"period": "5y", "interval": "1wk"},
        ),
        (
            "Show the latest quarterly balance sheet for Pfizer",
            "get_financial_statement",
            "PFE",
            {"statement": "balance", "frequency": "quarterly"},
        ),
    ],
)
def test_router_cue_words(question: str, tool: str, ticker: str, extra: dict[str, str]) -> None:
    call = route_market_query(question)
    assert call is not None, question
    assert (call.tool, call.ticker) == (tool, ticker)
    for field, value in extra.items():
        assert getattr(call, field) == value
    assert call.cue


@pytest.mark.parametrize(
    "question",
    [
        "What was 3M's capital expenditure in FY2018?",
        "What was Adobe's market cap at the end of fiscal 2022?",  # a past period: filings, not live data
        "What is the stock price?",  # no company named
        "What is the current ratio of Nike?",
        "What does the balance sheet of Corning say about inventories?",  # statements: filings unless 'latest'
        "Summarise Apple's risk factors.",
        "What is the aggregate market value of Corning's voting stock held by non-affiliates?",
    ],
)
def test_router_leaves_non_market_questions_alone(question: str) -> None:
    assert route_market_query(question) is None


def test_router_ticker_table_extends_and_intent_ticker_wins() -> None:
    assert route_market_query("Lotus Technology share price today") is None
    call = route_market_query("Lotus Technology share price today", aliases={"Lotus Technology": "LOT"})
    assert call is not None and call.ticker == "LOT"
    override = route_market_query("what's its market cap now?", ticker="zk")
    assert override is not None and override.ticker == "ZK"
    assert resolve_ticker("Shares of Coca-Cola (NYSE: KO)") == "KO"
    assert resolve_ticker("Is AMD cheaper than nvidia?") == "AMD"


def test_routed_call_runs_through_the_service(settings: Settings) -> None:
    call = route_market_query("What is Verizon's stock price today?")
    assert call == MarketCall(tool="get_quote", ticker="VZ", cue="stock price")
    result = make(settings, FakeSource()).run(call)
    assert result.quote is not None and result.ticker == "VZ"


# --- the yfinance adapter, against a stand-in module (no network) ------------------------------------------
class _FastInfo:
    last_price = 187.5
    regular_market_previous_close = 185.0
    currency = "USD"
    exchange = "NMS"
    year_high = 199.6
    year_low = 164.1

    @property
    def market_cap(self) -> float:
        raise KeyError("shares")  # yfinance fails on some fields; a quote survives without them


class _FakeTicker:
    timeouts: list[float] = []

    def __init__(self, symbol: str) -> None:
        self.symbol = symbol
        self.fast_info = _FastInfo()

    def get_history_metadata(self) -> dict[str, object]:
        return {
            "currency": "USD",
            "regularMarketTime": pd.Timestamp("2024-05-01 16:00", tz="America/New_York"),
        }

    def history(self, period: str, interval: str, timeout: float) -> pd.DataFrame:
        self.timeouts.append(timeout)
        index = pd.date_range("2024-04-01", periods=3, freq="D", tz="America/New_York")
        return pd.DataFrame(
            {
                "Open": [1.0, 2.0, float("nan")],
                "High": [1.5, 2.5, 3.5],
                "Low": [0.5, 1.5, 2.5],
                "Close": [1.2, 2.2, 3.2],
                "Volume": [10, 20, 30],
            },
            index=index,
        )

    def get_income_stmt(self, pretty: bool, freq: str) -> pd.DataFrame:
        if self.symbol == "GONE":  # yfinance logs the cause and returns an empty frame
            logging.getLogger("yfinance").error("GONE: possibly delisted; no fundamentals found")
            return pd.DataFrame()
        assert pretty and freq == "quarterly"
        columns = [pd.Timestamp("2023-06-30"), pd.Timestamp("2023-09-30")]
        return pd.DataFrame(
            [[100.0, 120.0], [float("nan"), float("nan")], [0.5, float("nan")]],
            index=["Total Revenue", "Unreported Line", "Diluted EPS"],
            columns=columns,
        )

    def get_info(self) -> dict[str, object]:
        return {"financialCurrency": "EUR"}


def test_yfinance_source_converts_frames(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = types.ModuleType("yfinance")
    fake.Ticker = _FakeTicker  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "yfinance", fake)
    source = YFinanceSource(timeout_s=3.0)

    quote = source.fetch_quote("AAPL")
    assert quote.price == 187.5 and quote.change == pytest.approx(2.5) and quote.market_cap is None
    assert quote.as_of is not None and quote.as_of.astimezone(UTC) == datetime(2024, 5, 1, 20, 0, tzinfo=UTC)

    history = source.fetch_history("AAPL", "5d", "1d")
    assert _FakeTicker.timeouts[-1] == 3.0
    assert [b.close for b in history.bars] == [1.2, 2.2]  # the incomplete bar is dropped, not filled
    assert history.currency == "USD"

    statement = source.fetch_statement("SAP", "income", "quarterly")
    assert statement.periods == ["2023-09-30", "2023-06-30"]  # newest first
    assert [line.name for line in statement.lines] == ["Total Revenue", "Diluted EPS"]
    assert statement.lines[1].values == [None, 0.5] and statement.currency == "EUR"

    with pytest.raises(
        EmptyMarketData, match=r"no annual income statement returned for GONE \(yfinance: GONE: possibly"
    ):
        source.fetch_statement("GONE", "income", "annual")


# --- command line -------------------------------------------------------------------------------------------
def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="finrag")
    market_cmd.register(parser.add_subparsers(dest="command"))
    return parser.parse_args(argv)


def test_cli_market_commands(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    source = FakeSource()
    monkeypatch.setattr(market_cmd, "make_service", lambda s: MarketService(s, source=source, clock=Clock()))

    args = _parse(["market", "quote", "MMM", "--json"])
    assert args.func(args, settings) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["quote"]["price"] == 110.0 and data["quote"]["change_pct"] == pytest.approx(10.0)
    assert data["source"] == "Yahoo Finance via yfinance" and data["fetched_at"].startswith(
        "2024-05-01T20:00"
    )

    args = _parse(["market", "history", "MMM", "--period", "6mo"])
    assert args.func(args, settings) == 0
    assert "MMM price history, period 6mo" in capsys.readouterr().out

    args = _parse(["market", "statement", "MMM", "--statement", "cashflow", "--frequency", "quarterly"])
    assert args.func(args, settings) == 0
    assert "MMM quarterly cashflow statement" in capsys.readouterr().out

    source.fail = RuntimeError("offline")
    args = _parse(["market", "quote", "NKE"])
    assert args.func(args, settings) == 1
    captured = capsys.readouterr()
    assert (
        captured.out == ""
        and captured.err.strip() == "finrag: market data unavailable: RuntimeError: offline"
    )
