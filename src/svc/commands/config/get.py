"""`svc config get KEY`: one setting's effective value and where it comes from."""

from __future__ import annotations

from dataclasses import dataclass

import typer

from svc.cli.app import current
from svc.commands.config.values import for_people, key_names
from svc.engines.config_edit import setting
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@dataclass(frozen=True)
class GetOptions:
    key: str


@app.command(
    help="Print one setting's effective value and where it comes from.\n\n"
    "The value after precedence (flag > environment > profile > default); with --json also "
    "its source.\n\n"
    "\b\nExamples:\n  svc config get base_url\n  svc config get max_price_usd --json"
)
def get(key: str = typer.Argument(..., metavar="KEY", autocompletion=key_names)) -> None:
    raise typer.Exit(run(GetOptions(key), current()))


def run(opts: GetOptions, app_ctx: FaceContext) -> int:
    doc = setting(app_ctx, opts.key)
    app_ctx.output.show(doc, lambda out, d: out.line(for_people(d["value"]) or ""))
    return 0
