"""``finrag ask`` and ``finrag chat``: questions about the ingested filings, answered with page citations.

``finrag ask QUESTION [--thread ID] [--json]`` answers one turn (``--thread`` continues a conversation; the
thread id is printed on stderr). ``finrag chat`` is interactive: it streams progress per node and understands
``/trace`` (the last turn's audit trace), ``/new`` (a new thread) and ``/quit``.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, TextIO

from agent.config import Settings
from agent.errors import FinragError
from cli.common import err, print_json, stale_filings_notice

if TYPE_CHECKING:  # the graph (LangGraph, LangChain) loads only when a command runs, not for --help
    from graphs.service import AskResult

CHAT_PROMPT = "you> "
CHAT_HELP = "Ask about the ingested filings. Commands: /trace (last audit trace), /new (new thread), /quit."
QUOTE_CHARS = 160  # a source line shows the quoted row or sentence, clipped to one line


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``ask`` and ``chat``."""
    ask = subparsers.add_parser(
        "ask", help="answer a question about the ingested filings, citing [doc, p. N] for every figure",
        description="Answer one question (one turn of a conversation) from the ingested filings, the memory bank "
        "and market data. Offline unless OPENAI_API_KEY is set.",
        epilog="examples:\n  finrag ask \"What were Northwind's capital expenditures in 2024?\" --thread t1\n"
        "  finrag ask \"what about 2023?\" --thread t1      (a follow-up on the same thread)\n"
        "  finrag ask \"Northwind op income FY24\" --json     (shorthand; the JSON has citations and sub-queries)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ask.add_argument("question", help='e.g. "What were Northwind\'s capital expenditures in 2024?"')
    ask.add_argument("--thread", metavar="ID", help="continue this conversation (follow-ups like 'what about 2023?')")
    ask.add_argument("--doc", action="append", default=None, metavar="DOC",
                     help="answer from this filing only (name or content hash); repeat for several")
    ask.add_argument("--json", action="store_true",
                     help="print answer, citations, sub_queries, routes, timings, tokens and trace as JSON")
    ask.set_defaults(func=handle_ask)
    chat = subparsers.add_parser(
        "chat", help="interactive conversation with progress per step (/trace, /new, /quit)",
        description="A conversation about the ingested filings: type a question, see each step of the graph as "
        "it runs, then the answer with its sources. Follow-ups ('and in 2023?', 'what is the difference?') use "
        "the earlier turns. Commands: /trace shows the last turn's evidence trail, /new starts a new thread, "
        "/quit ends (so does Ctrl-D). Threads are kept under FINRAG_HOME; --thread resumes one.",
        epilog="example: finrag chat --thread 3f2a9c",
    )
    chat.add_argument("--thread", metavar="ID", help="resume this conversation")
    chat.set_defaults(func=handle_chat)


def handle_ask(args: argparse.Namespace, settings: Settings) -> int:
    """One turn; the answer on stdout, the thread id on stderr."""
    from graphs.service import Assistant

    notice = stale_filings_notice(settings)
    if notice:
        print(notice, file=sys.stderr)
    with Assistant(settings) as assistant:
        result = assistant.ask(args.question, thread_id=args.thread, docs=args.doc or [])
    if args.json:
        print_json(result)
    else:
        print(render_answer(result))
    print(f"(thread {result.thread_id}: continue with --thread {result.thread_id})", file=sys.stderr)
    return 0


def render_answer(result: AskResult) -> str:
    """The answer followed by its sources (one line each: label and quote)."""
    lines = [result.answer]
    if result.citations:
        lines.append("")
        lines.append("Sources:")
        for c in result.citations:
            quote = " ".join(c.quote.split())
            quote = quote if len(quote) <= QUOTE_CHARS else quote[: QUOTE_CHARS - 1] + "…"
            lines.append(f"  [{c.doc}, p. {c.page}]" + (f" {quote}" if quote else ""))
    return "\n".join(lines)


def handle_chat(args: argparse.Namespace, settings: Settings, stdin: TextIO | None = None) -> int:
    """Read questions until /quit or end of input; stream each turn's progress, then print the answer."""
    from graphs.service import Assistant

    stdin = stdin or sys.stdin
    notice = stale_filings_notice(settings)
    if notice:
        print(notice, file=sys.stderr)
    with Assistant(settings) as assistant:
        thread = args.thread or assistant.new_thread()
        last: AskResult | None = assistant.last_result(thread) if args.thread else None
        print(f"finrag chat, thread {thread}. {CHAT_HELP}")
        while True:
            print(CHAT_PROMPT, end="", flush=True)
            line = stdin.readline()
            if not line:  # end of input
                print()
                return 0
            text = line.strip()
            if not text:
                continue
            if text in ("/quit", "/exit", "/q"):
                return 0
            if text == "/new":
                thread, last = assistant.new_thread(), None
                print(f"new thread {thread}")
                continue
            if text == "/trace":
                print(last.trace.render_text() if last is not None else "no turn yet in this thread")
                continue
            if text.startswith("/"):
                print(f"unknown command {text}. {CHAT_HELP}")
                continue
            try:
                for event in assistant.stream(text, thread_id=thread):
                    if event.result is not None:
                        last = event.result
                        continue
                    where = "/".join([*event.path, event.node])
                    tail = f": {event.summary}" if event.summary else ""
                    print(f"  · {where} ({event.elapsed_s:.2f} s){tail}")
            except FinragError as exc:  # one bad turn does not end the conversation
                err(str(exc))
                continue
            if last is not None:
                print(render_answer(last))
