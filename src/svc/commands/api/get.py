"""`svc api get PATH [--method M]`: one operation, or every method on a path."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.commands.api.operations import checked_method
from svc.engines.discovery import matching_operations
from svc.errors import NotFound
from svc.operations.discovery import ApiGetRequest
from svc.ui.face import FaceContext
from svc.ui.operations import draw_operation
from svc.ui.output import Output

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    name="get",
    help="Show one operation (or every method on a path) from the description.\n\n"
    "PATH is a path template as listed by `svc api search`. With --json: the operations as "
    "the description gives them.\n\n"
    "\b\nExamples:\n"
    "  svc api get /svc/tasks --method POST\n"
    "  svc api get '/svc/tasks/{ticket_id}' --json",
)
def get(**given: Any) -> None:
    raise typer.Exit(run(ApiGetRequest.model_construct(**given), current()))


with_options_of(ApiGetRequest, get)  # PATH and --method: as the operation declares them


def run(opts: ApiGetRequest, ctx: FaceContext) -> int:
    method = checked_method(opts.method)  # upper case, as the description spells it
    doc, found = matching_operations(ctx, opts.path, method)  # whole: the detail shows each
    if not found:
        which = f"{method} {opts.path}" if method else opts.path
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
