"""`svc tasks forget ID...`: remove rows from the ledger (`svc.engines.forget` finds them)."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.commands.tasks.views import remove
from svc.engines.forget import named, refuse_money
from svc.operations.tasks import ForgetRequest
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Remove rows from the ledger, named by task id or request id.\n\n"
    "A row that is not money (nothing was signed or paid for it: a refused submit, a task "
    "the service no longer knows) goes at once. A row that paid, or may have, is what `svc "
    "spend` reads: it is refused (exit 2, nothing removed) unless --force, and then each is "
    "named with what it paid before it goes. The daily cap keeps counting what was paid "
    "today either way. An id the ledger does not hold is exit 7 and nothing is removed.\n\n"
    "\b\nExamples:\n"
    "  svc tasks forget task_8f2c41d09b7e6a13\n"
    "  svc tasks forget req_3b0c9a1e5d7f4e21a8c6b2d4f0e1a3c5"
)
def forget(**given: Any) -> None:
    raise typer.Exit(run(ForgetRequest.model_construct(**given), current()))


with_options_of(ForgetRequest, forget)  # ID... and --force: as the operation declares them


def run(opts: ForgetRequest, ctx: FaceContext) -> int:
    found = named(ctx, list(dict.fromkeys(opts.ids)))
    if found.money and not opts.force:
        raise refuse_money(found.money)
    remove(ctx, found, opts.force)
    return 0
