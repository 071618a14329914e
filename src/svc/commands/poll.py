"""`svc poll ID`: one GET of a task, presented by `svc.cli.polled`."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.cli.polled import present
from svc.engines.poll import poll_once
from svc.operations.poll import TaskRequest
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Fetch a task once and print its detail, with its events.\n\n"
    "Free. Prints the service's object as returned, so scripts can use jq on it.\n\n"
    "\b\nExamples:\n"
    "  svc poll task_8f2c41d09b7e6a13\n"
    "  svc poll task_8f2c41d09b7e6a13 | jq -r .state\n"
    "  svc poll task_8f2c41d09b7e6a13 --exit-status && echo done"
)
def poll(**given: Any) -> None:
    raise typer.Exit(run(TaskRequest.model_construct(**given), current()))


with_options_of(TaskRequest, poll)  # ID and --exit-status: as the operation declares them


def run(opts: TaskRequest, ctx: FaceContext) -> int:
    return present(ctx, poll_once(ctx, opts.task_id), opts.exit_status)
