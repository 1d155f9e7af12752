"""The house stays a house: no module grows past what a reader can hold."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("agent", "graphs", "tools", "evals", "cli")
MAX_MODULE_LINES = 900  # past this a module holds more than one concept; split it by concept


def test_no_module_is_over_the_line_limit() -> None:
    sizes = {str(path.relative_to(REPO)): len(path.read_text(encoding="utf-8").splitlines())
             for package in PACKAGES for path in (REPO / package).rglob("*.py")}
    assert sizes, "no modules found"
    over = {path: n for path, n in sizes.items() if n > MAX_MODULE_LINES}
    assert not over, f"modules over {MAX_MODULE_LINES} lines: {over}"
