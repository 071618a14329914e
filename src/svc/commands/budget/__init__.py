"""`svc budget`: the budgets, with what each has used and left and when it resets; `svc
budget set|unset` and `svc budget reset-breaker`.

The group's own callback is the listing, as `svc tasks` is; its members load when one runs.
"""

from __future__ import annotations

from typing import Any

import typer
from typer._click.globals import get_current_context

from svc.cli.app import current, lazy_group, with_globals
from svc.cli.options import with_options_of
from svc.engines.budget import report
from svc.operations.budget import BudgetRequest
from svc.ui import views_budget
from svc.ui.face import FaceContext

MEMBERS = {
    "set": ("svc.commands.budget.set_key", "Set a spending limit over a window."),
    "unset": ("svc.commands.budget.unset", "Remove a budget."),
    "reset-breaker": (
        "svc.commands.budget.reset_breaker",
        "Let a runner pay again after its breaker stopped it.",
    ),
}

app: typer.Typer = typer.Typer(cls=lazy_group(MEMBERS), rich_markup_mode=None)

HELP = (
    "Show the budgets: each one's limit, what is used and left, when it resets.\n\n"
    "Used is the daily cap's measure: spent, or authorized and not yet void or expired. A "
    "bar for each budget, then the breaker and the hourly rate.\n\n"
    "A budget limits a scope over a window: the profile in effect (the default), a runner "
    "(--runner NAME) or the whole fleet (--fleet: in the shared ledger, obeyed by every "
    "runner). Windows: day, week (Monday to Sunday), month, in this machine's local time "
    "zone, or rolling:24h, rolling:7d. Several may hold at once: the tightest refuses first "
    "(exit 5, budget_exceeded, naming the budget and its reset), before anything is signed. "
    "At budget_warn_percent (default 80) of a budget, one warning per window. "
    "breaker_after (default 5): after that many paid requests in a row that failed or were "
    "refunded, this runner pays nothing more (exit 5, breaker_open) until `svc budget "
    "reset-breaker` or an hour after the oldest of them. max_paid_per_hour limits how many "
    "paid requests this runner starts in an hour (rate_limited). session_budget_usd limits "
    "each svc mcp session. JSON when piped or with --json.\n\n"
    "\b\nExamples:\n"
    "  svc budget\n"
    "  svc budget set 50 --per week\n"
    "  svc budget set 10 --per rolling:24h --runner ci-7\n"
    "  svc budget unset --per week\n"
    "  svc budget reset-breaker"
)


def budget(**given: Any) -> None:
    # The group's context is read, not taken as a parameter: the signature is the request's.
    if get_current_context().invoked_subcommand is None:
        raise typer.Exit(run(BudgetRequest.model_construct(**given), current()))


def run(opts: BudgetRequest, ctx: FaceContext) -> int:
    doc = report(ctx)
    ctx.output.show(doc, views_budget.draw)
    return 0


# None of its own (only the global ones): as the operation declares it.
callback = with_globals(with_options_of(BudgetRequest, budget))
app.callback(invoke_without_command=True, help=HELP)(callback)
