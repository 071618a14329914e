"""`svc identity refresh`: rotate the credential with its single-use refresh token."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.commands.identity.views import show
from svc.engines.identity import status_document
from svc.errors import AuthError
from svc.operations.identity import IdentityRefreshRequest
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Rotate the credential with its refresh token.\n\n"
    "A refresh token is single use: the new one is stored before anything else.\n\n"
    "\b\nExample:\n  svc identity refresh"
)
def refresh(**given: Any) -> None:
    raise typer.Exit(run(IdentityRefreshRequest.model_construct(**given), current()))


with_options_of(IdentityRefreshRequest, refresh)  # none of its own: only the global ones


def run(opts: IdentityRefreshRequest, ctx: FaceContext) -> int:
    session = ctx.identity
    if session.credential() is None:
        raise AuthError(
            "no agent credential is stored",
            code="no_credential",
            hint="register one: svc identity register",
        )
    cred = session.refresh()
    show(ctx, status_document(ctx, cred, refreshed=True), "Rotated the agent credential.")
    return 0
