"""The ``finrag`` command: a thin face over the core, the graph and the evaluations.

Each area lives in its own module exposing ``register(subparsers)``; handlers take ``(args, settings)`` and
return an exit code. Bad input prints one clear line to stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import logging
import os
import sqlite3
import sys
from pathlib import Path

from agent.config import Settings
from agent.errors import FinragError, storage_error_message
from cli.common import OutputError, TerminalSafeStream

BROKEN_PIPE_EXIT = 141  # what a shell reports for a command stopped by SIGPIPE (128 + 13), as `seq | head` gives

# Command modules, in the order `finrag --help` lists them, with the commands each registers: a run of one
# command imports only its module (a cold `finrag ask` must not pay for the evaluation or ingest code).
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "cli.ingest_cmd": ("ingest",),
    "cli.fetch_cmd": ("fetch",),
    "cli.docs_cmd": ("docs",),
    "cli.companies_cmd": ("companies",),
    "cli.search_cmd": ("search",),
    "cli.index_cmd": ("index",),
    "cli.store_cmd": ("store",),
    "cli.memory_cmd": ("memory",),
    "cli.market_cmd": ("market",),
    "cli.retrieve_cmd": ("retrieve",),
    "cli.ask_cmd": ("ask", "chat"),
    "cli.serve_cmd": ("serve",),
    "cli.eval_cmd": ("eval",),
    "cli.train_cmd": ("train",),
}

EPILOG = """examples:
  finrag ingest filings/                      ingest every filing in a folder (PDF, HTML, Markdown, text)
  finrag fetch AAPL --form 10-Q --year 2025   download filings from SEC EDGAR and ingest them
  finrag docs                                 list ingested documents by company, with their metadata
  finrag companies                            the companies: names, former names, tickers, CIK, filings
  finrag search "capital expenditure 2018" --doc 3M_2018_10K
  finrag retrieve "What was 3M's FY2018 capex?" --trace      deep retrieval with its audit trace
  finrag ask "What were 3M's capital expenditures in 2018?"   a cited answer (add --thread ID to follow up)
  finrag chat                                 an interactive conversation; /trace shows the evidence trail
  finrag serve                                a browser chat; click a citation to see the page, span boxed
  finrag memory list                          verified answers in the memory bank
  finrag index migrate --to milvus            copy the index into Milvus (then FINRAG_SEARCH_BACKEND=milvus)
  finrag store migrate --to postgresql --url postgresql://...   one store for every replica (then FINRAG_STORE_URL)
  finrag train operations                     rebuild the learned operation model from FINRAG_DATA_DIR
  finrag train answer-kinds                   rebuild the model that tells amount questions from words ones

Data lives under $FINRAG_HOME (default ~/.local/share/finrag), or in PostgreSQL for replicas ($FINRAG_STORE_URL).
A language model is optional: set OPENAI_API_KEY (and OPENAI_BASE_URL for vLLM, Ollama or llama.cpp) to use one;
everything runs offline without.
"""


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command-line parser: every registered command, or only ``command``'s module when it is known."""
    parser = argparse.ArgumentParser(
        prog="finrag",
        description="Answer questions about long corporate filings, with the page and span behind every figure.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--home", type=Path, help="data directory (default: $FINRAG_HOME or ~/.local/share/finrag)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress details to stderr")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    wanted = [m for m, commands in COMMAND_MODULES.items() if command in commands] or list(COMMAND_MODULES)
    for name in wanted:
        importlib.import_module(name).register(subparsers)
    return parser


def _closed(stream: object) -> bool:
    """Whether a standard stream has no open descriptor behind it (Python gives None when it started so)."""
    if stream is None:
        return True
    try:
        os.fstat(stream.fileno())  # type: ignore[attr-defined]
    except (OSError, ValueError, AttributeError):
        return not hasattr(stream, "getvalue")  # an in-memory stream (a test's capture) is open
    return False


def _safe_streams() -> None:
    """Make stdout and stderr terminal-safe: control characters from file names or filing text are shown
    escaped, and characters the terminal cannot encode are replaced instead of raising UnicodeEncodeError."""
    for name, label in (("stderr", "standard error"), ("stdout", "standard output")):
        stream = getattr(sys, name)
        if isinstance(stream, TerminalSafeStream):
            continue
        if _closed(stream):  # started with the descriptor closed (`finrag ask ... >&-`): the work still runs
            stream = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - lives as long as the process
            if name == "stdout":
                print(f"finrag: {label} is closed; what the command prints is discarded", file=sys.stderr)
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")
        setattr(sys, name, TerminalSafeStream(stream, keep_cr=name == "stderr", name=label))


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script."""
    # Models are read from local paths only unless a user opts in; keeps runs offline and quiet.
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    _safe_streams()
    try:
        code = _run(argv)
        sys.stdout.flush()  # a redirect to a full disk fails here, not in the interpreter's exit
        return code
    except OutputError as exc:
        with contextlib.suppress(OSError):
            print(f"finrag: {exc.strerror}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader went away (`finrag docs show X | head`): stop quietly, as other command-line tools do.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.__stdout__.fileno())
        return BROKEN_PIPE_EXIT


def _command_in(argv: list[str]) -> str | None:
    """The subcommand named in ``argv`` (the first word that is not an option or an option's value)."""
    takes_value = {"--home"}
    words = iter(argv)
    for word in words:
        if word in takes_value:
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def _run(argv: list[str] | None) -> int:
    parser = build_parser(_command_in(sys.argv[1:] if argv is None else argv))
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(message)s")
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    settings = Settings.from_env(home=args.home)
    try:
        return int(args.func(args, settings) or 0)
    except FinragError as exc:
        print(f"finrag: {exc}", file=sys.stderr)
        return 1
    except (BrokenPipeError, OutputError):
        raise
    except (sqlite3.DatabaseError, OSError) as exc:
        # A damaged database, a full disk, a folder without permission: one line with what to do about it.
        print(f"finrag: {storage_error_message(exc, settings.home) or exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("finrag: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
