"""Budgets under `svc mcp` (issue 35.1, 35.3): `session_budget_usd` limits each MCP session
over its life; a budget near its end is a note in the paying tool's result (structured and in
text) so the agent can tell its person; the refusal is a tool error with its own code."""

from __future__ import annotations

import pytest
from tests.conftest import Cli, Sandbox
from tests.e2e.test_mcp import Person, error_of, run, served, submitted

from svc.store.ledger import Ledger

pytestmark = pytest.mark.e2e

SESSION = {"SVC_SESSION_BUDGET_USD": "3.00", "SVC_MCP_PREAPPROVED_USD": "2"}


def test_a_session_budget_notes_its_end_refuses_past_it_and_a_new_session_starts_afresh(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    async def body() -> None:
        async with served(cli, svc_mcp, person=Person(), env=SESSION) as (session, _):
            _, first = await submitted(session, "Session one #complete")
            assert not first.is_error and "budget_notes" not in (first.structured_content or {})
            _, second = await submitted(session, "Session two #complete")
            assert not second.is_error, second.content
            notes = (second.structured_content or {})["budget_notes"]
            assert notes and "session budget of this MCP session is 100 % used" in notes[0]
            assert "at its limit" in notes[0] and "near its limit" not in notes[0]
            assert any("tell the person" in getattr(c, "text", "") for c in second.content)
            rid, third = await submitted(session, "Session three #complete")
            refused = error_of(third)
            assert refused["error"] == "budget_exceeded" and refused["exit_code"] == 5
            assert "resets with a new session" in refused["detail"]
            assert sandbox.charges_for(rid) == []
        async with served(cli, svc_mcp, person=Person(), env=SESSION) as (session, _):
            _, fresh = await submitted(session, "Session four #complete")
            assert not fresh.is_error, fresh.content

    run(body)
    ledger = Ledger(cli.home / "data" / "ledger.sqlite3")
    try:
        sessions = {a.session for a in ledger.authorizations() if a.amount_atomic}
    finally:
        ledger.close()
    assert len(sessions) == 2 and None not in sessions  # each row names its session
