"""`svc budget set AMOUNT --per WINDOW [--runner NAME | --fleet]`."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.commands.budget.scope import target
from svc.engines.budget import set_budget
from svc.operations.budget import BudgetSetRequest
from svc.ui import views_budget
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    name="set",
    help="Set a spending limit: AMOUNT USD per day, week, month or rolling window.\n\n"
    "Windows: day, week (Monday to Sunday), month (in local time), or rolling:24h, "
    "rolling:7d.\n\n"
    "The scope is the profile in effect (--profile NAME picks another), a runner (--runner "
    "NAME) or the whole fleet (--fleet, in the shared ledger). Setting a scope's window again "
    "replaces its amount.\n\n"
    "\b\nExamples:\n"
    "  svc budget set 50 --per week\n"
    "  svc budget set 5 --per day --runner ci-7\n"
    "  svc budget set 500 --per month --fleet",
)
def set_command(**given: Any) -> None:
    # Built unchecked: the engine reads the amount and the window and words its own error.
    raise typer.Exit(run(BudgetSetRequest.model_construct(**given), current()))


with_options_of(BudgetSetRequest, set_command)  # AMOUNT, --per, --runner, --fleet: as declared


def run(opts: BudgetSetRequest, ctx: FaceContext) -> int:
    doc = set_budget(ctx, opts.amount, opts.per, target(ctx, opts.runner, opts.fleet))
    if doc["warning"]:  # on stderr in every mode: a script sees it beside the JSON's field
        ctx.output.warn(doc["warning"])
    ctx.output.show(doc, views_budget.changed)
    return 0
