"""What `svc tasks forget` and `svc tasks prune` share: money named before it goes, then the
rows removed and kept, drawn (`svc.ui.views.forgotten`) or as JSON."""

from __future__ import annotations

from svc.engines.forget import Forgetting, label, what_it_paid
from svc.ui import views
from svc.ui.face import FaceContext


def remove(
    ctx: FaceContext,
    found: Forgetting,
    force: bool,
    verb: str = "removed",
    nothing: str = "no row to remove",
) -> None:
    """Say what each money row paid (with --force), remove, and show what went and stayed;
    `nothing` says why when no row matched."""
    if force:
        for row in found.money:
            ctx.output.warn(f"forgetting {label(row)}, which {what_it_paid(row)}")
    found.remove(force)
    doc = found.document()
    ctx.output.show(doc, views.forgotten)
    views.forgotten_note(ctx.output, doc, verb, nothing)
