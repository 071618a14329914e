"""How `svc doctor`'s findings look on a terminal: one line a check, and the fix below it.

Details quote server answers and file contents, so every cell is cleaned and rendered as text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from svc.ui.words import plural

if TYPE_CHECKING:
    from svc.ui.output import Output

MARKS = {"ok": ("ok", "green"), "warn": ("warn", "yellow"), "fail": ("FAIL", "bold red")}


def show_findings(output: Output, findings: list[dict[str, Any]]) -> None:
    rows = []
    for item in findings:
        mark = MARKS.get(str(item["status"]), ("?", ""))[0]
        detail = str(item["detail"]) + (f"\n-> {item['fix']}" if item.get("fix") else "")
        rows.append([mark, item["check"], detail])
    output.table(("", "check", "finding"), rows)
    failed = sum(1 for f in findings if f["status"] == "fail")
    warned = sum(1 for f in findings if f["status"] == "warn")
    if failed:
        output.line("{failed} of {total} checks failed", failed=failed, total=len(findings))
    elif warned:
        output.line("all good ({warnings})", warnings=plural(warned, "warning"))
    else:
        output.line("all good")
