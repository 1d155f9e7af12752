"""``finrag market``: live quotes, price history and reported statements from Yahoo Finance (cached)."""

from __future__ import annotations

import argparse
from typing import get_args

from agent.config import Settings
from cli.common import err, print_json
from tools.calls import HistoryInterval, HistoryPeriod, StatementFrequency, StatementKind
from tools.market import MarketResult, MarketService, format_market_result


def make_service(settings: Settings) -> MarketService:
    """The market service the commands use (Yahoo Finance behind the local cache)."""
    return MarketService(settings)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "market",
        help="live market data: quote, price history, reported statements",
        description="Market data from Yahoo Finance via yfinance, cached under $FINRAG_HOME/cache. Offline or when "
        "Yahoo fails, the last cached value is shown with its as-of time and marked stale.",
        epilog="example: finrag market quote MMM",
    )
    sub = p.add_subparsers(dest="market_command", metavar="ACTION", required=True)

    q = sub.add_parser(
        "quote", help="price, change, market cap, 52-week range", epilog="example: finrag market quote MMM"
    )
    q.add_argument("ticker", metavar="TICKER")
    q.add_argument("--json", action="store_true", help="print the result as JSON")
    q.set_defaults(func=run_quote)

    h = sub.add_parser(
        "history",
        help="OHLC price history with first/last/min/max",
        epilog="example: finrag market history NKE --period 6mo",
    )
    h.add_argument("ticker", metavar="TICKER")
    h.add_argument(
        "--period", default="1mo", choices=get_args(HistoryPeriod), help="how far back (default 1mo)"
    )
    h.add_argument(
        "--interval", default="1d", choices=get_args(HistoryInterval), help="bar size (default 1d)"
    )
    h.add_argument("--json", action="store_true", help="print the result as JSON")
    h.set_defaults(func=run_history)

    s = sub.add_parser(
        "statement",
        help="reported income statement, balance sheet or cash-flow statement",
        epilog="example: finrag market statement PEP --statement cashflow --frequency quarterly",
    )
    s.add_argument("ticker", metavar="TICKER")
    s.add_argument("--statement", default="income", choices=get_args(StatementKind), help="which statement")
    s.add_argument(
        "--frequency", default="annual", choices=get_args(StatementFrequency), help="annual or quarterly"
    )
    s.add_argument("--json", action="store_true", help="print the result as JSON")
    s.set_defaults(func=run_statement)


def _show(result: MarketResult, as_json: bool) -> int:
    """Print a result; exit 1 (one line on stderr) when there is no data at all, even cached."""
    if not result.available:
        err(result.message or f"market data unavailable for {result.ticker}")
        return 1
    if as_json:
        print_json(result)
    else:
        print(format_market_result(result))
    if result.stale:
        err(result.message)
    return 0


def run_quote(args: argparse.Namespace, settings: Settings) -> int:
    return _show(make_service(settings).quote(args.ticker), args.json)


def run_history(args: argparse.Namespace, settings: Settings) -> int:
    return _show(make_service(settings).history(args.ticker, args.period, args.interval), args.json)


def run_statement(args: argparse.Namespace, settings: Settings) -> int:
    return _show(make_service(settings).statement(args.ticker, args.statement, args.frequency), args.json)
