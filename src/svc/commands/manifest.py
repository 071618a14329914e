"""`svc manifest`: the live catalog of services, meters, plans, prices and free units."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.engines.discovery import manifest as fetch_manifest
from svc.errors import ProtocolError
from svc.operations.discovery import ManifestRequest
from svc.ui.face import FaceContext
from svc.ui.tables import Column
from svc.words import price

if TYPE_CHECKING:
    from svc.ui.output import Output

app: typer.Typer = typer.Typer(rich_markup_mode=None)


# (section, title, columns as (heading, key)); a rate's keys may sit on the row or in `rates`.
SECTIONS: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...] = (
    ("services", "Services", (("SLUG", "slug"), ("NAME", "name"), ("PRICE", "priceUsd"))),
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
            ("PRICE", "priceUsd"),
            ("FREE UNITS", "freeUnits"),
        ),
    ),
    ("prices", "Prices", (("OPERATION", "operation"), ("PRICE", "priceUsd"))),
)


@app.command(
    help="Show the live catalog: services, meters, plans, prices and free included units.\n\n"
    "Reads GET /manifest.json: tables on a terminal; the manifest as returned with --json.\n\n"
    "\b\nExamples:\n  svc manifest\n  svc manifest --json | jq '.plans'"
)
def manifest(**given: Any) -> None:
    raise typer.Exit(run(ManifestRequest.model_construct(**given), current()))


with_options_of(ManifestRequest, manifest)  # no arguments of its own


def run(opts: ManifestRequest, app_ctx: FaceContext) -> int:
    doc = fetch_manifest(app_ctx)
    if not app_ctx.output.json_mode and not isinstance(doc, dict):
        raise ProtocolError("manifest: the server's answer is not an object")
    app_ctx.output.show(doc, _tables)
    return 0


def _tables(out: Output, doc: dict[str, Any]) -> None:
    shown = 0
    for key, title, columns in SECTIONS:
        rows = [row for row in doc.get(key) or [] if isinstance(row, dict)]
        if rows:
            if shown:
                out.line()
            headings = [_column(heading) for heading, _ in columns]
            cells = [[_cell(k, row.get(k)) for _, k in columns] for row in _flatten(key, rows)]
            out.table(headings, cells, title=title, lines=True)
            shown += 1
    if not shown:
        out.note("the manifest lists nothing")


def _flatten(section: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Plans carry their rates in a list: one table row per rate."""
    if section != "plans":
        return rows
    flat: list[dict[str, Any]] = []
    for plan in rows:
        rates = [r for r in plan.get("rates") or [] if isinstance(r, dict)] or [{}]
        flat += [{**plan, **rate} for rate in rates]
    return flat


def _column(heading: str) -> Column:
    """Prices are whole (`1.50 USD`, never `1.50000` over `0`); other cells wrap at words."""
    return (
        Column(heading, right=True, whole=True)
        if heading == "PRICE"
        else Column(heading, fold=True)
    )


def _cell(key: str, value: Any) -> object:
    if key == "priceUsd":
        return price(value)
    return "" if value is None else value
