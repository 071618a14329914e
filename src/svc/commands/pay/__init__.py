"""`svc pay card`: payments that need a person."""

from __future__ import annotations

import typer

from svc.cli.app import lazy_group

MEMBERS = {
    "card": (
        "svc.commands.pay.card",
        "Complete a pending card payment for a journaled submission, then send it.",
    ),
}

app: typer.Typer = typer.Typer(cls=lazy_group(MEMBERS), rich_markup_mode=None)


@app.callback()
def pay() -> None:
    """Complete payments that need a person.

    A submit paid by card (--pay card) stops at a hosted payment page and exits 6; `svc pay
    card` finishes it once the person has paid, without paying twice.

    \b
    Examples:
      svc pay card
    """
