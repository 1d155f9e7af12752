"""``finrag serve``: the browser chat with the citation viewer (see :mod:`graphs.http`)."""

from __future__ import annotations

import argparse
import sys

from agent.config import Settings

DEFAULT_PORT = 8765  # not 2024, which `langgraph dev` and some systems use
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "serve",
        help="browser chat with a citation viewer that shows the cited page with the span highlighted",
        description="Serve a web app over the same graph and conversation store as `finrag ask`: a chat with "
        "threads (answers streamed node by node), every [doc, p. N] clickable to open the cited page with the "
        "cited row or sentence boxed, the checks the figure passed, the documents list, upload with ingest "
        "progress, and the audit trace. A JSON API sits under /api (see graphs/http.py).",
        epilog="example: finrag serve --port 8765, then open http://127.0.0.1:8765",
    )
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1: this machine only; the app has no login)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    from graphs.http import build_app

    if args.host not in LOCAL_HOSTS and not settings.serve_token:
        print(f"finrag: serving on {args.host}: anyone who can reach it can read the indexed filings, ask "
              "questions and upload files; set FINRAG_SERVE_TOKEN to require a token", file=sys.stderr)
    print(f"finrag serve: http://{'127.0.0.1' if args.host in ('0.0.0.0', '::') else args.host}:{args.port}",
          file=sys.stderr)
    uvicorn.run(build_app(settings), host=args.host, port=args.port, log_level="warning")
    return 0
