"""`svc budget unset [--per WINDOW] [--runner NAME | --fleet]`."""

from __future__ import annotations

from dataclasses import dataclass

import typer

from svc.cli.app import current
from svc.commands.budget.scope import target
from svc.engines.budget import unset_budget
from svc.ui.face import FaceContext
from svc.words import plural

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@dataclass(frozen=True)
class UnsetOptions:
    per: str | None = None
    runner: str | None = None
    fleet: bool = False


@app.command(
    help="Remove a budget: one window's (--per), or every window of the scope.\n\n"
    "The scope is the profile in effect, a runner (--runner NAME) or the fleet (--fleet). "
    "A scope with no such budget is exit 2.\n\n"
    "\b\nExamples:\n"
    "  svc budget unset --per week\n"
    "  svc budget unset --runner ci-7",
)
def unset(
    per: str | None = typer.Option(
        None, "--per", metavar="WINDOW", help="Only this window's budget."
    ),
    runner: str | None = typer.Option(
        None, "--runner", metavar="NAME", help="A runner's budget (default: the profile)."
    ),
    fleet: bool = typer.Option(False, "--fleet", help="The fleet's budget (ledger_url)."),
) -> None:
    raise typer.Exit(run(UnsetOptions(per, runner, fleet), current()))


def run(opts: UnsetOptions, ctx: FaceContext) -> int:
    where = target(ctx, opts.runner, opts.fleet)
    gone = unset_budget(ctx, opts.per, where)
    doc = {"scope": where.scope, "name": where.name, "per": opts.per, "removed": gone}
    ctx.output.show(doc, lambda out, _: out.line("removed {n}", n=plural(gone, "budget")))
    return 0
