"""`svc identity status`: the stored credential, local only."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.commands.identity.views import next_step, show
from svc.engines.identity import status_document
from svc.operations.identity import IdentityStatusRequest
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Show the stored credential: who and what, never the secrets.\n\n"
    "Local only; says what to do next when the credential still needs a claim.\n\n"
    "\b\nExamples:\n  svc identity status\n  svc identity status --json | jq .claimed"
)
def status(**given: Any) -> None:
    raise typer.Exit(run(IdentityStatusRequest.model_construct(**given), current()))


with_options_of(IdentityStatusRequest, status)  # none of its own: only the global ones


def run(opts: IdentityStatusRequest, ctx: FaceContext) -> int:
    cred = ctx.identity.credential()
    if cred is None:
        show(ctx, status_document(ctx, None), "No agent credential is stored.")
        return 0
    step = next_step(cred)
    show(ctx, status_document(ctx, cred), "Agent credential:")
    if step:
        ctx.output.note(step)
    return 0
