"""`receipt` on every face from its one declaration: `svc receipt ID`, the MCP tool `get_receipt`
and `Client.receipt()` / `AsyncClient.receipt()` give the same document for a paid task, and
the same error (exit 7, `not_in_ledger`, a way on) for an id the ledger lacks."""

from __future__ import annotations

import asyncio

import pytest
from tests.conftest import Cli, Sandbox, unique_email, unique_request_id
from tests.e2e.test_mcp import error_of, run, served
from tests.inproc import library_home

from svc import AsyncClient, Client, NotFound, Receipt

pytestmark = pytest.mark.e2e


def _paid(cli: Cli) -> tuple[str, str]:
    rid = unique_request_id()
    doc = cli.ok("submit", "Receipt on every face", "--email", unique_email(), "--request-id", rid)
    return rid, doc.json()["id"]


def test_the_cli_mcp_and_library_give_one_receipt(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rid, task_id = _paid(cli)
    shown = cli.ok("receipt", task_id, "--json").json()
    assert shown["request_id"] == rid and shown["amount_usd"] == "1.500000"

    async def body() -> None:
        async with served(cli, svc_mcp) as (session, _):
            result = await session.call_tool("get_receipt", {"task_or_request_id": rid})
            assert not result.is_error, result.content
            assert result.structured_content == shown
            text = result.content[0].text  # type: ignore[union-attr]
            assert "1.50 USD" in text and task_id in text and rid in text

    run(body)
    library_home(cli.home, sandbox.url, monkeypatch)
    with Client() as client:
        receipt = client.receipt(task_id)
    assert isinstance(receipt, Receipt)
    assert receipt.to_json() == shown

    async def awaited() -> Receipt:
        async with AsyncClient() as client:
            return await client.receipt(rid)

    assert asyncio.run(awaited()).to_json() == shown


def test_an_id_the_ledger_lacks_is_the_same_error_on_every_face(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _paid(cli)  # a ledger that holds something else
    missing = cli("receipt", "task_nope")
    assert missing.returncode == 7 and missing.json()["error"] == "not_in_ledger"
    assert "the ledger has no request or task 'task_nope'" in missing.stderr
    assert "svc tasks" in missing.stderr  # the CLI's way on

    async def body() -> None:
        async with served(cli, svc_mcp) as (session, _):
            result = await session.call_tool("get_receipt", {"task_or_request_id": "task_nope"})
            error = error_of(result)
            assert error["error"] == "not_in_ledger" and error["exit_code"] == 7
            assert "list_tasks" in error["hint"]  # the tool call that goes on from here
            bad = await session.call_tool("get_receipt", {"task_or_request_id": ""})
            assert error_of(bad)["error"] == "invalid_arguments"

    run(body)
    library_home(cli.home, sandbox.url, monkeypatch)
    with Client() as client, pytest.raises(NotFound) as caught:
        client.receipt("task_nope")
    assert caught.value.code == "not_in_ledger" and caught.value.exit_code == 7
    assert "tasks()" in caught.value.hint  # the library call that goes on from here
