"""`svc services show SLUG`: one service's operations, every page of its description."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.engines.discovery import operations, service_operations
from svc.errors import UsageError
from svc.operations.discovery import ServicesShowRequest
from svc.ui.face import FaceContext
from svc.ui.operations import draw_operations

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Show one service's operations (GET /services/SLUG/openapi.json, every page).\n\n"
    "With --json: its OpenAPI document as returned (pages merged).\n\n"
    "\b\nExample:\n  svc services show tasks"
)
def show(**given: Any) -> None:
    raise typer.Exit(run(ServicesShowRequest.model_construct(**given), current()))


with_options_of(ServicesShowRequest, show)  # SLUG: as the operation declares it


def run(opts: ServicesShowRequest, app_ctx: FaceContext) -> int:
    if not opts.slug.strip():
        raise UsageError("the service slug is empty")
    # A table needs only the summaries; JSON the description as returned.
    doc = service_operations(app_ctx, opts.slug, slim=not app_ctx.output.json_mode)
    app_ctx.output.show(doc, lambda out, d: draw_operations(out, operations(d)))
    return 0
