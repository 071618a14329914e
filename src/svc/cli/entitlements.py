"""`svc entitlements`: active plans with remaining credit, for this credential's person."""

from __future__ import annotations

from typing import Any

import typer

from svc.api.errors import AuthError
from svc.cli.app import current

app = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Show active plans with remaining credit.\n\n"
    "Covers every credential the same person claimed. Needs an agent credential "
    "(svc identity register).\n\n"
    "\b\nExamples:\n  svc entitlements\n  svc entitlements --json | jq '.plans[].plan_id'"
)
def entitlements() -> None:
    app_ctx = current()
    bearer = app_ctx.bearer
    if bearer is None or app_ctx.identity.access_token() is None:
        raise AuthError(
            "entitlements need an agent credential, and none usable is stored",
            code="no_credential",
            hint="register one: svc identity register (or finish the claim: svc identity claim)",
        )
    doc = app_ctx.identity.platform.entitlements(bearer)
    if app_ctx.output.json_mode:
        app_ctx.output.emit_json(doc)
        return
    _render(app_ctx.output.console, doc)


def _render(console: Any, doc: Any) -> None:
    from rich.table import Table
    from rich.text import Text

    from svc.ui.sanitize import clean

    plans = doc.get("plans") if isinstance(doc, dict) else None
    if not isinstance(plans, list) or not plans:
        console.print(Text("No active plans."))
        return
    table = Table("plan", "service", "status", "remaining")
    for plan in plans:
        if not isinstance(plan, dict):
            continue
        remaining = plan.get("remaining")
        if isinstance(remaining, dict):
            shown = ", ".join(f"{k} {v}" for k, v in remaining.items())
        else:
            shown = "pay as you go" if remaining is None else str(remaining)
        table.add_row(
            *(
                Text(clean(value, 80, single_line=True))
                for value in (plan.get("plan_id"), plan.get("service"), plan.get("status"), shown)
            )
        )
    console.print(table)
    if isinstance(doc, dict) and isinstance(doc.get("credentials"), list):
        console.print(Text(f"shared by {len(doc['credentials'])} credential(s)", style="dim"))
