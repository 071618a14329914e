"""What `svc api search` and `svc api get` share: the method check, the pages drawn."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from svc.engines.discovery import METHODS, Page, collect, operations
from svc.errors import UsageError
from svc.ui.face import FaceContext
from svc.ui.operations import draw_operations
from svc.ui.output import Output


def checked_method(method: str | None) -> str | None:
    """`--method` as the description spells it (upper case), or a usage error."""
    if method is None:
        return None
    if method.lower() not in METHODS:
        names = ", ".join(m.upper() for m in METHODS)
        raise UsageError(f"--method must be an HTTP method ({names}), got {method!r}")
    return method.upper()


def show_pages(app_ctx: FaceContext, pages: Iterable[Page], *, merged: bool) -> None:
    """The operations of one page (with a hint when there are more) or of every page, folded
    as they come (a table keeps only the summaries; JSON the pages merged)."""
    first: Page | None = None
    if merged:
        doc = collect(pages, slim=not app_ctx.output.json_mode, as_returned=False)
    else:
        first = next(iter(pages))
        doc = first.doc

    def draw(out: Output, doc: dict[str, Any]) -> None:
        rows = operations(doc)
        if rows:
            draw_operations(out, rows)
        else:
            out.note("no operation matches")

    app_ctx.output.show(doc, draw)
    if first is not None and first.next_url:
        app_ctx.output.note(more_hint(first.doc.get("info")))


def more_hint(info: object) -> str:
    info = info if isinstance(info, dict) else {}
    number = info.get("x-page")
    of = info.get("x-pages")
    total = info.get("x-total-operations")
    where = f"page {number}" if isinstance(number, int) else "this page"
    if isinstance(of, int):
        where += f" of {of}"
    if isinstance(total, int):
        where += f" ({total} operations)"
    following = number + 1 if isinstance(number, int) else "N"
    return f"{where}; more with --page {following} or --all"
