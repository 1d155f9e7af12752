"""Small helpers shared by the command modules: JSON output and short text formatting."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from typing import Any

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

    json.dump(plain(value), sys.stdout, indent=2, ensure_ascii=False, default=str)
    sys.stdout.write("\n")


def shorten(text: str, width: int = 240) -> str:
    """One line of at most ``width`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def table(rows: Iterable[Iterable[Any]], headers: list[str]) -> str:
    """A plain aligned text table."""
    data = [[str(c) for c in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in data)) if data else len(h) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in data]
    return "\n".join(lines)


def err(message: str) -> None:
    """One line on stderr."""
    print(f"finrag: {message}", file=sys.stderr)
