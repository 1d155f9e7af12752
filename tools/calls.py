"""What a market-tool call is: the tool, its typed arguments (ticker, span, interval, statement kind and
frequency), shared by the router, the LangChain tools and the service.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

MarketToolName = Literal["get_quote", "get_price_history", "get_financial_statement"]


# The ranges and bar sizes Yahoo's chart API accepts (yfinance ``history`` docstring).
HistoryPeriod = Literal["1d", "5d", "1mo", "3mo", "6mo", "1y", "2y", "5y", "10y", "ytd", "max"]


HistoryInterval = Literal["1m", "2m", "5m", "15m", "30m", "60m", "90m", "1h", "1d", "5d", "1wk", "1mo", "3mo"]


StatementKind = Literal["income", "balance", "cashflow"]


StatementFrequency = Literal["annual", "quarterly"]


# ---------------------------------------------------------------------------------------------------------
# Tool arguments and routed calls
# ---------------------------------------------------------------------------------------------------------
class QuoteArgs(BaseModel):
    ticker: str = Field(description="Stock ticker symbol as on Yahoo Finance, e.g. AAPL, MMM, BRK-B")


class HistoryArgs(BaseModel):
    ticker: str = Field(description="Stock ticker symbol as on Yahoo Finance, e.g. AAPL")
    period: HistoryPeriod = Field(
        default="1mo", description="How far back: 5d, 1mo, 3mo, 6mo, 1y, 5y, ytd, max"
    )
    interval: HistoryInterval = Field(
        default="1d", description="Bar size: 1d, 1wk, 1mo (intraday only for <60 days)"
    )


class StatementArgs(BaseModel):
    ticker: str = Field(description="Stock ticker symbol as on Yahoo Finance, e.g. AAPL")
    statement: StatementKind = Field(default="income", description="income, balance (sheet) or cashflow")
    frequency: StatementFrequency = Field(default="annual", description="annual or quarterly")


class MarketCall(BaseModel):
    """Which market tool to call with which arguments, as the offline router decides."""

    tool: MarketToolName
    ticker: str
    period: HistoryPeriod = "1mo"
    interval: HistoryInterval = "1d"
    statement: StatementKind = "income"
    frequency: StatementFrequency = "annual"
    cue: str = Field(default="", description="the words that selected the tool, for the trace")

    def tool_args(self) -> QuoteArgs | HistoryArgs | StatementArgs:
        """The arguments of :attr:`tool`, as its args schema."""
        if self.tool == "get_quote":
            return QuoteArgs(ticker=self.ticker)
        if self.tool == "get_price_history":
            return HistoryArgs(ticker=self.ticker, period=self.period, interval=self.interval)
        return StatementArgs(ticker=self.ticker, statement=self.statement, frequency=self.frequency)
