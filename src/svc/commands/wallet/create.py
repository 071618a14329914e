"""`svc wallet create`: a new signing key, stored (never replacing one without --force)."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.commands.config.values import make_profile
from svc.commands.wallet.views import show_address
from svc.engines import wallet
from svc.errors import UsageError
from svc.operations.wallet import WalletCreateRequest
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Create a new signing key and store it.\n\n"
    "Refuses to replace an existing key unless --force.\n\n"
    "\b\nExample:\n  svc wallet create"
)
def create(**given: Any) -> None:
    raise typer.Exit(run(WalletCreateRequest.model_construct(**given), current()))


with_options_of(WalletCreateRequest, create)  # --force: as the operation declares it


def run(opts: WalletCreateRequest, app_ctx: FaceContext) -> int:
    try:
        made = wallet.create(app_ctx, replace=opts.force)
    except wallet.KeyAlreadyStoredError as exc:
        raise UsageError(f"{exc.message}; use --force to replace it (and lose it)") from None
    make_profile(app_ctx)
    show_address(app_ctx, made.address, made.source, created=True, profile=made.profile)
    return 0
