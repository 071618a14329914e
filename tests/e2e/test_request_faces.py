"""`request` on its other faces: `Client.request` / `AsyncClient.request`, and `svc mcp`'s
`paid_request`, which exists only for the origins the person allowed (`request_origins`)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError
from tests.conftest import Cli, Sandbox, unique_request_id
from tests.e2e.test_library import home  # noqa: F401 - the fixture
from tests.e2e.test_mcp import Person, error_of, run, served
from tests.request_peer import Peer, Reply

import svc
from svc import AsyncClient, Client, Conflict, PaidAnswer

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("no_payment_faults")]

ECHO = "/svc/paid/echo"


def charges(sandbox: Sandbox, request_id: str) -> list[dict[str, object]]:
    return [c for c in sandbox.books()["charges"] if c.get("payment_identifier") == request_id]


@pytest.mark.usefixtures("home")
def test_client_request_pays_once_and_returns_status_headers_and_body(sandbox: Sandbox) -> None:
    rid = unique_request_id()
    with Client() as client:
        answer = client.request(f"{sandbox.url}{ECHO}", "POST", data="{}", request_id=rid)
        assert isinstance(answer, PaidAnswer)
        assert answer.status == 200 and answer.request_id == rid and answer.rail == "x402"
        assert str(answer.paid_usd) == "1.500000" and '"body":"{}"' in answer.text
        assert "payment-response" in answer.headers
        with pytest.raises(Conflict):  # answered before: nothing is sent again
            client.request(f"{sandbox.url}{ECHO}", "POST", data="{}", request_id=rid)
    assert len(charges(sandbox, rid)) == 1


@pytest.mark.usefixtures("home")
def test_async_client_request_streams_to_a_file(sandbox: Sandbox, tmp_path: Path) -> None:
    target = tmp_path / "out.bin"

    async def body() -> PaidAnswer:
        async with AsyncClient() as client:
            return await client.request(f"{sandbox.url}{ECHO}?bytes=300000", output=target)

    answer = asyncio.run(body())
    assert answer.status == 200 and answer.body == b"" and answer.paid_usd is not None
    assert target.read_bytes() == b"x" * 300000


def test_paid_request_is_absent_until_the_person_allows_an_origin(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    async def body() -> None:
        async with served(cli, svc_mcp) as (session, _):
            names = [tool.name for tool in (await session.list_tools()).tools]
            assert "paid_request" not in names and "submit_task" in names
            with pytest.raises(MCPError, match="unknown tool 'paid_request'"):
                await session.call_tool("paid_request", {"url": f"{sandbox.url}{ECHO}"})

    run(body)
    assert cli.ok("tasks", "--json").json() == []  # nothing journaled, nothing paid


def test_paid_request_pays_an_allowed_origin_and_refuses_another(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    env = {"SVC_REQUEST_ORIGINS": sandbox.url, "SVC_MCP_PREAPPROVED_USD": "2"}
    rid = unique_request_id()

    async def body() -> None:
        async with served(cli, svc_mcp, person=Person(), env=env) as (session, _):
            names = [tool.name for tool in (await session.list_tools()).tools]
            assert "paid_request" in names
            args = {"url": f"{sandbox.url}{ECHO}", "method": "POST", "body": "hi"}
            paid = await session.call_tool("paid_request", {**args, "request_id": rid})
            assert not paid.is_error, paid.content
            doc = paid.structured_content or {}
            assert doc["status"] == 200 and doc["paid_usd"] == "1.500000"
            assert doc["request_id"] == rid and '"body":"hi"' in doc["body"]
            other = await session.call_tool("paid_request", {"url": "https://example.com/x"})
            assert error_of(other)["error"] == "origin_not_allowed"

    run(body)
    assert len(charges(sandbox, rid)) == 1


@pytest.mark.usefixtures("home")
def test_a_paid_body_too_large_to_hold_says_it_was_paid(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The body is past what the library holds in memory, after the request was paid: the
    error says it was paid and names its receipt, never that nothing was sent."""
    from svc.client import _work

    monkeypatch.setattr(_work, "MAX_BODY_HELD", 1000)
    rid = unique_request_id()
    with Client() as client, pytest.raises(svc.SvcError) as caught:
        client.request(f"{sandbox.url}{ECHO}?bytes=5000", request_id=rid)
    error = caught.value
    assert not isinstance(error, svc.UsageError) and error.exit_code == 1
    assert f"request {rid} was paid and answered, but the body is larger than 1000 bytes: " in (
        error.message
    )
    assert "pass output=PATH" in error.message and f"receipt({rid!r})" in (error.hint or "")
    assert "nothing was sent" not in str(error) and len(charges(sandbox, rid)) == 1


def test_a_paid_body_too_large_for_json_exits_1_and_says_it_was_paid(
    cli: Cli, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    from svc.commands import request as command

    monkeypatch.setattr(command, "MAX_JSON_BODY", 1000)
    rid = unique_request_id()
    result = cli("request", "--json", "--request-id", rid, f"{sandbox.url}{ECHO}?bytes=5000")
    assert result.returncode == 1, result.stderr
    assert f"request {rid} was paid and answered, but the body is larger than 1000 bytes: " in (
        result.stderr
    )
    assert "write it to a file with -o PATH" in result.stderr and f"svc receipt {rid}" in (
        result.stderr
    )
    assert "nothing was" not in result.stderr and len(charges(sandbox, rid)) == 1


def test_a_free_body_too_large_for_json_is_a_usage_error(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    from svc.commands import request as command

    monkeypatch.setattr(command, "MAX_JSON_BODY", 10)
    with Peer(lambda s: Reply(200, {}, b"x" * 100)) as peer:
        result = cli("request", "--json", f"{peer.url}/free")
    assert result.returncode == 2, result.stderr
    assert "the body is larger than 10 bytes: write it to a file with -o PATH" in result.stderr


@pytest.mark.usefixtures("home")
def test_client_request_refuses_a_header_no_request_can_carry(sandbox: Sandbox) -> None:
    with Client() as client:
        for headers in ({"é": "x"}, {"X-Note": "café"}):
            with pytest.raises(svc.UsageError, match="nothing was sent"):
                client.request(f"{sandbox.url}{ECHO}", headers=headers)
