"""`svc mcp`'s reply_to_task words the reply engine's mismatches in its own arguments (issue
32.3): the model reads `field_values` and `approve_payment`, never a `svc reply` flag. Each is a
tool error with the contract's code, and nothing reaches the service."""

from __future__ import annotations

from typing import Any

import anyio.to_thread
import pytest
from mcp import ClientSession
from tests.conftest import Cli, Sandbox
from tests.e2e.test_mcp import advance, error_of, run, served, submitted, task_of
from tests.e2e.test_reply_form import replies

pytestmark = pytest.mark.e2e

SEAT = {"shipping_address": "1 Main St", "phone": "5550100", "seat_preference": "aisle"}


async def blocked(session: ClientSession, sandbox: Sandbox, task: str) -> str:
    _, first = await submitted(session, task)
    task_id = str(task_of(first)["id"])
    await advance(sandbox, 11)  # the sandbox asks 10 s after creation
    return task_id


async def refused(session: ClientSession, task_id: str, **args: Any) -> dict[str, Any]:
    error = error_of(await session.call_tool("reply_to_task", {"task_id": task_id, **args}))
    assert error["exit_code"] == 2, error
    assert "--" not in error["detail"] + error.get("hint", ""), error
    return error


def test_each_mismatch_names_the_tools_arguments(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    async def body() -> None:
        async with served(cli, svc_mcp, env={"SVC_MCP_PREAPPROVED_USD": "1.50"}) as (session, _):
            plain = await blocked(session, sandbox, "Log me in #2fa")
            structured = await blocked(session, sandbox, "Book a seat #questions")
            error = await refused(session, plain, field_values={"note": "x"})
            assert (error["error"], error["detail"]) == (
                "usage_error",
                "this task waits on a plain ask: answer with message, or field with value "
                "(no field_values or payment arguments)",
            )
            error = await refused(session, structured, message="aisle please")
            assert error["detail"] == (
                "this task carries a structured ask: answer with field_values "
                "(and approve_payment/decline_payment for a payment)"
            )
            error = await refused(session, structured, field_values=SEAT, decline_payment=True)
            assert error["detail"] == (
                "this ask is not about a payment: drop approve_payment/decline_payment"
            )
            error = await refused(session, structured, field_values={**SEAT, "seat": "x"})
            assert error["error"] == "field_values_mismatch"
            assert "not asked for: seat" in error["detail"]
            error = await refused(session, structured, message="hi", field_values=SEAT)
            assert error["detail"] == (
                "message (a plain ask's answer) and field_values or a payment argument (a "
                "structured ask's) exclude each other"
            )
            for task_id in (plain, structured):
                assert await anyio.to_thread.run_sync(replies, sandbox, task_id) == []

    run(body)
