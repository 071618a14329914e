"""`svc identity refresh`: rotate the credential with its single-use refresh token."""

from __future__ import annotations

from dataclasses import dataclass

import typer

from svc.cli.app import current
from svc.commands.identity.views import show
from svc.engines.identity import status_document
from svc.errors import AuthError
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@dataclass(frozen=True)
class RefreshOptions:
    """No flags of its own."""


@app.command(
    help="Rotate the credential with its refresh token.\n\n"
    "A refresh token is single use: the new one is stored before anything else.\n\n"
    "\b\nExample:\n  svc identity refresh"
)
def refresh() -> None:
    raise typer.Exit(run(RefreshOptions(), current()))


def run(opts: RefreshOptions, ctx: FaceContext) -> int:
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
