"""`svc config path`: where the config file is (it may not exist yet)."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.engines.config_edit import config_path
from svc.operations.setup import ConfigPathRequest
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Print the config file's path.\n\n"
    "$SVC_CONFIG_DIR/config.toml, else the platform's user config dir; it may not exist yet.\n\n"
    "\b\nExample:\n  svc config path"
)
def path(**given: Any) -> None:
    raise typer.Exit(run(ConfigPathRequest.model_construct(**given), current()))


with_options_of(ConfigPathRequest, path)  # no arguments of its own


def run(opts: ConfigPathRequest, app_ctx: FaceContext) -> int:
    path = str(config_path(app_ctx))
    if app_ctx.settings.json_output:  # when asked: `$(svc config path)` stays the bare path
        app_ctx.output.emit_json({"path": path})
    else:
        app_ctx.output.line(path)
    return 0
