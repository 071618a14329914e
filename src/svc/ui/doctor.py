"""How `svc doctor`'s findings look on a terminal: one line a check, and the fix below it.

Details quote server answers and file contents, so every cell is cleaned and rendered as text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from svc.sanitize import clean
from svc.ui.fit import fit
from svc.words import plural

if TYPE_CHECKING:
    from svc.ui.output import Output

MARKS = {"ok": ("ok", "green"), "warn": ("warn", "yellow"), "fail": ("FAIL", "bold red")}


def show_findings(output: Output, findings: list[dict[str, Any]]) -> None:
    """`ok    config    detail`, the detail and its fix wrapped between words under the
    detail's column: a path or a URL is never split (a table cut or folded them)."""
    from rich.text import Text

    width = output.width
    for item in findings:
        mark, style = MARKS.get(str(item["status"]), ("?", ""))
        head = f"{mark:<4}  {clean(item['check'], 12, single_line=True):<8}  "
        pad = " " * len(head)
        lines = [head + clean(item["detail"], 2000, single_line=True)]
        if item.get("fix"):
            lines.append(f"{pad}-> {clean(item['fix'], 500, single_line=True)}")
        text = Text("\n".join(fit(line, width, pad) for line in lines))  # spacing kept
        if output.color:
            text.stylize(style, 0, len(mark))
        output.draw(text, soft_wrap=True)
    failed = sum(1 for f in findings if f["status"] == "fail")
    warned = sum(1 for f in findings if f["status"] == "warn")
    if failed:
        output.line("{failed} of {total} checks failed", failed=failed, total=len(findings))
    elif warned:
        output.line("all good ({warnings})", warnings=plural(warned, "warning"))
    else:
        output.line("all good")
