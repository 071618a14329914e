"""`svc config get|set|unset|list|path`: the config file's profiles."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from svc.cli.app import current
from svc.errors import UsageError
from svc.store.config import KEYS, unknown_key
from svc.ui.tables import Column

if TYPE_CHECKING:
    from svc.ui.output import Output

app = typer.Typer(
    rich_markup_mode=None,
    no_args_is_help=True,
    help="Read and write settings in the config file (TOML, one table per profile).\n\n"
    "Precedence: flag > environment > profile > default. Secrets never go here.\n\n"
    "\b\nExamples:\n  svc config set email ana@example.com\n  svc config list",
)


def _profile() -> str:
    return current().settings.profile


@app.command(
    help="Print the config file's path.\n\n"
    "$SVC_CONFIG_DIR/config.toml, else the platform's user config dir; it may not exist yet.\n\n"
    "\b\nExample:\n  svc config path"
)
def path() -> None:
    app_ctx = current()
    if app_ctx.settings.json_output:  # when asked: `$(svc config path)` stays the bare path
        app_ctx.output.emit_json({"path": str(app_ctx.config.path)})
        return
    app_ctx.output.line(str(app_ctx.config.path))


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
    stored = current().config.set(_profile(), key, value)
    # As the person would write it (`1.5`, `600`, `true`), never Python's repr ('1.5', 600.0).
    current().output.note(f"{key} = {_as_written(stored)} in profile {_profile()}")
    _report_change(key, _as_written(stored))


@app.command(
    help="Print one setting's effective value and where it comes from.\n\n"
    "The value after precedence (flag > environment > profile > default); with --json also "
    "its source.\n\n"
    "\b\nExamples:\n  svc config get base_url\n  svc config get max_price_usd --json"
)
def get(key: str = typer.Argument(..., metavar="KEY")) -> None:
    app_ctx = current()
    if key not in KEYS:
        raise unknown_key(key)
    value = getattr(app_ctx.settings, key, None)
    doc = {
        "key": key,
        "value": _as_written(value),
        "source": app_ctx.settings.sources.get(key, "default"),
    }
    app_ctx.output.show(doc, lambda out, d: out.line(_for_people(d["value"]) or ""))


@app.command(
    help="Remove KEY from the profile.\n\n"
    "The setting falls back to the environment or its default; exits 2 if KEY was not set.\n\n"
    "\b\nExample:\n  svc config unset max_price_usd"
)
def unset(key: str = typer.Argument(..., metavar="KEY")) -> None:
    if not current().config.unset(_profile(), key):
        raise UsageError(f"{key} is not set in profile {_profile()}")
    _report_change(key, None)


def _report_change(key: str, value: str | None) -> None:
    """With --json (or an output flag), what the profile now holds for the key."""
    if current().settings.json_output:
        current().output.emit_json({"profile": _profile(), "key": key, "value": value})


@app.command(
    name="list",
    help="List every known setting with its effective value and source.\n\n"
    "With --json also the profiles in the file and each key's meaning.\n\n"
    "\b\nExamples:\n  svc config list\n  svc config list --json | jq '.settings[] | select(.source != \"default\")'",
)
def list_() -> None:
    app_ctx = current()
    rows = []
    for key, spec in KEYS.items():
        value = getattr(app_ctx.settings, key, None)
        rows.append(
            {
                "key": key,
                "value": _as_written(value),
                "source": app_ctx.settings.sources.get(key, "default"),
                "help": spec.help,
            }
        )
    doc = {
        "profile": app_ctx.settings.profile,
        "profiles": app_ctx.config.profiles(),
        "settings": rows,
    }
    app_ctx.output.show(doc, _settings_table)


def _settings_table(out: Output, doc: dict[str, Any]) -> None:
    """Config values are outside text (the file may be edited by hand): cells are cleaned."""
    cells = [
        [row["key"], _for_people(row["value"]) or "-", row["source"]] for row in doc["settings"]
    ]

    columns = ("key", Column("value", fold=True), "source")  # an asset address is copied whole
    out.table(columns, cells, title=f"profile {doc['profile']}")


def _as_written(value: object) -> str | None:
    """A setting as the config file and `config set` write it (`true`, `a,b`, `1.50`)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ",".join(value)
    if isinstance(value, float):
        return f"{value:g}"  # 600.0 is written 600
    return str(value)


def _for_people(value: str | None) -> str | None:
    return {"true": "yes", "false": "no"}.get(value or "", value)
