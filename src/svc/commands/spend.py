"""`svc spend`: draw the report `svc.engines.spend` builds from the ledger."""

from __future__ import annotations

from typing import Any

import typer

from svc.address import is_address
from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.engines.export import FORMATS, export
from svc.engines.spend import Whose, Window, spend_document, spend_window
from svc.errors import LedgerDiskError, LedgerUnavailableError, UsageError, ledger_read_hint
from svc.operations.spend import SpendRequest
from svc.ui import views
from svc.ui.face import FaceContext
from svc.words import counted

app: typer.Typer = typer.Typer(rich_markup_mode=None)


FLAGS = ("--since", "--until")  # what a person types for the window's two days


@app.command(
    help="Show what was paid, by day, rail, runner and task, with refunds, from the ledger.\n\n"
    "The window is the last 30 days (today and the 29 before) unless --since, --until or "
    "--all say otherwise; it costs what the window holds, not the ledger's age. On a "
    "terminal: the total, today against the daily cap, a bar per day, sums by rail and by "
    "runner; --tasks adds every paid task (paged). One JSON document when piped or with "
    "--json (amounts exact, as 6-decimal strings). Counts accepted paid submissions and "
    "refunds the service reported (svc-billing); outstanding authorizations (signed, not "
    "known spent, void or expired: they count against the daily cap) are listed apart, as "
    "are submissions whose outcome is unknown and card payments waiting for a person, of "
    "any age. On a shared ledger (ledger_url) it is the fleet's: --runner NAME keeps one "
    "runner's share. A profile named by --profile or SVC_PROFILE keeps what that profile "
    "paid, --wallet ADDRESS what one wallet paid; with neither, every payment counts.\n\n"
    "--format csv|beancount|ledger|json exports the window for an accountant: one row or "
    "transaction per charge and per refund (a refund goes with its charge's window), with "
    "the task id, request id and settlement reference (x402 transaction, MPP receipt "
    "reference, card payment id) as metadata; amounts exact; totals equal `svc spend`'s. "
    "`svc receipt ID` shows one payment.\n\n"
    "\b\nExamples:\n"
    "  svc spend\n"
    "  svc spend --tasks\n"
    "  svc spend --since 2026-11-01 --until 2026-11-30\n"
    "  svc spend --all --json | jq .by_rail\n"
    "  svc spend --format beancount --since 2026-11-01 > svc.beancount\n"
    "  svc spend --runner ci-7 --json | jq .cap.by_runner\n"
    "  svc spend --profile work --format csv > work.csv"
)
def spend(**given: Any) -> None:
    # Built unchecked: the engine reads each value and words its own error (a flag's name).
    raise typer.Exit(run(SpendRequest.model_construct(**given), current()))


with_options_of(SpendRequest, spend)  # --since ... --wallet: as the operation declares them


def run(opts: SpendRequest, ctx: FaceContext) -> int:
    if opts.whole and opts.since:
        raise UsageError("--all and --since both say where the window starts: choose one")
    if opts.format is not None and opts.format not in FORMATS:
        raise UsageError(f"--format must be one of {', '.join(FORMATS)}, got {opts.format!r}")
    shape = ctx.output.shape
    if opts.format is not None and shape is not None and shape.active:  # refused, never ignored
        raise UsageError("--jq, --template and --json FIELDS shape svc's JSON, not an export")
    span = spend_window(opts.since, opts.until, whole=opts.whole, names=FLAGS)
    whose = _whose(opts, ctx)
    try:
        if opts.format is not None:
            return _export(opts.format, ctx, span, whose)
        with_tasks = opts.tasks or ctx.output.json_mode
        doc = spend_document(ctx, None, whose=whose, span=span, with_tasks=with_tasks)
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


def _whose(opts: SpendRequest, ctx: FaceContext) -> Whose:
    """Whose payments count: a runner's, the profile a person named (a profile in effect only
    by default keeps everyone's, as before profiles were recorded), a wallet's."""
    wallet = opts.wallet
    if wallet is not None and not is_address(wallet):
        raise UsageError(f"--wallet must be a 0x address of 40 hex digits, got {wallet!r}")
    settings = ctx.settings
    named = settings.sources.get("profile", "default") != "default"
    return Whose(opts.runner, settings.profile if named else None, wallet)


def _export(fmt: str, ctx: FaceContext, span: Window, whose: Whose) -> int:
    """The window as a file's text on stdout, whatever the output mode (it is the format)."""
    ctx.output.document(export(ctx, fmt, span, whose))
    return 0
