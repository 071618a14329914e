"""`svc spend`: draw the report `svc.engines.spend` builds from the ledger."""

from __future__ import annotations

from dataclasses import dataclass

import typer

from svc.cli.app import current
from svc.engines.spend import spend_document
from svc.errors import LedgerDiskError, LedgerUnavailableError, ledger_read_hint
from svc.ui import views
from svc.ui.face import FaceContext
from svc.ui.words import counted

app = typer.Typer(rich_markup_mode=None)


@dataclass(frozen=True)
class SpendOptions:
    since: str | None = None  # YYYY-MM-DD
    runner: str | None = None  # one runner's share of a shared (fleet) ledger


@app.command(
    help="Show what was paid, by day, task and rail, with refunds, from the ledger.\n\n"
    "Counts accepted paid submissions and refunds the service reported (svc-billing). "
    "Outstanding authorizations (signed, not known spent, not void, not expired: money that "
    "may still leave, and that counts against the daily cap) are listed apart, as are "
    "submissions whose outcome is unknown and card payments waiting for a person. A table on "
    "a terminal (amounts as 1.50 USD), one JSON document when piped or with --json (amounts "
    "exact, as 6-decimal strings). On a shared ledger (ledger_url) it is the fleet's: "
    "--runner NAME keeps one runner's share, and `cap` says today's exposure against "
    "daily_cap_usd and which runner holds it.\n\n"
    "\b\nExamples:\n"
    "  svc spend\n"
    "  svc spend --since 2026-11-01\n"
    "  svc spend --json | jq .by_rail\n"
    "  svc spend --runner ci-7 --json | jq .cap.by_runner"
)
def spend(
    since: str | None = typer.Option(
        None, "--since", metavar="YYYY-MM-DD", help="Only days from this one on."
    ),
    runner: str | None = typer.Option(
        None, "--runner", metavar="NAME", help="Only what this runner paid (a shared ledger)."
    ),
) -> None:
    raise typer.Exit(run(SpendOptions(since, runner), current()))


def run(opts: SpendOptions, ctx: FaceContext) -> int:
    try:
        doc = spend_document(ctx, opts.since, runner=opts.runner)
    except LedgerUnavailableError as error:
        if not isinstance(error, LedgerDiskError):  # a local file's own hint names the disk
            error.hint = ledger_read_hint("svc spend")
        raise
    ctx.output.show(doc, views.spend)  # ledger rows are outside text: ui cleans every cell
    if ctx.output.json_mode:
        return 0
    if doc["unknown_outcome"]:
        unknown = counted(len(doc["unknown_outcome"]), "paid submission", "has", "have")
        ctx.output.warn(f"{unknown} an unknown outcome; see `svc tasks`")
    if doc["awaiting_card"]:
        waiting = counted(len(doc["awaiting_card"]), "card payment", "waits", "wait")
        ctx.output.warn(f"{waiting} for a person; run `svc pay card`")
    return 0
