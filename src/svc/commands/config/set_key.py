"""`svc config set KEY VALUE`: a known key, its value checked now, in the profile in effect."""

from __future__ import annotations

from dataclasses import dataclass

import typer

from svc.cli.app import current
from svc.commands.config.values import as_written, report_change
from svc.context import AppContext

app = typer.Typer(rich_markup_mode=None)


@dataclass(frozen=True)
class SetOptions:
    key: str
    value: str


@app.command(
    name="set",
    help="Set KEY to VALUE in the profile.\n\n"
    "Only known keys (svc config list); the value is checked now, not when it is used. The "
    "profile is --profile, else SVC_PROFILE, else default.\n\n"
    "\b\nExamples:\n"
    "  svc config set base_url http://127.0.0.1:8402\n"
    "  svc config set max_price_usd 2.00 --profile work",
)
def set_(
    key: str = typer.Argument(..., metavar="KEY"), value: str = typer.Argument(..., metavar="VALUE")
) -> None:
    raise typer.Exit(run(SetOptions(key, value), current()))


def run(opts: SetOptions, app_ctx: AppContext) -> int:
    profile = app_ctx.settings.profile
    cleartext_ok = app_ctx.settings.allow_insecure_http
    stored = as_written(
        app_ctx.config.set(profile, opts.key, opts.value, cleartext_ok=cleartext_ok)
    )
    # As the person would write it (`1.5`, `600`, `true`), never Python's repr ('1.5', 600.0).
    app_ctx.output.note(f"{opts.key} = {stored} in profile {profile}")
    report_change(app_ctx, opts.key, stored)
    return 0
