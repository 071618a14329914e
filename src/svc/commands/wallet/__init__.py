"""`svc wallet create|import|address`: the x402 signing key, kept in the secret store."""

from __future__ import annotations

from svc.cli.app import command_group

MEMBERS = {
    "create": ("svc.commands.wallet.create", "Create a new signing key and store it."),
    "import": (
        "svc.commands.wallet.import_key",
        "Import an existing signing key (hex) from stdin or a file.",
    ),
    "address": ("svc.commands.wallet.address", "Print the wallet's address (never the key)."),
}

app = command_group(
    MEMBERS,
    "Manage the x402 signing key (a USDC wallet on Base).\n\n"
    "The key lives in the OS keyring (or a 0600 file when there is none) and never on the "
    "command line. SVC_WALLET_KEY overrides it for CI.\n\n"
    "\b\nExamples:\n  svc wallet create\n  svc wallet address",
)
