"""`svc services`: the services the seller offers; `svc services show SLUG`: one's operations.

The group's own callback is the listing (`svc services` alone), so it takes the global
options like a command and follows options + run like one.
"""

from __future__ import annotations

from typing import Any

import typer
from typer._click.globals import get_current_context

from svc.cli.app import current, lazy_group, with_globals
from svc.cli.options import with_options_of
from svc.engines.discovery import services as fetch_services
from svc.operations.discovery import ServicesRequest
from svc.ui.face import FaceContext
from svc.ui.output import Output
from svc.ui.tables import Column
from svc.words import price

MEMBERS = {
    "show": (
        "svc.commands.services.show",
        "Show one service's operations (GET /services/SLUG/openapi.json, every page).",
    ),
}

app: typer.Typer = typer.Typer(cls=lazy_group(MEMBERS), rich_markup_mode=None)


def services(**given: Any) -> None:
    """List the services the seller offers (GET /services)."""
    if get_current_context().invoked_subcommand is None:  # `svc services` alone
        raise typer.Exit(run(ServicesRequest.model_construct(**given), current()))


with_options_of(ServicesRequest, services)  # no arguments of its own


def run(opts: ServicesRequest, app_ctx: FaceContext) -> int:
    doc = fetch_services(app_ctx)
    app_ctx.output.show(doc, _table)
    return 0


def _table(out: Output, doc: Any) -> None:
    rows = _services(doc)
    if not rows:
        out.note("the service lists no services")
        return
    columns = [Column("SLUG", fold=True), Column("NAME", fold=True)]
    columns += [Column("PRICE", right=True, whole=True), Column("DESCRIPTION", fold=True)]
    cells = [
        [
            entry.get("slug", ""),
            entry.get("name", ""),
            price(entry.get("priceUsd")),
            entry.get("description", ""),
        ]
        for entry in rows
    ]
    out.table(columns, cells, lines=True)


def _services(doc: Any) -> list[dict[str, Any]]:
    items = doc.get("services") if isinstance(doc, dict) else doc
    return [s for s in items or [] if isinstance(s, dict)] if isinstance(items, list) else []


app.callback(
    invoke_without_command=True,
    help="List the services the seller offers; `show SLUG` for one service's operations.\n\n"
    "Free, no wallet needed. With --json: the services document as returned.\n\n"
    "\b\nExamples:\n  svc services\n  svc services show tasks",
)(with_globals(services))
