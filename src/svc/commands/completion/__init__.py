"""`svc completion show|install [SHELL]`: the shipped bash, zsh and fish completion scripts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from svc.cli.app import command_group

if TYPE_CHECKING:
    import typer

MEMBERS = {
    "show": ("svc.commands.completion.show", "Print the completion script for SHELL on stdout."),
    "install": (
        "svc.commands.completion.install",
        "Install the completion script where SHELL looks for it.",
    ),
}

app: typer.Typer = command_group(
    MEMBERS,
    "Print or install the tab-completion script for bash, zsh or fish.\n\n"
    "Completes commands, options, enum values (--pay, --payment), profile names from the "
    "config file and your task ids from the local ledger, without touching the network. "
    "SHELL defaults to the one in $SHELL.\n\n"
    "\b\nExamples:\n"
    "  svc completion install\n"
    '  eval "$(svc completion show bash)"\n'
    "  svc completion show fish > ~/.config/fish/completions/svc.fish",
)
