"""`svc request --probe` / `--dry-run` on a terminal: the 402's offers and the verdict, or the
word that the server asked for nothing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from svc.ui import views

if TYPE_CHECKING:
    from svc.ui.output import Output


def probe(out: Output, doc: dict[str, Any]) -> None:
    if doc["would_pay"] is None:
        out.line(
            "HTTP {status}: {url} did not ask for payment. Nothing was signed or paid.",
            status=doc["status"],
            url=doc["request"]["url"],
        )
        return
    views.probe(out, doc)
