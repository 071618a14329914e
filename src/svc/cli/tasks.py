"""`svc tasks`: the submissions this machine made, from the local ledger."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from svc.cli.app import current

if TYPE_CHECKING:
    from svc.store.ledger import Submission
    from svc.ui.output import Output

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
    app_ctx.output.show([row.public_dict() for row in rows], lambda out, _: _table(out, rows))


def _table(out: Output, rows: list[Submission]) -> None:
    """The ledger's rows (outside text: task ids and previews are stored as they came)."""
    if not rows:
        out.note("no tasks submitted from this machine yet")
        return
    from datetime import datetime

    from svc.money import atomic_to_usd
    from svc.ui.output import Column
    from svc.ui.sanitize import clean
    from svc.ui.views import state_cell

    columns: list[str | Column] = ["created", "task id", "state", "paid", "status", "request id"]
    columns.append(Column("task", fold=True))
    cells = []
    for row in rows:
        created = datetime.fromtimestamp(row.created_at).strftime("%Y-%m-%d %H:%M")
        paid = (
            f"{atomic_to_usd(row.amount_atomic)} {row.method}"
            if row.amount_atomic and row.has_proof
            else "-"
        )
        preview = clean(row.task_preview, 60, single_line=True)
        task_id = row.task_id or "-"
        state = state_cell(row.state)
        cells.append([created, task_id, state, paid, row.status, row.request_id, preview])
    out.table(columns, cells)
