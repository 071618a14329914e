"""`svc tasks`: the submissions this machine made, from the local ledger."""

from __future__ import annotations

import typer

from svc.cli.app import current

app = typer.Typer(rich_markup_mode=None)


@app.command(
    help="List the tasks this machine submitted, newest first, from the local ledger.\n\n"
    "The service has no list call; the ledger remembers every submission, its request id, "
    "payment and last known state (refresh states with `svc poll` or `svc watch`). Rows with "
    "status 'unknown' are paid submissions whose answer was lost: resume them with "
    "`svc submit --request-id ID` and the same task.\n\n"
    "\b\nExamples:\n"
    "  svc tasks\n"
    "  svc tasks --json | jq -r '.[] | select(.state==\"blocked_on_user\") | .task_id'"
)
def tasks(
    limit: int = typer.Option(50, "--limit", "-n", min=1, help="At most this many rows."),
) -> None:
    app_ctx = current()
    rows = app_ctx.ledger.submissions(limit=limit)
    if app_ctx.output.json_mode:
        app_ctx.output.emit_json([row.public_dict() for row in rows])
        return
    if not rows:
        app_ctx.output.note("no tasks submitted from this machine yet")
        return
    from datetime import datetime

    from rich.table import Table
    from rich.text import Text

    from svc.pay.x402 import atomic_to_usd
    from svc.ui.render import state_text
    from svc.ui.sanitize import clean

    table = Table(box=None, header_style="bold")
    for column in ("created", "task id", "state", "paid", "status", "request id", "task"):
        table.add_column(column, overflow="fold" if column == "task" else "ellipsis")
    for row in rows:
        created = datetime.fromtimestamp(row.created_at).strftime("%Y-%m-%d %H:%M")
        paid = (
            f"{atomic_to_usd(row.amount_atomic)} {row.method}"
            if row.amount_atomic and row.has_proof
            else "-"
        )
        table.add_row(
            created,
            Text(clean(row.task_id or "-", 60, single_line=True)),
            state_text(row.state) if row.state else Text("-"),
            paid,
            row.status,
            row.request_id,
            Text(clean(row.task_preview, 60, single_line=True)),
        )
    app_ctx.output.console.print(table)
