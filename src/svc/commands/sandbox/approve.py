"""`svc sandbox approve ID`: approve a task's pending payment, as the person would."""

from __future__ import annotations

from dataclasses import dataclass

import typer

from svc.cli.app import current
from svc.engines import sandbox_admin
from svc.engines.ids import task_id_arg
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@dataclass(frozen=True)
class ApproveOptions:
    task_id: str


@app.command(
    help="Approve a task's pending payment, as the person would in their app (sandbox only).\n\n"
    "For a task submitted with #approval once it asks for the payment; the next poll or "
    "watch sees the approval and the task carries on.\n\n"
    "\b\nExamples:\n  svc sandbox approve task_0123"
)
def approve(task_id: str = typer.Argument(..., metavar="ID", help="The task.")) -> None:
    raise typer.Exit(run(ApproveOptions(task_id_arg(task_id)), current()))


def run(opts: ApproveOptions, app_ctx: FaceContext) -> int:
    doc = sandbox_admin.approve(app_ctx, opts.task_id)
    if app_ctx.output.json_mode:
        app_ctx.output.emit_json(doc)
    else:
        app_ctx.output.line(
            "approved {id}; the next poll shows it: svc watch {id}", id=opts.task_id
        )
    return 0
