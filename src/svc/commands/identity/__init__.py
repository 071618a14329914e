"""`svc identity register|claim|refresh|status|logout`: the agent's network-wide credential."""

from __future__ import annotations

from typing import TYPE_CHECKING

from svc.cli.app import command_group

if TYPE_CHECKING:
    import typer

MEMBERS = {
    "register": (
        "svc.commands.identity.register",
        "Register an agent credential, or reuse the stored one.",
    ),
    "claim": (
        "svc.commands.identity.claim",
        "Claim the stored credential for a person: link, sign-in, code.",
    ),
    "refresh": ("svc.commands.identity.refresh", "Rotate the credential with its refresh token."),
    "status": (
        "svc.commands.identity.status",
        "Show the stored credential: who and what, never the secrets.",
    ),
    "logout": (
        "svc.commands.identity.logout",
        "Forget the stored credential (secrets and metadata).",
    ),
}

app: typer.Typer = command_group(
    MEMBERS,
    "Manage the agent credential (identity platform at --auth-base).\n\n"
    "Secrets (assertion, refresh token) live in the OS keyring, or a 0600 file when there is "
    "none; access tokens are never stored.\n\n"
    "\b\nExamples:\n  svc identity register --anonymous\n  svc identity status",
)
