"""Small helpers shared by the command modules: terminal-safe output, JSON output and short text formatting."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

from pydantic import BaseModel


def print_json(value: Any) -> None:
    """Print pydantic models (or lists of them, or plain data) as indented JSON on stdout."""

    def plain(v: Any) -> Any:
        if isinstance(v, BaseModel):
            return v.model_dump(mode="json")
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        if isinstance(v, list | tuple):
            return [plain(x) for x in v]
        return v

    text = json.dumps(plain(value), indent=2, ensure_ascii=False, default=str)
    # JSON escapes C0 controls itself; C1 controls and DEL it leaves raw, and a terminal acts on them.
    sys.stdout.write(_C1_RE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n")


def report(rows: list[BaseModel], render: Callable[[list[Any]], str], out: Path | None, name: str,
           as_json: bool) -> None:
    """A benchmark's rows: written to ``out/name.json`` and ``out/name.md`` when asked, then printed as JSON or
    as the Markdown table ``render`` makes."""
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / f"{name}.json").write_text(json.dumps([r.model_dump(mode="json") for r in rows], indent=2))
        (out / f"{name}.md").write_text(render(rows) + "\n")
    if as_json:
        print_json(rows)
    else:
        print(render(rows))


def data_dir_of(args: Any, settings: Any) -> Path:
    """``--data`` or the configured data directory (FINRAG_DATA_DIR); one clear error when neither is set."""
    from agent.errors import FinragError

    data_dir = getattr(args, "data", None) or settings.data_dir
    if data_dir is None:
        raise FinragError("No data directory: pass --data DIR or set FINRAG_DATA_DIR.")
    return Path(data_dir)


def shorten(text: str, width: int = 240) -> str:
    """One line of at most ``width`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


_LINE_BREAK_RE = re.compile(r"[\r\n\t\v\f]")


def one_line(text: Any) -> str:
    """``text`` on one line: a line break or tab inside a value (a file name with a newline) shown as an escape,
    so one record prints as one line."""
    return _LINE_BREAK_RE.sub(lambda m: repr(m.group())[1:-1], str(text))


def table(rows: Iterable[Iterable[Any]], headers: list[str]) -> str:
    """A plain aligned text table, a line per row."""
    data = [[one_line(c) for c in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in data)) if data else len(h) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in data]
    return "\n".join(lines)


def err(message: str) -> None:
    """One line on stderr."""
    print(f"finrag: {message}", file=sys.stderr)


_C1_RE = re.compile(r"[\x7f-\x9f]")
# C0 and C1 control characters except newline and tab: a file name or filing text carrying ESC sequences
# could otherwise clear the screen, move the cursor or retitle the terminal when finrag prints it.
_UNSAFE_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# The carriage return stays on stderr only: progress bars redraw their line with it.
_UNSAFE_ON_STDERR_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def terminal_safe(text: str, keep_cr: bool = False) -> str:
    """``text`` with every control character written as a visible escape (``\\x1b``) and every character the
    terminal cannot encode (an undecodable file-name byte) as U+FFFD; newlines and tabs stay."""
    pattern = _UNSAFE_ON_STDERR_RE if keep_cr else _UNSAFE_RE
    text = pattern.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    # Lone surrogates are how Python carries undecodable bytes of a file name; no encoding can print them.
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace") if _has_surrogates(text) else text


def _has_surrogates(text: str) -> bool:
    return any("\ud800" <= ch <= "\udfff" for ch in text)


class OutputError(OSError):
    """Standard output or error cannot be written (``> /dev/full``, a full disk under a redirect): the
    command's own stream failed, not the data directory."""


class TerminalSafeStream(io.TextIOBase):
    """A text stream that passes everything through :func:`terminal_safe` before the wrapped stream sees it.

    Installed over stdout and stderr by ``finrag``'s entry point: one mechanism covers every line printed from
    user or file data (document names, paths, quotes, thread ids), wherever a command prints it.
    """

    def __init__(self, stream: TextIO, keep_cr: bool = False, name: str = "standard output") -> None:
        super().__init__()
        self.stream = stream
        self.keep_cr = keep_cr
        self.name = name

    @contextlib.contextmanager
    def _failures_named(self) -> Iterator[None]:
        """A failed write names this stream (a closed pipe stays a BrokenPipeError: the reader left)."""
        try:
            yield
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError(exc.errno, f"cannot write to {self.name}: {exc.strerror or exc}") from exc

    def write(self, text: str) -> int:
        with self._failures_named():
            self.stream.write(terminal_safe(text, self.keep_cr))
        return len(text)

    def flush(self) -> None:
        with self._failures_named():
            self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.stream, "encoding", "utf-8")


def print_usage(parser: argparse.ArgumentParser) -> int:
    """A command group run without an action: its help, and the usage-error exit status."""
    parser.print_help()
    return 2


def progress_lines(label: str) -> Callable[[str, int, int], None]:
    """One plain line per item on stderr ('  copied 3/40: NAME'), so a long copy or check shows where it is."""

    def show(name: str, done: int, total: int) -> None:
        print(f"  {label} {done}/{total}: {name}", file=sys.stderr, flush=True)

    return show


STALE_NAMES_SHOWN = 3  # filings named in the notice; the rest are counted


def stale_filings_notice(settings: Any) -> str:
    """A one-line notice when the index holds filings read by an older pipeline (their tables lack what this one
    types at ingest, e.g. each cell's figures): which to ingest again; '' when every filing is current or the index
    cannot be read."""
    from agent.index.store import Store
    from agent.ingest.pipeline import PIPELINE_VERSION

    try:
        with Store(settings) as store:
            stale = [d.name for d in store.list_documents() if d.pipeline_version != PIPELINE_VERSION]
    except Exception:  # noqa: BLE001 - a notice never stops an answer; the answer reports a broken index itself
        return ""
    if not stale:
        return ""
    shown = ", ".join(stale[:STALE_NAMES_SHOWN]) + (f" and {len(stale) - STALE_NAMES_SHOWN} more"
                                                     if len(stale) > STALE_NAMES_SHOWN else "")
    return (f"note: {len(stale)} filing{'s were' if len(stale) > 1 else ' was'} indexed by an older finrag ({shown}); "
            f"run `finrag ingest PATH` on {'them' if len(stale) > 1 else 'it'} again so their tables are read as this "
            f"version reads them (pipeline {PIPELINE_VERSION})")

