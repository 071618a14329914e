"""`svc config list`: every known setting, its effective value and where it comes from."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.commands.config.values import for_people
from svc.engines.config_edit import every_setting
from svc.operations.setup import ConfigListRequest
from svc.ui.face import FaceContext
from svc.ui.output import Output
from svc.ui.tables import Column

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    name="list",
    help="List every known setting with its effective value and source.\n\n"
    "With --json also the profiles in the file and each key's meaning.\n\n"
    "\b\nExamples:\n  svc config list\n  svc config list --json | jq '.settings[] | select(.source != \"default\")'",
)
def list_(**given: Any) -> None:
    raise typer.Exit(run(ConfigListRequest.model_construct(**given), current()))


with_options_of(ConfigListRequest, list_)  # no arguments of its own


def run(opts: ConfigListRequest, app_ctx: FaceContext) -> int:
    doc = every_setting(app_ctx)
    app_ctx.output.show(doc, _settings_table)
    return 0


def _settings_table(out: Output, doc: dict[str, Any]) -> None:
    """Config values are outside text (the file may be edited by hand): cells are cleaned."""
    cells = [
        [row["key"], for_people(row["value"]) or "-", row["source"]] for row in doc["settings"]
    ]
    columns = ("key", Column("value", fold=True), "source")  # an asset address is copied whole
    out.table(columns, cells, title=f"profile {doc['profile']}")
