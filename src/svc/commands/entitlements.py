"""`svc entitlements`: active plans with remaining credit, for this credential's person."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.errors import AuthError
from svc.operations.identity import EntitlementsRequest
from svc.ui import views
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Show active plans with remaining credit.\n\n"
    "Covers every credential the same person claimed. Needs an agent credential "
    "(svc identity register).\n\n"
    "\b\nExamples:\n  svc entitlements\n  svc entitlements --json | jq '.plans[].plan_id'"
)
def entitlements(**given: Any) -> None:
    raise typer.Exit(run(EntitlementsRequest.model_construct(**given), current()))


with_options_of(EntitlementsRequest, entitlements)  # none of its own: only the global ones


def run(opts: EntitlementsRequest, app_ctx: FaceContext) -> int:
    bearer = app_ctx.bearer
    if bearer is None or app_ctx.identity.access_token() is None:
        raise AuthError(
            "entitlements need an agent credential, and none usable is stored",
            code="no_credential",
            hint="register one: svc identity register (or finish the claim: svc identity claim)",
        )
    doc = app_ctx.identity.platform.entitlements(bearer)
    app_ctx.output.show(doc, views.entitlements)
    return 0
