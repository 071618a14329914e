"""`svc sandbox serve|mint-id-jag|tags|approve|pay-card|claim-code`: the local emulator."""

from __future__ import annotations

from typing import TYPE_CHECKING

from svc.cli.app import command_group

if TYPE_CHECKING:
    import typer

MEMBERS = {
    "serve": ("svc.commands.sandbox.serve", "Serve the sandbox on loopback until interrupted."),
    "mint-id-jag": (
        "svc.commands.sandbox.mint_id_jag",
        "Mint a test ID-JAG (identity assertion) from one of the sandbox's identity "
        "providers and print it on stdout.",
    ),
    "tags": (
        "svc.commands.sandbox.tags",
        "List the scenario tags a task's text may carry, and what each does.",
    ),
    "approve": (
        "svc.commands.sandbox.approve",
        "Approve a task's pending payment, as the person would in their app (sandbox only).",
    ),
    "pay-card": (
        "svc.commands.sandbox.pay_card",
        "Press Pay (or Decline) on a card payment's page, as the person would (sandbox only).",
    ),
    "claim-code": (
        "svc.commands.sandbox.claim_code",
        "Print the code of a pending claim link, so a claim can be tried without a browser.",
    ),
}

app: typer.Typer = command_group(
    MEMBERS,
    "Run the local emulator of the service: tasks, x402 payments, scenarios. No money moves.\n\n"
    "approve, claim-code and mint-id-jag drive a running sandbox by hand. Scenario tags in a "
    "task's text choose what it does; see svc sandbox tags.\n\n"
    "\b\nExamples:\n  svc sandbox serve\n  svc sandbox serve --port 0 --clock-speed 10\n"
    "  svc sandbox tags",
)
