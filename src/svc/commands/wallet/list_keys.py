"""`svc wallet list`: each profile's address and where its key lives (never a key)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.engines.wallet import every_profile
from svc.operations.wallet import WalletListRequest
from svc.ui.face import FaceContext
from svc.ui.output import Output
from svc.ui.tables import Column

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    name="list",
    help="List each profile's wallet address and where its key lives.\n\n"
    "Where: the OS keyring or the secret file (store), SVC_WALLET_KEY (environment), or an "
    "external signer. A profile without a key of its own shows none; it never borrows "
    "another's. Nothing is asked of a remote signer.\n\n"
    "\b\nExamples:\n  svc wallet list\n  svc wallet list --json | jq -r '.wallets[].address'",
)
def list_(**given: Any) -> None:
    raise typer.Exit(run(WalletListRequest.model_construct(**given), current()))


with_options_of(WalletListRequest, list_)  # none of its own: only the global ones


def run(opts: WalletListRequest, app_ctx: FaceContext) -> int:
    doc = {"wallets": [asdict(wallet) for wallet in every_profile(app_ctx)]}
    app_ctx.output.show(doc, _wallets_table)
    return 0


def _wallets_table(out: Output, doc: dict[str, Any]) -> None:
    """Config values are outside text (a signer's command): cells are cleaned when drawn."""
    cells = [
        [w["profile"], w["address"] or "(no wallet)", w["problem"] or w["source"]]
        for w in doc["wallets"]
    ]
    columns = ("profile", Column("address", whole=True), Column("key lives in", fold=True))
    out.table(columns, cells)
