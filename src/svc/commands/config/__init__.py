"""`svc config path|set|get|unset|list`: the config file's profiles."""

from __future__ import annotations

from typing import TYPE_CHECKING

from svc.cli.app import command_group

if TYPE_CHECKING:
    import typer

MEMBERS = {
    "path": ("svc.commands.config.path", "Print the config file's path."),
    "set": ("svc.commands.config.set_key", "Set KEY to VALUE in the profile."),
    "get": (
        "svc.commands.config.get",
        "Print one setting's effective value and where it comes from.",
    ),
    "unset": ("svc.commands.config.unset", "Remove KEY from the profile."),
    "list": (
        "svc.commands.config.list_keys",
        "List every known setting with its effective value and source.",
    ),
}

app: typer.Typer = command_group(
    MEMBERS,
    "Read and write settings in the config file (TOML, one table per profile).\n\n"
    "Precedence: flag > environment > profile > default. Secrets never go here.\n\n"
    "\b\nExamples:\n  svc config set email ana@example.com\n  svc config list",
)
