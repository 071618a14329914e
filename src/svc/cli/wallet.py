"""`svc wallet create|import|address`: the x402 signing key, kept in the secret store."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import typer

from svc.cli.app import current
from svc.cli.inputs import read_text_source
from svc.errors import UsageError
from svc.pay.wallet import WALLET_SECRET, load_signer
from svc.pay.x402 import X402Error, address_of, generate_private_key
from svc.ui.prompts import ask_hidden

if TYPE_CHECKING:
    from svc.ui.output import Output

app = typer.Typer(
    rich_markup_mode=None,
    no_args_is_help=True,
    help="Manage the x402 signing key (a USDC wallet on Base).\n\n"
    "The key lives in the OS keyring (or a 0600 file when there is none) and never on the "
    "command line. SVC_WALLET_KEY overrides it for CI.\n\n"
    "\b\nExamples:\n  svc wallet create\n  svc wallet address",
)


def _emit_address(address: str, source: str, created: bool = False) -> None:
    def draw(out: Output, doc: dict[str, Any]) -> None:
        out.line(doc["address"])
        out.note("key stored in: {source}", source=doc["source"])

    doc = {"address": address, "source": source, "created": created}
    current().output.show(doc, draw)


@app.command(
    help="Create a new signing key and store it.\n\n"
    "Refuses to replace an existing key unless --force.\n\n"
    "\b\nExample:\n  svc wallet create"
)
def create(force: bool = typer.Option(False, "--force", help="Replace an existing key.")) -> None:
    app_ctx = current()
    secrets = app_ctx.secrets
    if secrets.backend.get(WALLET_SECRET) and not force:
        raise UsageError("a wallet key is already stored; use --force to replace it (and lose it)")
    key = generate_private_key()
    secrets.set(WALLET_SECRET, key)
    _emit_address(address_of(key), secrets.backend.name, created=True)


@app.command(
    name="import",
    help="Import an existing signing key (hex) from stdin or a file.\n\n"
    "Never from the command line, where other users could read it. On a terminal, with no "
    "--file, it prompts without echo. Refuses to replace a stored key unless --force.\n\n"
    "\b\nExamples:\n"
    "  svc wallet import < key.hex\n"
    "  svc wallet import --file key.hex",
)
def import_key(
    file: str = typer.Option(
        "-", "--file", "-f", metavar="PATH|-", help="Where to read the key (default stdin)."
    ),
    force: bool = typer.Option(False, "--force", help="Replace an existing key."),
) -> None:
    app_ctx = current()
    if file == "-" and not app_ctx.settings.no_input and sys.stdin.isatty():
        raw = ask_hidden("private key (hex, hidden):")
    else:
        raw = read_text_source(file, "the key")
    key = raw.strip()
    try:
        address = address_of(key)
    except X402Error as exc:
        raise UsageError(f"not a usable private key: {exc}") from None
    secrets = app_ctx.secrets
    if secrets.backend.get(WALLET_SECRET) and not force:
        raise UsageError("a wallet key is already stored; use --force to replace it")
    secrets.set(WALLET_SECRET, key if key.startswith("0x") else "0x" + key)
    _emit_address(address, secrets.backend.name)


@app.command(
    help="Print the wallet's address (never the key).\n\n"
    "This is where the service's 402 payments come from; fund it with USDC on Base for real "
    "use. The sandbox needs no funds.\n\n\b\nExample:\n  svc wallet address"
)
def address() -> None:
    app_ctx = current()
    signer = load_signer(app_ctx.secrets)
    _emit_address(signer.address, app_ctx.secrets.source(WALLET_SECRET))
