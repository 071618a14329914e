"""Write the settings table of the configuration guide from svc/settings_table.py.

    python -m tools.settings_doc          # rewrite the table between the page's markers
    python -m tools.settings_doc --check  # exit 1 if the page's table is stale

The page is docs/guide/configuration.md (the documentation site's "Configuration and
secrets"). `make docs` runs it; tests/unit/test_settings_table.py fails while the page and the
registry differ, so a setting added to the table reaches the documentation in the same commit.
"""

from __future__ import annotations

import sys
from pathlib import Path

from svc.settings_table import SETTINGS, Setting
from svc.ui.terminal import error_line

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "guide" / "configuration.md"
BEGIN = "<!-- settings table: python -m tools.settings_doc (make docs) -->"
END = "<!-- end of settings table -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _row(row: Setting) -> str:
    key = f"`{row.key}`" if row.in_file else f"`{row.key}` (not in the file)"
    where = " / ".join(f"`{name}`" for name in (row.flag, row.env) if name)
    default = f"`{row.default}`" if row.default is not None else row.unset
    return f"| {key} | {where} | {_cell(default)} | {_cell(row.help)} |"


def render() -> str:
    """The table, markers included, as the page holds it."""
    lines = [
        BEGIN,
        "| config key | flag / env | default | what it does |",
        "|---|---|---|---|",
        *(_row(row) for row in SETTINGS),
        END,
    ]
    return "\n".join(lines)


def current(text: str) -> str:
    """The page's table as it stands, markers included ('' if it has none)."""
    start, end = text.find(BEGIN), text.find(END)
    return text[start : end + len(END)] if 0 <= start < end else ""


def main(argv: list[str]) -> int:
    text = PAGE.read_text(encoding="utf-8")
    found = current(text)
    name = PAGE.relative_to(ROOT)
    if not found:
        error_line(f"{name} has no settings table between {BEGIN!r} and {END!r}")
        return 1
    if "--check" in argv:
        if found != render():
            error_line(f"{name}'s settings table is stale: run `python -m tools.settings_doc`")
            return 1
        return 0
    PAGE.write_text(text.replace(found, render()), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
