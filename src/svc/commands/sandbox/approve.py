"""`svc sandbox approve ID`: approve a task's pending payment, as the person would."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.engines import sandbox_admin
from svc.engines.ids import task_id_arg
from svc.operations.sandbox import SandboxApproveRequest
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Approve a task's pending payment, as the person would in their app (sandbox only).\n\n"
    "For a task submitted with #approval once it asks for the payment; the next poll or "
    "watch sees the approval and the task carries on.\n\n"
    "\b\nExamples:\n  svc sandbox approve task_0123"
)
def approve(**given: Any) -> None:
    raise typer.Exit(run(SandboxApproveRequest.model_construct(**given), current()))


with_options_of(SandboxApproveRequest, approve)  # ID: as the operation declares it


def run(opts: SandboxApproveRequest, app_ctx: FaceContext) -> int:
    task_id = task_id_arg(opts.task_id)
    doc = sandbox_admin.approve(app_ctx, task_id)
    if app_ctx.output.json_mode:
        app_ctx.output.emit_json(doc)
    else:
        app_ctx.output.line("approved {id}; the next poll shows it: svc watch {id}", id=task_id)
    return 0
