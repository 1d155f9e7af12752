"""Live market-data tools over Yahoo Finance (VeritasFi 4.5): quote, price history, reported statements.

Filings answer questions about the past; these tools answer the present (price, market cap, recent
history). They are LangChain tools so a chat model can call them with function calling, and a rule-based
router (:func:`route_market_query`) picks the same tools when no model is configured.

Failure is normal here (offline, timeouts, rate limits, unknown tickers), so nothing in this module raises to
the caller: every call returns a :class:`MarketResult`. A fresh cached value is served from the cache; when
upstream fails, the last cached value comes back with its as-of time and ``stale=True``; with no cache the
result says "market data unavailable: <reason>" and carries no number at all.
"""

from __future__ import annotations

import logging
import math
import re
import threading
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any, Protocol, get_args, runtime_checkable

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field, ValidationError, computed_field, field_validator

from agent.config import Settings
from agent.finance.numbers import SCALE_NAMES, format_number
from tools.cache import CACHE_FILE_NAME, MarketCache
from tools.calls import (
    HistoryArgs,
    HistoryInterval,
    HistoryPeriod,
    MarketCall,
    MarketToolName,
    QuoteArgs,
    StatementArgs,
    StatementFrequency,
    StatementKind,
)

log = logging.getLogger(__name__)


SOURCE_NAME = "Yahoo Finance via yfinance"


# Rows of OHLC summary a history result shows: enough to see the shape of a month or a year without
# flooding a model's context; the first/last/min/max figures always use every bar.
HISTORY_SUMMARY_ROWS = 12


# Longest reason quoted from an upstream exception: the cause, not a stack of HTML.
MAX_REASON_CHARS = 200


# Symbols Yahoo uses: letters, digits and . - ^ = (BRK-B, ^GSPC, EURUSD=X), at most this long.
MAX_TICKER_CHARS = 15


_TICKER_RE = re.compile(r"^[A-Z0-9][A-Z0-9.\-^=]*$|^\^[A-Z0-9.\-=]+$")


# ---------------------------------------------------------------------------------------------------------
# Result models
# ---------------------------------------------------------------------------------------------------------
def _finite_or_none(value: Any) -> float | None:
    """Upstream NaN / inf / missing becomes None: a missing figure is shown as missing, never invented."""
    if value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


class Quote(BaseModel):
    """The latest price of one ticker; change and change % are computed here, not taken from upstream."""

    ticker: str
    price: float = Field(description="last traded price, in `currency`")
    previous_close: float | None = Field(default=None, description="close of the previous regular session")
    market_cap: float | None = Field(default=None, description="in `currency`, unscaled")
    currency: str = ""
    exchange: str = ""
    year_high: float | None = Field(default=None, description="52-week high")
    year_low: float | None = Field(default=None, description="52-week low")
    as_of: datetime | None = Field(default=None, description="market time the price refers to, when known")

    @field_validator("price", mode="before")
    @classmethod
    def _price_is_a_number(cls, value: Any) -> float:
        number = _finite_or_none(value)
        if number is None:
            raise ValueError("no price returned")
        return number

    @field_validator("previous_close", "market_cap", "year_high", "year_low", mode="before")
    @classmethod
    def _optional_number(cls, value: Any) -> float | None:
        return _finite_or_none(value)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def change(self) -> float | None:
        """Price minus previous close, in `currency`."""
        return None if self.previous_close is None else self.price - self.previous_close

    @computed_field  # type: ignore[prop-decorator]
    @property
    def change_pct(self) -> float | None:
        """Change as a percentage of the previous close."""
        if self.previous_close is None or self.previous_close == 0:
            return None
        return (self.price - self.previous_close) / self.previous_close * 100.0


class PriceBar(BaseModel):
    """One OHLC bar (or a summary of consecutive bars)."""

    start: datetime
    end: datetime | None = Field(default=None, description="last bar folded into this one, for summary rows")
    open: float
    high: float
    low: float
    close: float
    volume: float | None = None


class PriceHistory(BaseModel):
    """Bars for a period; the summary figures are computed in code over every bar."""

    ticker: str
    period: str
    interval: str
    currency: str = ""
    bars: list[PriceBar] = Field(min_length=1, description="oldest first")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def first_close(self) -> float:
        return self.bars[0].close

    @computed_field  # type: ignore[prop-decorator]
    @property
    def last_close(self) -> float:
        return self.bars[-1].close

    @computed_field  # type: ignore[prop-decorator]
    @property
    def min_low(self) -> float:
        return min(b.low for b in self.bars)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def max_high(self) -> float:
        return max(b.high for b in self.bars)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def change_pct(self) -> float | None:
        """Last close against first close, in percent."""
        if self.first_close == 0:
            return None
        return (self.last_close - self.first_close) / self.first_close * 100.0

    def summary_rows(self, max_rows: int = HISTORY_SUMMARY_ROWS) -> list[PriceBar]:
        """At most ``max_rows`` rows: consecutive bars folded into true OHLC buckets (first open, highest
        high, lowest low, last close, summed volume), so a year of days reads as a dozen rows."""
        bars = self.bars
        if len(bars) <= max_rows:
            return list(bars)
        rows: list[PriceBar] = []
        for i in range(max_rows):
            group = bars[i * len(bars) // max_rows : (i + 1) * len(bars) // max_rows]
            volumes = [b.volume for b in group if b.volume is not None]
            rows.append(
                PriceBar(
                    start=group[0].start,
                    end=group[-1].start,
                    open=group[0].open,
                    high=max(b.high for b in group),
                    low=min(b.low for b in group),
                    close=group[-1].close,
                    volume=sum(volumes) if volumes else None,
                )
            )
        return rows


class StatementLine(BaseModel):
    """One reported line item, values aligned with the statement's periods (None where not reported)."""

    name: str
    values: list[float | None]

    @field_validator("values", mode="before")
    @classmethod
    def _missing_is_none(cls, values: Any) -> list[float | None]:
        return [_finite_or_none(v) for v in values]


class FinancialStatement(BaseModel):
    """A reported statement as Yahoo publishes it: line items by period end, values unscaled."""

    ticker: str
    statement: StatementKind
    frequency: StatementFrequency
    currency: str = Field(default="", description="reporting currency, when Yahoo states it")
    scale: float = Field(default=1.0, description="Yahoo reports statement values in units, not thousands")
    periods: list[str] = Field(min_length=1, description="ISO period-end dates, newest first")
    lines: list[StatementLine] = Field(min_length=1)

    @field_validator("lines")
    @classmethod
    def _aligned(cls, lines: list[StatementLine], info: Any) -> list[StatementLine]:
        n = len(info.data.get("periods") or [])
        for line in lines:
            if len(line.values) != n:
                raise ValueError(f"line {line.name!r} has {len(line.values)} values for {n} periods")
        return lines


class MarketResult(BaseModel):
    """What a market tool returns: the data (or none), where it came from, and how old it is."""

    tool: MarketToolName
    ticker: str
    quote: Quote | None = None
    history: PriceHistory | None = None
    statement: FinancialStatement | None = None
    fetched_at: datetime | None = Field(
        default=None, description="when the data was fetched upstream (as-of)"
    )
    from_cache: bool = False
    stale: bool = Field(default=False, description="upstream failed; this is the last cached value")
    message: str = Field(default="", description="why data is stale or unavailable")
    source: str = SOURCE_NAME

    @computed_field  # type: ignore[prop-decorator]
    @property
    def available(self) -> bool:
        """True when the result carries data (fresh or stale)."""
        return self.quote is not None or self.history is not None or self.statement is not None


# ---------------------------------------------------------------------------------------------------------
# Data sources
# ---------------------------------------------------------------------------------------------------------
@runtime_checkable
class MarketDataSource(Protocol):
    """Where market data comes from. Implementations raise on any failure; the service handles it."""

    def fetch_quote(self, ticker: str) -> Quote: ...

    def fetch_history(self, ticker: str, period: str, interval: str) -> PriceHistory: ...

    def fetch_statement(
        self, ticker: str, statement: StatementKind, frequency: StatementFrequency
    ) -> FinancialStatement: ...


class EmptyMarketData(ValueError):
    """Upstream answered but with nothing in it (unknown or delisted ticker, empty frame)."""


class _UpstreamLog(logging.Handler):
    """yfinance reports many failures (DNS errors, HTTP 404, delisted symbols) only as log lines and hands back
    an empty frame; this keeps the last such line per thread so an empty result can say why, and keeps
    yfinance's lines off the user's terminal (they are re-logged here at debug level)."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self._last: dict[int, str] = {}

    def emit(self, record: logging.LogRecord) -> None:
        message = " ".join(record.getMessage().split())
        if record.thread is not None:
            self._last[record.thread] = message
        log.debug("yfinance: %s", message)

    def take(self) -> str:
        """The last yfinance warning on this thread since the previous take, or ''."""
        return self._last.pop(threading.get_ident(), "")

    def install(self) -> None:
        logger = logging.getLogger("yfinance")
        if self not in logger.handlers:
            logger.addHandler(self)
            logger.propagate = False


_UPSTREAM_LOG = _UpstreamLog()


def _empty(message: str) -> EmptyMarketData:
    """An empty-result error, with yfinance's own explanation when it logged one."""
    upstream = _UPSTREAM_LOG.take()
    return EmptyMarketData(
        f"{message} (yfinance: {upstream})" if upstream else f"{message} (unknown ticker or no data)"
    )


class YFinanceSource:
    """Yahoo Finance through yfinance. yfinance is imported on first use so importing finrag stays light."""

    _STATEMENT_GETTERS: Mapping[str, str] = {
        "income": "get_income_stmt",
        "balance": "get_balance_sheet",
        "cashflow": "get_cash_flow",
    }
    _FREQUENCIES: Mapping[str, str] = {"annual": "yearly", "quarterly": "quarterly"}

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s

    def _ticker(self, ticker: str) -> Any:
        import yfinance

        _UPSTREAM_LOG.install()
        _UPSTREAM_LOG.take()  # forget what an earlier fetch on a reused thread id left behind
        return yfinance.Ticker(ticker)

    def fetch_quote(self, ticker: str) -> Quote:
        t = self._ticker(ticker)
        info = t.fast_info
        price = _finite_or_none(info.last_price)
        if price is None:
            raise _empty(f"no price returned for {ticker}")
        metadata = _optional(t.get_history_metadata) or {}
        return Quote(
            ticker=ticker,
            price=price,
            previous_close=_optional(lambda: info.regular_market_previous_close),
            market_cap=_optional(lambda: info.market_cap),
            currency=str(_optional(lambda: info.currency) or ""),
            exchange=str(_optional(lambda: info.exchange) or ""),
            year_high=_optional(lambda: info.year_high),
            year_low=_optional(lambda: info.year_low),
            as_of=_to_datetime(metadata.get("regularMarketTime")),
        )

    def fetch_history(self, ticker: str, period: str, interval: str) -> PriceHistory:
        t = self._ticker(ticker)
        frame = t.history(period=period, interval=interval, timeout=self.timeout_s)
        if frame is None or frame.empty:
            raise _empty(f"no price history returned for {ticker} ({period}, {interval})")
        frame = frame.dropna(subset=["Open", "High", "Low", "Close"])
        bars = [
            PriceBar(
                start=_bar_time(stamp),
                open=float(row["Open"]),
                high=float(row["High"]),
                low=float(row["Low"]),
                close=float(row["Close"]),
                volume=_finite_or_none(row.get("Volume")),
            )
            for stamp, row in frame.iterrows()
        ]
        if not bars:
            raise EmptyMarketData(f"price history for {ticker} has no complete bars")
        metadata = _optional(t.get_history_metadata) or {}
        return PriceHistory(
            ticker=ticker,
            period=period,
            interval=interval,
            currency=str(metadata.get("currency") or ""),
            bars=bars,
        )

    def fetch_statement(
        self, ticker: str, statement: StatementKind, frequency: StatementFrequency
    ) -> FinancialStatement:
        t = self._ticker(ticker)
        getter = getattr(t, self._STATEMENT_GETTERS[statement])
        frame = getter(pretty=True, freq=self._FREQUENCIES[frequency])
        if frame is None or frame.empty:
            raise _empty(f"no {frequency} {statement} statement returned for {ticker}")
        columns = sorted(frame.columns, reverse=True)  # newest period first, whatever order Yahoo sent
        frame = frame[columns].dropna(how="all")
        periods = [_period_label(c) for c in columns]
        lines = [StatementLine(name=str(name), values=list(row.values)) for name, row in frame.iterrows()]
        info = _optional(t.get_info) or {}
        return FinancialStatement(
            ticker=ticker,
            statement=statement,
            frequency=frequency,
            currency=str(info.get("financialCurrency") or ""),
            periods=periods,
            lines=lines,
        )


def _optional(getter: Callable[[], Any]) -> Any:
    """A secondary upstream field: None when it fails, so one missing field never sinks a quote."""
    try:
        value = getter()
    except Exception as exc:  # yfinance raises KeyError, TypeError, HTTP errors... for missing fields
        log.debug("optional market field unavailable: %s", exc)
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _bar_time(stamp: Any) -> datetime:
    when = _to_datetime(stamp)
    if when is None:  # never invent a date for a price
        raise EmptyMarketData(f"unreadable bar time {stamp!r}")
    return when


def _period_label(column: Any) -> str:
    when = _to_datetime(column)
    return when.date().isoformat() if when is not None else str(column)


def _to_datetime(value: Any) -> datetime | None:
    """pandas Timestamp, epoch seconds or datetime -> timezone-aware datetime (UTC when zone unknown)."""
    if value is None:
        return None
    if isinstance(value, int | float):
        return datetime.fromtimestamp(float(value), tz=UTC)
    to_py = getattr(value, "to_pydatetime", None)
    result = to_py() if callable(to_py) else value
    if not isinstance(result, datetime):
        return None
    return result if result.tzinfo is not None else result.replace(tzinfo=UTC)


# ---------------------------------------------------------------------------------------------------------
# The service: cache, timeouts, and stale fallback around any source
# ---------------------------------------------------------------------------------------------------------
def _call_with_timeout(fn: Callable[[], Any], timeout_s: float) -> Any:
    """Run ``fn`` on a daemon thread and give up after ``timeout_s`` (a hung socket must not hang the graph
    or keep the process from exiting)."""
    outcome: list[Any] = []
    failure: list[BaseException] = []
    done = threading.Event()

    def target() -> None:
        try:
            outcome.append(fn())
        except BaseException as exc:  # handed to the caller's thread, which decides
            failure.append(exc)
        finally:
            done.set()

    threading.Thread(target=target, name="finrag-market-fetch", daemon=True).start()
    if not done.wait(timeout_s):
        raise TimeoutError(f"no answer from Yahoo Finance within {timeout_s:g} s")
    if failure:
        raise failure[0]
    return outcome[0]


def describe_failure(exc: BaseException) -> str:
    """A short human reason for an upstream failure (rate limits and timeouts named as such)."""
    text = " ".join(str(exc).split())
    name = type(exc).__name__
    if "ratelimit" in name.lower() or "too many requests" in text.lower() or re.search(r"\b429\b", text):
        return "rate-limited by Yahoo Finance (too many requests)"
    if isinstance(exc, TimeoutError):
        return text or "upstream timed out"
    if isinstance(exc, EmptyMarketData):
        return text[:MAX_REASON_CHARS]
    if isinstance(exc, ValidationError):
        return f"upstream returned incomplete data ({exc.error_count()} invalid field(s))"
    if isinstance(exc, ImportError):
        return "yfinance is not installed"
    if "connection" in name.lower() or "resolve" in text.lower():
        return f"cannot reach Yahoo Finance (offline?): {name}"
    reason = f"{name}: {text}" if text else name
    return reason[:MAX_REASON_CHARS]


def normalize_ticker(ticker: str) -> str:
    """Upper-case a ticker symbol and check it is shaped like one; ValueError otherwise."""
    symbol = ticker.strip().upper().lstrip("$")
    if not symbol or len(symbol) > MAX_TICKER_CHARS or not _TICKER_RE.match(symbol):
        raise ValueError(f"not a ticker symbol: {ticker!r}")
    return symbol


class MarketService:
    """Market data with a cache in front: fresh cache hits, upstream fetches, stale fallbacks; never raises."""

    def __init__(
        self,
        settings: Settings,
        source: MarketDataSource | None = None,
        cache: MarketCache | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.settings = settings
        self.source = source if source is not None else YFinanceSource(timeout_s=settings.market_timeout_s)
        self.cache = cache if cache is not None else MarketCache(settings.cache_dir / CACHE_FILE_NAME)
        self.clock = clock or (lambda: datetime.now(UTC))

    def quote(self, ticker: str) -> MarketResult:
        """The latest quote for ``ticker``."""
        return self._get("get_quote", ticker, (), lambda s: self.source.fetch_quote(s))

    def history(self, ticker: str, period: str = "1mo", interval: str = "1d") -> MarketResult:
        """Price bars over ``period`` at ``interval``."""
        if period not in get_args(HistoryPeriod) or interval not in get_args(HistoryInterval):
            return MarketResult(
                tool="get_price_history",
                ticker=ticker,
                message=f"market data unavailable: unsupported period/interval {period!r}/{interval!r} "
                f"(periods: {', '.join(get_args(HistoryPeriod))}; intervals: {', '.join(get_args(HistoryInterval))})",
            )
        return self._get(
            "get_price_history",
            ticker,
            (period, interval),
            lambda s: self.source.fetch_history(s, period, interval),
        )

    def statement(
        self, ticker: str, statement: StatementKind = "income", frequency: StatementFrequency = "annual"
    ) -> MarketResult:
        """A reported financial statement."""
        return self._get(
            "get_financial_statement",
            ticker,
            (statement, frequency),
            lambda s: self.source.fetch_statement(s, statement, frequency),
        )

    def run(self, call: MarketCall) -> MarketResult:
        """Execute a routed call."""
        if call.tool == "get_quote":
            return self.quote(call.ticker)
        if call.tool == "get_price_history":
            return self.history(call.ticker, call.period, call.interval)
        return self.statement(call.ticker, call.statement, call.frequency)

    # -----------------------------------------------------------------------------------------------------
    def _get(
        self, tool: MarketToolName, ticker: str, args: tuple[str, ...], fetch: Callable[[str], BaseModel]
    ) -> MarketResult:
        try:
            symbol = normalize_ticker(ticker)
        except ValueError as exc:
            return MarketResult(tool=tool, ticker=ticker, message=f"market data unavailable: {exc}")
        key = "|".join((tool, symbol, *args))
        now = self.clock()
        cached = self.cache.get(key)
        if cached is not None and cached.age_s(now) < self.settings.market_cache_ttl_s:
            hit = self._from_cache(tool, symbol, cached.payload, cached.fetched_at, stale=False, message="")
            if hit is not None:
                return hit
        try:
            data = _call_with_timeout(lambda: fetch(symbol), self.settings.market_timeout_s)
            if not isinstance(data, _MODEL_OF[tool]):
                raise TypeError(f"source returned {type(data).__name__} for {tool}")
        except Exception as exc:  # any upstream failure degrades to the cache or a clear message
            reason = describe_failure(exc)
            log.info("market %s %s failed: %s", tool, symbol, reason)
            if cached is not None:
                stamp = _format_time(cached.fetched_at)
                message = (
                    f"live market data unavailable ({reason}); showing the last cached value as of {stamp}"
                )
                stale = self._from_cache(
                    tool, symbol, cached.payload, cached.fetched_at, stale=True, message=message
                )
                if stale is not None:
                    return stale
            return MarketResult(tool=tool, ticker=symbol, message=f"market data unavailable: {reason}")
        fetched_at = self.clock()
        self.cache.put(key, tool, data.model_dump_json(), fetched_at)
        return MarketResult(tool=tool, ticker=symbol, fetched_at=fetched_at, **{_FIELD_OF[tool]: data})

    def _from_cache(
        self, tool: MarketToolName, symbol: str, payload: str, fetched_at: datetime, stale: bool, message: str
    ) -> MarketResult | None:
        try:
            data = _MODEL_OF[tool].model_validate_json(payload)
        except ValidationError as exc:  # a cache row from an incompatible version is no cache
            log.warning("ignoring unreadable market cache entry for %s: %s", symbol, exc.error_count())
            return None
        return MarketResult(
            tool=tool,
            ticker=symbol,
            fetched_at=fetched_at,
            from_cache=True,
            stale=stale,
            message=message,
            **{_FIELD_OF[tool]: data},
        )


_MODEL_OF: Mapping[str, type[BaseModel]] = {
    "get_quote": Quote,
    "get_price_history": PriceHistory,
    "get_financial_statement": FinancialStatement,
}


_FIELD_OF: Mapping[str, str] = {
    "get_quote": "quote",
    "get_price_history": "history",
    "get_financial_statement": "statement",
}


# ---------------------------------------------------------------------------------------------------------
# Formatting for the answer step and tool messages
# ---------------------------------------------------------------------------------------------------------
def _format_time(value: datetime | None) -> str:
    if value is None:
        return "unknown time"
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    zone = value.strftime("%Z") or value.strftime("%z")
    return f"{value:%Y-%m-%d %H:%M} {zone}".strip()


def _format_bar_time(value: datetime) -> str:
    """Daily and longer bars are stamped at midnight: their time is the session date, not a clock time."""
    if (value.hour, value.minute, value.second) == (0, 0, 0):
        return f"{value:%Y-%m-%d}"
    return _format_time(value)


def _price(value: float | None, currency: str) -> str:
    if value is None:
        return "n/a"
    # Sub-dollar prices need more than cents to mean anything.
    decimals = 2 if abs(value) >= 1 else 4
    return f"{format_number(value, '', 1.0, decimals=decimals)} {currency}".strip()


def _amount(value: float | None, currency: str) -> str:
    """Large amounts in words (2.63 trillion USD) with the exact figure after it."""
    if value is None:
        return "n/a"
    for scale in sorted(SCALE_NAMES, reverse=True):
        if abs(value) >= scale:
            words = format_number(value / scale, "", scale, decimals=2)
            exact = format_number(value, "", 1.0, decimals=0)
            return f"{words} {currency} ({exact})".replace("  ", " ").strip()
    return f"{format_number(value, '', 1.0)} {currency}".strip()


def _price_change(value: float, currency: str) -> str:
    return f"{'+' if value > 0 else ''}{_price(value, currency)}"


def _signed(value: float | None, suffix: str = "", decimals: int = 2) -> str:
    if value is None:
        return "n/a"
    return f"{'+' if value > 0 else ''}{format_number(value, '', 1.0, decimals=decimals)}{suffix}"


def format_market_result(result: MarketResult) -> str:
    """The result as text for the answer step: every figure with its as-of time and its source."""
    if not result.available:
        return result.message or f"market data unavailable for {result.ticker}"
    retrieved = _format_time(result.fetched_at)
    provenance = f"source: {result.source}; retrieved {retrieved}"
    head = f"STALE: {result.message}\n" if result.stale else ""
    if result.quote is not None:
        q = result.quote
        cur = q.currency
        lines = [
            f"{q.ticker} quote as of {_format_time(q.as_of or result.fetched_at)} ({provenance})",
            f"- price: {_price(q.price, cur)}" + (f" on {q.exchange}" if q.exchange else ""),
            (
                f"- change vs previous close ({_price(q.previous_close, cur)}): {_price_change(q.change, cur)} "
                f"({_signed(q.change_pct, '%')})"
                if q.change is not None
                else "- change: n/a (previous close not available)"
            ),
            f"- market cap: {_amount(q.market_cap, cur)}",
            f"- 52-week range: {_price(q.year_low, cur)} to {_price(q.year_high, cur)}",
        ]
        return head + "\n".join(lines)
    if result.history is not None:
        h = result.history
        cur = h.currency
        first, last = h.bars[0].start, h.bars[-1].start
        lines = [
            f"{h.ticker} price history, period {h.period}, interval {h.interval}, {len(h.bars)} bars from "
            f"{first:%Y-%m-%d} to {last:%Y-%m-%d} ({provenance})",
            f"- first close: {_price(h.first_close, cur)}; last close: {_price(h.last_close, cur)} "
            f"as of {_format_bar_time(last)}; change {_signed(h.change_pct, '%')}",
            f"- lowest low: {_price(h.min_low, cur)}; highest high: {_price(h.max_high, cur)}",
            "- summary rows (start..end: open / high / low / close, volume):",
        ]
        for row in h.summary_rows():
            span = f"{row.start:%Y-%m-%d}" + (
                f"..{row.end:%Y-%m-%d}" if row.end and row.end != row.start else ""
            )
            volume = format_number(row.volume, "", 1.0, decimals=0) if row.volume is not None else "n/a"
            lines.append(
                f"  {span}: {_price(row.open, '')} / {_price(row.high, '')} / {_price(row.low, '')} / "
                f"{_price(row.close, '')}, {volume}"
            )
        return head + "\n".join(lines)
    s = result.statement
    assert s is not None  # available and neither quote nor history
    scale_note = f"in {SCALE_NAMES[s.scale]}s" if s.scale in SCALE_NAMES else "in units, not scaled"
    currency = s.currency or "currency not stated by the source"
    lines = [
        f"{s.ticker} {s.frequency} {s.statement} statement as reported, periods ending {', '.join(s.periods)} "
        f"({provenance})",
        f"- values in {currency}, {scale_note}; per-share lines per share; share counts in shares",
    ]
    for line in s.lines:
        values = ", ".join(
            "n/a" if v is None else format_number(v, "", 1.0, decimals=0 if float(v).is_integer() else 2)
            for v in line.values
        )
        lines.append(f"- {line.name}: {values}")
    return head + "\n".join(lines)


# ---------------------------------------------------------------------------------------------------------
# LangChain tools
# ---------------------------------------------------------------------------------------------------------
def build_market_tools(settings: Settings, source: MarketDataSource | None = None) -> list[BaseTool]:
    """The three market tools, ready for ``chat_model.bind_tools``. Each returns the formatted text as its
    content and the :class:`MarketResult` as its artifact (``ToolMessage.artifact``)."""
    service = MarketService(settings, source=source)

    def get_quote(ticker: str) -> tuple[str, MarketResult]:
        result = service.quote(ticker)
        return format_market_result(result), result

    def get_price_history(ticker: str, period: str = "1mo", interval: str = "1d") -> tuple[str, MarketResult]:
        result = service.history(ticker, period, interval)
        return format_market_result(result), result

    def get_financial_statement(
        ticker: str, statement: StatementKind = "income", frequency: StatementFrequency = "annual"
    ) -> tuple[str, MarketResult]:
        result = service.statement(ticker, statement, frequency)
        return format_market_result(result), result

    return [
        StructuredTool.from_function(
            func=get_quote,
            name="get_quote",
            description="Current stock quote from Yahoo Finance: last price, change vs previous close, market "
            "capitalisation, 52-week range, currency and as-of time. Use for today's price or market cap.",
            args_schema=QuoteArgs,
            response_format="content_and_artifact",
        ),
        StructuredTool.from_function(
            func=get_price_history,
            name="get_price_history",
            description="Recent daily/weekly price history (OHLC) for a ticker from Yahoo Finance, with first/last "
            "close, lowest low and highest high over the period. Use for recent stock performance.",
            args_schema=HistoryArgs,
            response_format="content_and_artifact",
        ),
        StructuredTool.from_function(
            func=get_financial_statement,
            name="get_financial_statement",
            description="Latest reported income statement, balance sheet or cash-flow statement line items from "
            "Yahoo Finance (annual or quarterly). Prefer the filings for a specific past fiscal period.",
            args_schema=StatementArgs,
            response_format="content_and_artifact",
        ),
    ]
