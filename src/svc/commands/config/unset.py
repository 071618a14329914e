"""`svc config unset KEY`: remove a key from the profile (exit 2 if it was not set)."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.commands.config.set_key import fleet_change
from svc.commands.config.values import key_names, report_change
from svc.engines.config_edit import unset_value
from svc.operations.setup import ConfigUnsetRequest
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Remove KEY from the profile.\n\n"
    "The setting falls back to the environment or its default; exits 2 if KEY was not set.\n\n"
    "\b\nExamples:\n  svc config unset max_price_usd\n  svc config unset daily_cap_usd --fleet"
)
def unset(**given: Any) -> None:
    raise typer.Exit(run(ConfigUnsetRequest.model_construct(**given), current()))


# KEY and --fleet: as the operation declares them; the shell completes the keys.
with_options_of(ConfigUnsetRequest, unset, {"key": {"autocompletion": key_names}})


def run(opts: ConfigUnsetRequest, app_ctx: FaceContext) -> int:
    if opts.fleet:
        return fleet_change(app_ctx, opts.key, None)
    unset_value(app_ctx, opts.key)
    report_change(app_ctx, opts.key, None)
    return 0
