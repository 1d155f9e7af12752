"""``finrag serve``: the browser chat with the citation viewer (see :mod:`graphs.http`)."""

from __future__ import annotations

import argparse
import contextlib
import socket
import sys
import threading
import time

from agent.config import Settings

DEFAULT_PORT = 8765  # not 2024, which `langgraph dev` and some systems use
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
WILDCARD_HOSTS = ("0.0.0.0", "::")  # bound to every interface
ANNOUNCE_POLL_S = 0.1  # how often the start-up waits to see the socket accept


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "serve",
        help="browser chat with a citation viewer that shows the cited page with the span highlighted",
        description="Serve a web app over the same graph and conversation store as `finrag ask`: a chat with "
        "threads (answers streamed node by node), every [doc, p. N] clickable to open the cited page with the "
        "cited row or sentence boxed, the checks the figure passed, the documents list, upload with ingest "
        "progress, and the audit trace. A JSON API sits under /api (see graphs/http.py). Each browser sees only "
        "the threads it opened; a request from another site's page may not change anything.",
        epilog="examples:\n"
        "  finrag serve                        this machine only: open http://127.0.0.1:8765\n"
        "  FINRAG_SERVE_TOKEN=$(openssl rand -hex 16) FINRAG_SERVE_HOSTS=finrag.example.com \\\n"
        "      finrag serve --host 0.0.0.0     for a team: every API call needs the token (open the page as\n"
        "                                      /?token=..., or send 'Authorization: Bearer ...'), and the server\n"
        "                                      answers only to the names listed (put TLS in front of it)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1: this machine only); beyond it, set FINRAG_SERVE_TOKEN")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    p.set_defaults(func=run)


def _names_of_this_machine() -> list[str]:
    """The names and addresses people reach a server bound to every interface by."""
    names = {socket.gethostname(), socket.getfqdn()}
    with contextlib.suppress(OSError):
        names.update(socket.gethostbyname_ex(socket.gethostname())[2])
    return sorted(n for n in names if n)


def run(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    from graphs.http import build_app

    if args.host not in LOCAL_HOSTS and not settings.serve_token:
        print(f"finrag: serving on {args.host}: anyone who can reach it can read the indexed filings, ask "
              "questions and upload files; set FINRAG_SERVE_TOKEN to require a token", file=sys.stderr)
    everywhere = args.host in WILDCARD_HOSTS
    hosts = _names_of_this_machine() if everywhere else [args.host]
    url = f"http://{'127.0.0.1' if everywhere else args.host}:{args.port}"
    server = uvicorn.Server(uvicorn.Config(build_app(settings, hosts=hosts), host=args.host, port=args.port,
                                           log_level="warning"))

    def announce() -> None:  # the URL once the socket accepts connections, not before
        while not server.started and not server.should_exit:
            time.sleep(ANNOUNCE_POLL_S)
        if server.started:
            print(f"finrag serve: {url} (Ctrl-C stops it)", file=sys.stderr, flush=True)

    threading.Thread(target=announce, daemon=True).start()
    server.run()
    return 0
