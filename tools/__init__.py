"""finrag market tools: live quotes, price history and reported statements from Yahoo Finance (VeritasFi 4.5).

Tools are leaves: they import only ``agent.config``, ``agent.schemas`` and ``agent.finance.numbers``. yfinance itself is
imported on first use.
"""

from tools.calls import MarketCall
from tools.market import (
    SOURCE_NAME,
    FinancialStatement,
    MarketDataSource,
    MarketResult,
    MarketService,
    PriceBar,
    PriceHistory,
    Quote,
    StatementLine,
    YFinanceSource,
    build_market_tools,
    format_market_result,
)
from tools.routing import resolve_ticker, route_market_query

__all__ = [
    "SOURCE_NAME",
    "FinancialStatement",
    "MarketCall",
    "MarketDataSource",
    "MarketResult",
    "MarketService",
    "PriceBar",
    "PriceHistory",
    "Quote",
    "StatementLine",
    "YFinanceSource",
    "build_market_tools",
    "format_market_result",
    "resolve_ticker",
    "route_market_query",
]
