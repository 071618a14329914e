"""`svc identity logout`: forget the stored credential, local only."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.operations.identity import IdentityLogoutRequest
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Forget the stored credential (secrets and metadata).\n\n"
    "Local only: the service keeps the registration; register again to get a new one.\n\n"
    "\b\nExample:\n  svc identity logout"
)
def logout(**given: Any) -> None:
    raise typer.Exit(run(IdentityLogoutRequest.model_construct(**given), current()))


with_options_of(IdentityLogoutRequest, logout)  # none of its own: only the global ones


def run(opts: IdentityLogoutRequest, ctx: FaceContext) -> int:
    removed = ctx.identity.forget()
    doc = {"logged_out": removed, "auth_base": ctx.settings.auth_base}
    said = "Forgot the agent credential." if removed else "No agent credential was stored."
    ctx.output.show(doc, lambda out, _: out.info(said))
    return 0
