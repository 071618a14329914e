"""The config file's settings as `svc config` reads and writes them: one setting's effective
value and its source, all of them, a profile's key written or removed, the fleet's value.

Values come back as the config file writes them (`true`, `a,b`, `1.50`), a URL's password
masked; how they read for people, and which flag asked for what, is the face's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from svc.context import AppContext
from svc.errors import UsageError
from svc.pay.daily_cap import set_for_fleet
from svc.settings import DEFAULT_PROFILE, NO_CAP
from svc.settings_table import described
from svc.store.config import KEYS, unknown_key
from svc.store.ledger.postgres import redacted


@dataclass(frozen=True)
class FleetChange:
    key: str
    value: str | None  # as stored in the fleet's ledger; None: removed
    ledger: str  # the fleet ledger's URL, its password masked


def as_written(value: object) -> str | None:
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


def shown(key: str, value: object) -> str | None:
    """A setting as `config get`/`list` show it: as written, a URL's password masked (the
    environment may hold one: SVC_LEDGER_URL)."""
    written = as_written(value)
    kind = KEYS[key].kind
    if kind == "cap" and value is None:
        return NO_CAP  # removed on purpose: not "-", which reads as never set
    if kind == "ledger_url" and written is not None:
        return redacted(written)
    return written


def setting(app: AppContext, key: str) -> dict[str, Any]:
    """One known setting: {key, value (shown), source}; an unknown key is a usage error."""
    if key not in KEYS:
        raise unknown_key(key)
    return {
        "key": key,
        "value": shown(key, getattr(app.settings, key, None)),
        "source": app.settings.sources.get(key, "default"),
    }


def every_setting(app: AppContext) -> dict[str, Any]:
    """The profile in effect, the profiles in the file, and every known setting with its
    meaning."""
    rows = [{**setting(app, key), "help": described(spec)} for key, spec in KEYS.items()]
    return {"profile": app.settings.profile, "profiles": app.config.profiles(), "settings": rows}


def config_path(app: AppContext) -> Path:
    """Where the config file is (it may not exist yet)."""
    return app.config.path


def set_value(app: AppContext, key: str, value: str) -> str | None:
    """Write a known key's checked value into the profile in effect; the value as written."""
    cleartext_ok = app.settings.allow_insecure_http
    return as_written(app.config.set(app.settings.profile, key, value, cleartext_ok=cleartext_ok))


def profile_is_new(app: AppContext) -> bool:
    """Whether a write would create the profile in effect: one a person named (the default
    profile exists without a table) that the config file does not hold yet."""
    name = app.settings.profile
    return name != DEFAULT_PROFILE and name not in app.config.profiles()


def create_profile(app: AppContext) -> bool:
    """The profile in effect added to the config file when it is new; whether it was."""
    return profile_is_new(app) and app.config.add_profile(app.settings.profile)


def unset_value(app: AppContext, key: str) -> None:
    """Remove a key from the profile in effect (a usage error if it was not set there)."""
    profile = app.settings.profile
    if not app.config.unset(profile, key):
        raise UsageError(f"{key} is not set in profile {profile}")


def set_fleet_value(app: AppContext, key: str, value: str | None) -> FleetChange:
    """The value every runner of the fleet's ledger obeys (None removes it)."""
    if key not in KEYS:
        raise unknown_key(key)
    stored = set_for_fleet(app.settings, lambda: app.ledger, key, value)
    return FleetChange(key, stored, redacted(app.settings.ledger_url or ""))
