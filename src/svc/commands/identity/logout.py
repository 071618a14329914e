"""`svc identity logout`: forget the stored credential, local only."""

from __future__ import annotations

from dataclasses import dataclass

import typer

from svc.cli.app import current
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@dataclass(frozen=True)
class LogoutOptions:
    """No flags of its own."""


@app.command(
    help="Forget the stored credential (secrets and metadata).\n\n"
    "Local only: the service keeps the registration; register again to get a new one.\n\n"
    "\b\nExample:\n  svc identity logout"
)
def logout() -> None:
    raise typer.Exit(run(LogoutOptions(), current()))


def run(opts: LogoutOptions, ctx: FaceContext) -> int:
    removed = ctx.identity.forget()
    doc = {"logged_out": removed, "auth_base": ctx.settings.auth_base}
    said = "Forgot the agent credential." if removed else "No agent credential was stored."
    ctx.output.show(doc, lambda out, _: out.info(said))
    return 0
