"""`svc poll ID`: one GET of a task, presented by `svc.cli.polled`."""

from __future__ import annotations

from dataclasses import dataclass

import typer

from svc.cli.app import current
from svc.cli.polled import present
from svc.engines.poll import poll_once
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@dataclass(frozen=True)
class PollOptions:
    task_id: str
    exit_status: bool = False


@app.command(
    help="Fetch a task once and print its detail, with its events.\n\n"
    "Free. Prints the service's object as returned, so scripts can use jq on it.\n\n"
    "\b\nExamples:\n"
    "  svc poll task_8f2c41d09b7e6a13\n"
    "  svc poll task_8f2c41d09b7e6a13 | jq -r .state\n"
    "  svc poll task_8f2c41d09b7e6a13 --exit-status && echo done"
)
def poll(
    task_id: str = typer.Argument(..., metavar="ID", help="Task id."),
    exit_status: bool = typer.Option(
        False,
        "--exit-status",
        help="Exit code follows the state: 0 completed, 3 failed or "
        "cancelled, 6 blocked on the user, 11 still live (pending or running).",
    ),
) -> None:
    raise typer.Exit(run(PollOptions(task_id, exit_status), current()))


def run(opts: PollOptions, ctx: FaceContext) -> int:
    return present(ctx, poll_once(ctx, opts.task_id), opts.exit_status)
