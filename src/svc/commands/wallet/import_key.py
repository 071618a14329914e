"""`svc wallet import`: an existing key from stdin, a file or a hidden prompt, never argv."""

from __future__ import annotations

import sys
from dataclasses import dataclass

import typer

from svc.cli.app import current
from svc.cli.inputs import read_text_source
from svc.commands.wallet.views import show_address
from svc.engines import wallet
from svc.errors import UsageError
from svc.ui.face import FaceContext
from svc.ui.prompts import ask_hidden

app = typer.Typer(rich_markup_mode=None)


@dataclass(frozen=True)
class ImportOptions:
    file: str = "-"  # '-': stdin (a hidden prompt on a terminal)
    force: bool = False


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
    raise typer.Exit(run(ImportOptions(file, force), current()))


def run(opts: ImportOptions, app_ctx: FaceContext) -> int:
    key = _read_key(opts.file, app_ctx).strip()
    try:
        stored = wallet.import_key(app_ctx, key, replace=opts.force)
    except wallet.KeyAlreadyStoredError as exc:
        raise UsageError(f"{exc.message}; use --force to replace it") from None
    show_address(app_ctx, stored.address, stored.source, profile=stored.profile)
    return 0


def _read_key(file: str, app_ctx: FaceContext) -> str:
    if file == "-" and not app_ctx.settings.no_input and sys.stdin.isatty():
        return ask_hidden("private key (hex, hidden):")
    return read_text_source(file, "the key")
