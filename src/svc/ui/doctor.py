"""How `svc doctor`'s findings look on a terminal: one line a check, and the fix below it.

Details quote server answers and file contents, so every cell is cleaned and rendered as text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from svc.ui.sanitize import clean

if TYPE_CHECKING:
    from svc.ui.output import Output

MARKS = {"ok": ("ok", "green"), "warn": ("warn", "yellow"), "fail": ("FAIL", "bold red")}


def show_findings(output: Output, findings: list[dict[str, Any]]) -> None:
    from rich.table import Table
    from rich.text import Text

    table = Table(box=None, show_header=False, padding=(0, 1))
    table.add_column(no_wrap=True)
    table.add_column(style="bold", no_wrap=True)
    table.add_column(overflow="fold")
    for item in findings:
        mark, style = MARKS.get(str(item["status"]), ("?", ""))
        detail = Text(clean(item["detail"], 600, single_line=True))
        if item.get("fix"):
            detail.append("\n→ " + clean(item["fix"], 300, single_line=True), style="dim")
        table.add_row(Text(mark, style=style), Text(str(item["check"])), detail)
    output.console.print(table)
    failed = sum(1 for f in findings if f["status"] == "fail")
    warned = sum(1 for f in findings if f["status"] == "warn")
    if failed:
        output.console.print(f"{failed} of {len(findings)} checks failed")
    else:
        output.console.print(
            "all good" + (f" ({warned} warning{'s' if warned != 1 else ''})" if warned else "")
        )
