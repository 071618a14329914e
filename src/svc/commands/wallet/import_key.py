"""`svc wallet import`: an existing key from stdin, a file or a hidden prompt, never argv."""

from __future__ import annotations

import sys
from typing import Any

import typer

from svc.cli.app import current
from svc.cli.inputs import read_text_source
from svc.cli.options import with_options_of
from svc.commands.config.values import make_profile
from svc.commands.wallet.views import show_address
from svc.engines import wallet
from svc.errors import UsageError
from svc.operations.wallet import WalletImportRequest
from svc.ui.face import FaceContext
from svc.ui.output import Output
from svc.ui.prompts import ask_hidden

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    name="import",
    help="Import an existing signing key (hex) from stdin or a file.\n\n"
    "Never from the command line, where other users could read it. On a terminal, with no "
    "--file, it prompts without echo. Refuses to replace a stored key unless --force. "
    "--signer-token stores the profile's jsonrpc: signer bearer token instead "
    "(docs/signers.md).\n\n"
    "\b\nExamples:\n"
    "  svc wallet import < key.hex\n"
    "  svc wallet import --file key.hex",
)
def import_key(**given: Any) -> None:
    raise typer.Exit(run(WalletImportRequest.model_construct(**given), current()))


# --file, --force, --signer-token: as the operation declares them (where the key is read,
# never the key: it is no argument)
with_options_of(WalletImportRequest, import_key)


def run(opts: WalletImportRequest, app_ctx: FaceContext) -> int:
    if opts.signer_token:
        return _import_token(opts, app_ctx)
    key = _read_key(opts.file, app_ctx).strip()
    try:
        stored = wallet.import_key(app_ctx, key, replace=opts.force)
    except wallet.KeyAlreadyStoredError as exc:
        raise UsageError(f"{exc.message}; use --force to replace it") from None
    make_profile(app_ctx)
    show_address(app_ctx, stored.address, stored.source, profile=stored.profile)
    return 0


def _import_token(opts: WalletImportRequest, app_ctx: FaceContext) -> int:
    token = _read_key(opts.file, app_ctx, "signer token (hidden):", "the token").strip()
    try:
        source = wallet.import_signer_token(app_ctx, token, replace=opts.force)
    except wallet.KeyAlreadyStoredError as exc:
        raise UsageError(f"{exc.message}; use --force to replace it") from None
    make_profile(app_ctx)

    def draw(out: Output, doc: dict[str, Any]) -> None:
        out.note("signer token stored in: {source}", source=doc["source"])

    doc = {"profile": app_ctx.settings.profile, "stored": "signer_token", "source": source}
    app_ctx.output.show(doc, draw)
    return 0


def _read_key(
    file: str,
    app_ctx: FaceContext,
    prompt: str = "private key (hex, hidden):",
    what: str = "the key",
) -> str:
    if file == "-" and not app_ctx.settings.no_input and sys.stdin.isatty():
        return ask_hidden(prompt)
    return read_text_source(file, what)
