"""The checks of `svc doctor` only the CLI knows how to make: how `svc watch --notify` reaches
a person here, and the command an MCP host runs to start `svc mcp` (engines/doctor.run_checks
runs them in their place among the others)."""

from __future__ import annotations

import importlib.util
import os
import shlex
import shutil
import sys
from collections.abc import Callable, Mapping

from svc.context import AppContext
from svc.engines.doctor import Check, Finding
from svc.money import for_people
from svc.next_step import step
from svc.words import source


def notify_check(app: AppContext, notifier: Callable[[], str | None]) -> Finding:
    """How `svc watch --notify` would reach the person here (`notifier`: the lookup of the
    desktop notifier, a path or None)."""
    s = app.settings
    default = "on unless --no-notify" if s.notify else "off unless asked"
    setting = f"--notify is {default} ({source(s.sources.get('notify'))})"
    found = notifier()
    if found is None:
        return Finding(
            "notify",
            "warn",
            f"{setting}; no notify-send or osascript on PATH: --notify rings the terminal only",
            "install notify-send (libnotify) for desktop notifications",
        )
    return Finding(
        "notify", "ok", f"{setting}; desktop notifications by {found}, plus the terminal bell"
    )


def host_command(found: str, profile: str) -> str:
    """What a host's config can hold as is: a host starts `svc mcp` from its own directory,
    so a path relative to ours (`.venv/bin/svc`) would not be found there."""
    words = [os.path.abspath(found), "mcp"]
    if profile != "default":
        words += ["--profile", profile]
    return shlex.join(words)


def mcp_check(app: AppContext) -> Finding:
    """What an AI agent host gets from `svc mcp`, without importing the MCP SDK (slow)."""
    if importlib.util.find_spec("mcp") is None:
        return Finding(
            "mcp",
            "warn",
            "the MCP SDK is not installed: `svc mcp` cannot start",
            "reinstall svc-cli (it depends on mcp)",
        )
    s = app.settings
    command = host_command(shutil.which("svc") or sys.argv[0], s.profile)
    limit = (
        f"paid calls up to {for_people(s.mcp_preapproved_usd)} run without asking"
        if s.mcp_preapproved_usd is not None
        else "every paid call is confirmed by the person"
    )
    detail = f"a host runs `{command}` (stdio); {limit}"
    if s.mcp_allow_model_secrets:
        nxt = step("unset_setting", key="mcp_allow_model_secrets")
        return Finding(
            "mcp",
            "warn",
            detail + "; the model may type secrets (mcp_allow_model_secrets is on)",
            nxt.neutral,
            next=nxt,
        )
    return Finding("mcp", "ok", detail + "; secrets only from the person")


def cli_checks(notifier: Callable[[], str | None]) -> Mapping[str, Check]:
    return {"notify": lambda app: notify_check(app, notifier), "mcp": mcp_check}
