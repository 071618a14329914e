"""`svc spend`: parse, then draw the report `svc.store.spend` builds from the ledger."""

from __future__ import annotations

import typer

from svc.cli.app import current
from svc.errors import UsageError
from svc.store.spend import day_start, load_spend
from svc.ui import views
from svc.ui.words import counted

app = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Show what was paid, by day, task and rail, with refunds, from the local ledger.\n\n"
    "Counts accepted paid submissions and refunds the service reported (svc-billing). "
    "Outstanding authorizations (signed, not known spent, not void, not expired: money that "
    "may still leave, and that counts against the daily cap) are listed apart, as are "
    "submissions whose outcome is unknown and card payments waiting for a person. A table on "
    "a terminal (amounts as 1.50 USD), one JSON document when piped or with --json (amounts "
    "exact, as 6-decimal strings).\n\n"
    "\b\nExamples:\n"
    "  svc spend\n"
    "  svc spend --since 2026-11-01\n"
    "  svc spend --json | jq .by_rail"
)
def spend(
    since: str | None = typer.Option(
        None, "--since", metavar="YYYY-MM-DD", help="Only days from this one on."
    ),
) -> None:
    try:
        day_start(since)
    except ValueError:
        raise UsageError(f"--since must be a date like 2026-11-01, got {since!r}") from None
    app_ctx = current()
    doc = load_spend(app_ctx.ledger if app_ctx.has_ledger() else None, since)
    app_ctx.output.show(doc, views.spend)  # ledger rows are outside text: ui cleans every cell
    if app_ctx.output.json_mode:
        return
    if doc["unknown_outcome"]:
        unknown = counted(len(doc["unknown_outcome"]), "paid submission", "has", "have")
        app_ctx.output.warn(f"{unknown} an unknown outcome; see `svc tasks`")
    if doc["awaiting_card"]:
        waiting = counted(len(doc["awaiting_card"]), "card payment", "waits", "wait")
        app_ctx.output.warn(f"{waiting} for a person; run `svc pay card`")
