"""`svc api get PATH [--method M]`: one operation, or every method on a path."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import typer

from svc.cli.app import current
from svc.commands.api.operations import checked_method
from svc.engines.discovery import matching_operations
from svc.errors import NotFound
from svc.ui.face import FaceContext
from svc.ui.operations import draw_operation
from svc.ui.output import Output

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@dataclass(frozen=True)
class GetOptions:
    path: str
    method: str | None = None  # upper case, checked


@app.command(
    name="get",
    help="Show one operation (or every method on a path) from the description.\n\n"
    "PATH is a path template as listed by `svc api search`. With --json: the operations as "
    "the description gives them.\n\n"
    "\b\nExamples:\n"
    "  svc api get /svc/tasks --method POST\n"
    "  svc api get '/svc/tasks/{ticket_id}' --json",
)
def get(
    path: str = typer.Argument(..., metavar="PATH", help="The path template, e.g. /svc/tasks."),
    method: str | None = typer.Option(
        None, "--method", "-X", metavar="M", help="Only this HTTP method."
    ),
) -> None:
    raise typer.Exit(run(GetOptions(path, checked_method(method)), current()))


def run(opts: GetOptions, ctx: FaceContext) -> int:
    doc, found = matching_operations(ctx, opts.path, opts.method)  # whole: the detail shows each
    if not found:
        which = f"{opts.method} {opts.path}" if opts.method else opts.path
        raise NotFound(
            f"no operation {which} in the service's description",
            hint="list them with: svc api search --all",
        )
    ctx.output.show(doc, lambda out, _: _details(out, found))
    return 0


def _details(out: Output, found: list[tuple[str, str, dict[str, Any]]]) -> None:
    for index, (verb, op_path, op) in enumerate(found):
        if index:
            out.line()
        draw_operation(out, verb, op_path, op)
