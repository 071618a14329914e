"""`svc config unset KEY`: remove a key from the profile (exit 2 if it was not set)."""

from __future__ import annotations

from dataclasses import dataclass

import typer

from svc.cli.app import current
from svc.commands.config.set_key import fleet_change
from svc.commands.config.values import key_names, report_change
from svc.engines.config_edit import unset_value
from svc.settings_table import FLEET_KEYS
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@dataclass(frozen=True)
class UnsetOptions:
    key: str
    fleet: bool = False  # from the fleet's ledger: each runner's own value applies again


@app.command(
    help="Remove KEY from the profile.\n\n"
    "The setting falls back to the environment or its default; exits 2 if KEY was not set.\n\n"
    "\b\nExamples:\n  svc config unset max_price_usd\n  svc config unset daily_cap_usd --fleet"
)
def unset(
    key: str = typer.Argument(..., metavar="KEY", autocompletion=key_names),
    fleet: bool = typer.Option(
        False,
        "--fleet",
        help=f"Remove {', '.join(FLEET_KEYS)} from the fleet's shared ledger: each runner's own "
        "applies.",
    ),
) -> None:
    raise typer.Exit(run(UnsetOptions(key, fleet), current()))


def run(opts: UnsetOptions, app_ctx: FaceContext) -> int:
    if opts.fleet:
        return fleet_change(app_ctx, opts.key, None)
    unset_value(app_ctx, opts.key)
    report_change(app_ctx, opts.key, None)
    return 0
