"""`svc wallet create|import|address|list`: each profile's x402 signing key."""

from __future__ import annotations

from typing import TYPE_CHECKING

from svc.cli.app import command_group

if TYPE_CHECKING:
    import typer

MEMBERS = {
    "create": ("svc.commands.wallet.create", "Create a new signing key and store it."),
    "import": (
        "svc.commands.wallet.import_key",
        "Import an existing signing key (hex) from stdin or a file.",
    ),
    "address": ("svc.commands.wallet.address", "Print the wallet's address (never the key)."),
    "list": (
        "svc.commands.wallet.list_keys",
        "List each profile's wallet address and where its key lives.",
    ),
}

app: typer.Typer = command_group(
    MEMBERS,
    "Manage each profile's x402 signing key (a USDC wallet on Base).\n\n"
    "Each profile has its own key in the OS keyring (or a 0600 file when there is none), never "
    "on the command line; SVC_WALLET_KEY overrides it for CI. A profile's signer setting can "
    "leave the key with a program or a remote signer instead (docs/signers.md).\n\n"
    "\b\nExamples:\n  svc wallet create\n  svc wallet create --profile prod\n"
    "  svc wallet list",
)
