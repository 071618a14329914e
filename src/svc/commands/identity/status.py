"""`svc identity status`: the stored credential, local only."""

from __future__ import annotations

from dataclasses import dataclass

import typer

from svc.cli.app import current
from svc.commands.identity.views import next_step, show
from svc.engines.identity import status_document
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@dataclass(frozen=True)
class StatusOptions:
    """No flags of its own: the global ones say where and how to show it."""


@app.command(
    help="Show the stored credential: who and what, never the secrets.\n\n"
    "Local only; says what to do next when the credential still needs a claim.\n\n"
    "\b\nExamples:\n  svc identity status\n  svc identity status --json | jq .claimed"
)
def status() -> None:
    raise typer.Exit(run(StatusOptions(), current()))


def run(opts: StatusOptions, ctx: FaceContext) -> int:
    cred = ctx.identity.credential()
    if cred is None:
        show(ctx, status_document(ctx, None), "No agent credential is stored.")
        return 0
    step = next_step(cred)
    show(ctx, status_document(ctx, cred), "Agent credential:")
    if step:
        ctx.output.note(step)
    return 0
