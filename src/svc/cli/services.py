"""`svc services` and `svc services show SLUG`: the services the seller offers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from svc.cli.app import current, with_globals
from svc.errors import UsageError
from svc.ui.operations import draw_operations
from svc.ui.tables import Column

if TYPE_CHECKING:
    from svc.ui.output import Output

app = typer.Typer(rich_markup_mode=None)


def _list(ctx: typer.Context) -> None:
    """List the services the seller offers (GET /services)."""
    if ctx.invoked_subcommand is not None:
        return
    app_ctx = current()
    from svc.api.discovery import DiscoveryClient

    doc = DiscoveryClient(app_ctx.http, app_ctx.settings.base_url).services()
    app_ctx.output.show(doc, _table)


def _table(out: Output, doc: Any) -> None:
    rows = _services(doc)
    if not rows:
        out.note("the service lists no services")
        return
    keys = ("slug", "name", "priceUsd", "description")
    columns = [Column(name, fold=True) for name in ("SLUG", "NAME", "PRICE USD", "DESCRIPTION")]
    out.table(columns, [[entry.get(key, "") for key in keys] for entry in rows], lines=True)


# The group's own callback lists the services; it needs the global options like a command.
app.callback(
    invoke_without_command=True,
    help="List the services the seller offers; `show SLUG` for one service's operations.\n\n"
    "Free, no wallet needed. With --json: the services document as returned.\n\n"
    "\b\nExamples:\n  svc services\n  svc services show tasks",
)(with_globals(_list))


@app.command(
    help="Show one service's operations (GET /services/SLUG/openapi.json, every page).\n\n"
    "With --json: its OpenAPI document as returned (pages merged).\n\n"
    "\b\nExample:\n  svc services show tasks"
)
def show(slug: str = typer.Argument(..., metavar="SLUG", help="Service slug, e.g. tasks.")) -> None:
    from svc.api.discovery import DiscoveryClient, merge, operations

    if not slug.strip():
        raise UsageError("the service slug is empty")
    app_ctx = current()
    client = DiscoveryClient(app_ctx.http, app_ctx.settings.base_url)
    pages = list(client.pages(client.service_url(slug), what=f"service {slug}"))
    doc = merge(pages) if len(pages) > 1 else pages[0].doc

    app_ctx.output.show(doc, lambda out, d: draw_operations(out, operations(d)))


def _services(doc: Any) -> list[dict[str, Any]]:
    items = doc.get("services") if isinstance(doc, dict) else doc
    return [s for s in items or [] if isinstance(s, dict)] if isinstance(items, list) else []
