"""Settings as the config file writes them and as people read them (`svc config` commands)."""

from __future__ import annotations

from svc.settings import NO_CAP
from svc.store.ledger.postgres import redacted
from svc.ui.face import FaceContext


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
    if key == "daily_cap_usd" and value is None:
        return NO_CAP  # removed on purpose: not "-", which reads as never set
    if key == "ledger_url" and written is not None:
        return redacted(written)
    return written


def for_people(value: str | None) -> str | None:
    return {"true": "yes", "false": "no"}.get(value or "", value)


def report_change(app_ctx: FaceContext, key: str, value: str | None) -> None:
    """With --json (or an output flag), what the profile now holds for the key."""
    if app_ctx.settings.json_output:
        app_ctx.output.emit_json({"profile": app_ctx.settings.profile, "key": key, "value": value})
