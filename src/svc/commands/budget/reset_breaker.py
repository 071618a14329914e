"""`svc budget reset-breaker [--runner NAME]`: pay again after the breaker stopped a runner."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.engines.budget import reset_breaker
from svc.operations.budget import BudgetResetBreakerRequest
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    name="reset-breaker",
    help="Let a runner pay again after its breaker stopped it.\n\n"
    "The breaker opens after breaker_after failed or refunded paid requests in a row. Only "
    "the paid requests after the reset count toward the next trip. Fix the cause first: a "
    "broken loop trips it again.\n\n"
    "\b\nExamples:\n"
    "  svc budget reset-breaker\n"
    "  svc budget reset-breaker --runner ci-7",
)
def reset(**given: Any) -> None:
    raise typer.Exit(run(BudgetResetBreakerRequest.model_construct(**given), current()))


with_options_of(BudgetResetBreakerRequest, reset)  # --runner: as the operation declares it


def run(opts: BudgetResetBreakerRequest, ctx: FaceContext) -> int:
    name = reset_breaker(ctx, opts.runner)
    doc = {"runner": name, "breaker": "closed"}
    ctx.output.show(doc, lambda out, d: out.line("breaker of {r} reset", r=d["runner"]))
    return 0
