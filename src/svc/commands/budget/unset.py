"""`svc budget unset [--per WINDOW] [--runner NAME | --fleet]`."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.commands.budget.scope import target
from svc.engines.budget import unset_budget
from svc.operations.budget import BudgetUnsetRequest
from svc.ui.face import FaceContext
from svc.words import plural

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Remove a budget: one window's (--per), or every window of the scope.\n\n"
    "The scope is the profile in effect, a runner (--runner NAME) or the fleet (--fleet). "
    "A scope with no such budget is exit 2.\n\n"
    "\b\nExamples:\n"
    "  svc budget unset --per week\n"
    "  svc budget unset --runner ci-7",
)
def unset(**given: Any) -> None:
    raise typer.Exit(run(BudgetUnsetRequest.model_construct(**given), current()))


with_options_of(BudgetUnsetRequest, unset)  # --per, --runner, --fleet: as the operation declares


def run(opts: BudgetUnsetRequest, ctx: FaceContext) -> int:
    where = target(ctx, opts.runner, opts.fleet)
    gone = unset_budget(ctx, opts.per, where)
    doc = {"scope": where.scope, "name": where.name, "per": opts.per, "removed": gone}
    ctx.output.show(doc, lambda out, _: out.line("removed {n}", n=plural(gone, "budget")))
    return 0
