"""`svc manifest`: the live catalog of services, meters, plans, prices and free units."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from svc.cli.app import current

if TYPE_CHECKING:
    from rich.table import Table

app = typer.Typer(rich_markup_mode=None)

# (section, title, columns as (heading, key)); a rate's keys may sit on the row or in `rates`.
SECTIONS: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...] = (
    ("services", "Services", (("SLUG", "slug"), ("NAME", "name"), ("PRICE USD", "priceUsd"))),
    (
        "meters",
        "Meters",
        (
            ("SERVICE", "service"),
            ("METER", "meter"),
            ("UNIT", "unit"),
            ("UNIT SIZE", "unitSize"),
            ("FREE UNITS", "freeUnits"),
        ),
    ),
    (
        "plans",
        "Plans",
        (
            ("PLAN", "id"),
            ("ACCESS", "accessMode"),
            ("PRICE MODE", "priceMode"),
            ("SERVICE", "service"),
            ("METER", "meter"),
            ("UNIT", "unit"),
            ("UNIT SIZE", "unitSize"),
            ("PRICE USD", "priceUsd"),
            ("FREE UNITS", "freeUnits"),
        ),
    ),
    ("prices", "Prices", (("OPERATION", "operation"), ("PRICE USD", "priceUsd"))),
)


@app.command(
    help="Show the live catalog: services, meters, plans, prices and free included units.\n\n"
    "Reads GET /manifest.json: tables on a terminal; the manifest as returned with --json.\n\n"
    "\b\nExamples:\n  svc manifest\n  svc manifest --json | jq '.plans'"
)
def manifest() -> None:
    from svc.api.discovery import DiscoveryClient

    app_ctx = current()
    doc = DiscoveryClient(app_ctx.http, app_ctx.settings.base_url).manifest()
    if app_ctx.output.json_mode:
        app_ctx.output.emit_json(doc)
        return
    if not isinstance(doc, dict):
        from svc.api.errors import ProtocolError

        raise ProtocolError("manifest: the server's answer is not an object")
    console = app_ctx.output.console
    shown = 0
    for key, title, columns in SECTIONS:
        rows = [row for row in doc.get(key) or [] if isinstance(row, dict)]
        if rows:
            if shown:
                console.print()
            console.print(_table(title, columns, _flatten(key, rows)))
            shown += 1
    if not shown:
        app_ctx.output.note("the manifest lists nothing")


def _flatten(section: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Plans carry their rates in a list: one table row per rate."""
    if section != "plans":
        return rows
    flat: list[dict[str, Any]] = []
    for plan in rows:
        rates = [r for r in plan.get("rates") or [] if isinstance(r, dict)] or [{}]
        flat += [{**plan, **rate} for rate in rates]
    return flat


def _table(title: str, columns: tuple[tuple[str, str], ...], rows: list[dict[str, Any]]) -> Table:
    from rich.table import Table

    from svc.ui.sanitize import clean

    table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
    for heading, _ in columns:
        table.add_column(heading, overflow="fold")
    for row in rows:
        table.add_row(*(_cell(row.get(key), clean) for _, key in columns))
    return table


def _cell(value: Any, clean: Any) -> str:
    if value is None:
        return ""
    return str(clean(value, 200, single_line=True))
