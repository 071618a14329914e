"""`svc config path`: where the config file is (it may not exist yet)."""

from __future__ import annotations

from dataclasses import dataclass

import typer

from svc.cli.app import current
from svc.engines.config_edit import config_path
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@dataclass(frozen=True)
class PathOptions:
    """No flags of its own."""


@app.command(
    help="Print the config file's path.\n\n"
    "$SVC_CONFIG_DIR/config.toml, else the platform's user config dir; it may not exist yet.\n\n"
    "\b\nExample:\n  svc config path"
)
def path() -> None:
    raise typer.Exit(run(PathOptions(), current()))


def run(opts: PathOptions, app_ctx: FaceContext) -> int:
    path = str(config_path(app_ctx))
    if app_ctx.settings.json_output:  # when asked: `$(svc config path)` stays the bare path
        app_ctx.output.emit_json({"path": path})
    else:
        app_ctx.output.line(path)
    return 0
