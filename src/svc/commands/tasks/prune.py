"""`svc tasks prune --gone|--refused`: remove the rows of tasks the service no longer knows, or
of submits refused before anything was paid (`svc.engines.forget` picks them)."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.commands.tasks.views import remove
from svc.engines.forget import matching
from svc.errors import UsageError
from svc.operations.tasks import PruneRequest
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Remove the rows of tasks the service no longer knows, or of refused submits.\n\n"
    "--gone: tasks the service answered 404 for (`svc watch --all` and `svc tasks --refresh` "
    "mark them gone: a sandbox restarted, or the task belongs to another agent). --refused: "
    "submits refused before anything was signed or paid (over the price limit, say). A row "
    "that paid, or may have, is kept and named unless --force, which names what each paid "
    "before removing it.\n\n"
    "\b\nExamples:\n"
    "  svc tasks prune --gone\n"
    "  svc tasks prune --gone --refused --json"
)
def prune(**given: Any) -> None:
    raise typer.Exit(run(PruneRequest.model_construct(**given), current()))


with_options_of(PruneRequest, prune)  # --gone, --refused, --force: as the operation declares


def run(opts: PruneRequest, ctx: FaceContext) -> int:
    if not (opts.gone or opts.refused):
        raise UsageError(
            "say which rows to prune: --gone, --refused or both",
            hint="svc tasks prune --gone removes the tasks the service no longer knows",
        )
    found = matching(ctx, gone=opts.gone, refused=opts.refused)
    remove(ctx, found, opts.force, "pruned", _none_matched(opts))
    return 0


def _none_matched(opts: PruneRequest) -> str:
    """Why an empty prune is empty: the rows asked for are not in the ledger."""
    if opts.gone and opts.refused:
        return "no task in the ledger is marked gone, and no submit was refused before paying"
    if opts.gone:
        return (
            "no task in the ledger is marked gone "
            "(`svc watch --all` and `svc tasks --refresh` mark them)"
        )
    return "no submit in the ledger was refused before paying"
