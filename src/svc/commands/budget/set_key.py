"""`svc budget set AMOUNT --per WINDOW [--runner NAME | --fleet]`."""

from __future__ import annotations

from dataclasses import dataclass

import typer

from svc.cli.app import current
from svc.commands.budget.scope import target
from svc.engines.budget import set_budget
from svc.ui import views_budget
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@dataclass(frozen=True)
class SetOptions:
    amount: str
    per: str
    runner: str | None = None
    fleet: bool = False


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
def set_command(
    amount: str = typer.Argument(..., metavar="AMOUNT", help="USD, such as 50 or 12.50."),
    per: str = typer.Option(
        ..., "--per", metavar="WINDOW", help="day, week, month, rolling:24h, rolling:7d."
    ),
    runner: str | None = typer.Option(
        None, "--runner", metavar="NAME", help="Limit this runner (default: the profile)."
    ),
    fleet: bool = typer.Option(False, "--fleet", help="Limit the whole fleet (ledger_url)."),
) -> None:
    raise typer.Exit(run(SetOptions(amount, per, runner, fleet), current()))


def run(opts: SetOptions, ctx: FaceContext) -> int:
    doc = set_budget(ctx, opts.amount, opts.per, target(ctx, opts.runner, opts.fleet))
    if doc["warning"]:  # on stderr in every mode: a script sees it beside the JSON's field
        ctx.output.warn(doc["warning"])
    ctx.output.show(doc, views_budget.changed)
    return 0
