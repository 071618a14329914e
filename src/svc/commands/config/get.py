"""`svc config get KEY`: one setting's effective value and where it comes from."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.commands.config.values import for_people, key_names
from svc.engines.config_edit import setting
from svc.operations.setup import ConfigGetRequest
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Print one setting's effective value and where it comes from.\n\n"
    "The value after precedence (flag > environment > profile > default); with --json also "
    "its source.\n\n"
    "\b\nExamples:\n  svc config get base_url\n  svc config get max_price_usd --json"
)
def get(**given: Any) -> None:
    raise typer.Exit(run(ConfigGetRequest.model_construct(**given), current()))


# KEY: as the operation declares it; the shell completes the settings table's keys.
with_options_of(ConfigGetRequest, get, {"key": {"autocompletion": key_names}})


def run(opts: ConfigGetRequest, app_ctx: FaceContext) -> int:
    doc = setting(app_ctx, opts.key)
    app_ctx.output.show(doc, lambda out, d: out.line(for_people(d["value"]) or ""))
    return 0
