"""`svc wallet address`: where the service's 402 payments come from (never the key)."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.commands.wallet.views import show_address
from svc.engines.wallet import stored_key
from svc.operations.wallet import WalletAddressRequest
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Print the wallet's address (never the key).\n\n"
    "This is where the service's 402 payments come from; fund it with USDC on Base for real "
    "use. The sandbox needs no funds.\n\n\b\nExample:\n  svc wallet address"
)
def address(**given: Any) -> None:
    raise typer.Exit(run(WalletAddressRequest.model_construct(**given), current()))


with_options_of(WalletAddressRequest, address)  # none of its own: only the global ones


def run(opts: WalletAddressRequest, app_ctx: FaceContext) -> int:
    key = stored_key(app_ctx)
    show_address(app_ctx, key.address, key.source, profile=key.profile)
    return 0
