"""`svc config set KEY VALUE`: a known key, its value checked now, in the profile in effect."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.commands.config.values import key_names, report_change, say_profile_created
from svc.engines.config_edit import profile_is_new, set_fleet_value, set_value
from svc.operations.setup import ConfigSetRequest
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    name="set",
    help="Set KEY to VALUE in the profile.\n\n"
    "Only known keys (svc config list); the value is checked now, not when it is used. The "
    "profile is --profile, else SVC_PROFILE, else default.\n\n"
    "\b\nExamples:\n"
    "  svc config set base_url http://127.0.0.1:8402\n"
    "  svc config set max_price_usd 2.00 --profile work\n"
    "  svc config set daily_cap_usd none\n"
    "  svc config set daily_cap_usd 90 --fleet",
)
def set_(**given: Any) -> None:
    raise typer.Exit(run(ConfigSetRequest.model_construct(**given), current()))


# KEY VALUE and --fleet: as the operation declares them; the shell completes the keys.
with_options_of(ConfigSetRequest, set_, {"key": {"autocompletion": key_names}})


def run(opts: ConfigSetRequest, app_ctx: FaceContext) -> int:
    if opts.fleet:
        return fleet_change(app_ctx, opts.key, opts.value)
    new = profile_is_new(app_ctx)
    stored = set_value(app_ctx, opts.key, opts.value)
    if new:
        say_profile_created(app_ctx)
    # As the person would write it (`1.5`, `600`, `true`), never Python's repr ('1.5', 600.0).
    app_ctx.output.note(f"{opts.key} = {stored} in profile {app_ctx.settings.profile}")
    report_change(app_ctx, opts.key, stored)
    return 0


def fleet_change(app_ctx: FaceContext, key: str, value: str | None) -> int:
    """`--fleet` (set or unset): the value every runner of the fleet's ledger obeys."""
    change = set_fleet_value(app_ctx, key, value)
    where = change.ledger
    if change.value is None:
        app_ctx.output.note(f"{key} removed from the fleet ledger at {where}")
    else:
        app_ctx.output.note(
            f"{key} = {change.value} for every runner of the fleet ledger at {where}"
        )
    if app_ctx.settings.json_output:
        app_ctx.output.emit_json({"fleet": True, "key": key, "value": change.value})
    return 0
