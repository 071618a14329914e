"""Settings as people read them, and a change reported to scripts (`svc config` commands)."""

from __future__ import annotations

from svc.engines.config_edit import create_profile
from svc.settings_table import FILE_KEYS
from svc.ui.face import FaceContext


def key_names(incomplete: str) -> list[str]:
    """The keys a profile may hold, from the settings table (completion of KEY: the static
    completion table is generated from this)."""
    return [key for key in FILE_KEYS if key.startswith(incomplete)]


def for_people(value: str | None) -> str | None:
    return {"true": "yes", "false": "no"}.get(value or "", value)


def report_change(app_ctx: FaceContext, key: str, value: str | None) -> None:
    """With --json (or an output flag), what the profile now holds for the key."""
    if app_ctx.settings.json_output:
        app_ctx.output.emit_json({"profile": app_ctx.settings.profile, "key": key, "value": value})


def make_profile(app_ctx: FaceContext) -> None:
    """A profile's secret is stored (`wallet create|import`): the profile it was named for
    exists from now on, and the person is told when it is new."""
    if create_profile(app_ctx):
        say_profile_created(app_ctx)


def say_profile_created(app_ctx: FaceContext) -> None:
    """The one line on stderr when a command adds the profile it was named (`config set`,
    `wallet create|import`): a typo in --profile shows here, not as a silent new profile."""
    app_ctx.output.info(
        "svc: created profile '{profile}' in {path}",
        profile=app_ctx.settings.profile,
        path=str(app_ctx.config.path),
    )
