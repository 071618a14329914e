"""What was paid, from the ledger: `svc spend` and the MCP `spend` tool."""

from __future__ import annotations

from typing import Any

from svc.context import AppContext
from svc.errors import UsageError
from svc.store.spend import day_start, load_spend


def spend_document(
    app: AppContext, since: str | None, *, name: str = "--since", runner: str | None = None
) -> dict[str, Any]:
    """The spend report since a `YYYY-MM-DD` day (`name` is what the caller calls the day in
    an error: a flag for the CLI, an argument for MCP), of one runner's share of a shared
    ledger or of all; no ledger yet means nothing paid."""
    try:
        day_start(since)
    except ValueError:
        raise UsageError(f"{name} must be a date like 2026-11-01, got {since!r}") from None
    cap = app.daily_cap()  # on a fleet: the fleet's one value
    ledger = app.ledger_to_read()
    doc = load_spend(ledger, since, runner, cap.atomic)
    doc["cap"]["source"] = cap.source
    return doc
