"""`svc services show SLUG`: one service's operations, every page of its description."""

from __future__ import annotations

from dataclasses import dataclass

import typer

from svc.cli.app import current
from svc.engines.discovery import operations, service_operations
from svc.errors import UsageError
from svc.ui.face import FaceContext
from svc.ui.operations import draw_operations

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@dataclass(frozen=True)
class ShowOptions:
    slug: str


@app.command(
    help="Show one service's operations (GET /services/SLUG/openapi.json, every page).\n\n"
    "With --json: its OpenAPI document as returned (pages merged).\n\n"
    "\b\nExample:\n  svc services show tasks"
)
def show(slug: str = typer.Argument(..., metavar="SLUG", help="Service slug, e.g. tasks.")) -> None:
    if not slug.strip():
        raise UsageError("the service slug is empty")
    raise typer.Exit(run(ShowOptions(slug), current()))


def run(opts: ShowOptions, app_ctx: FaceContext) -> int:
    # A table needs only the summaries; JSON the description as returned.
    doc = service_operations(app_ctx, opts.slug, slim=not app_ctx.output.json_mode)
    app_ctx.output.show(doc, lambda out, d: draw_operations(out, operations(d)))
    return 0
