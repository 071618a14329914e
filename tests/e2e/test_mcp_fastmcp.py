"""fastmcp's client, a client nobody here wrote, drives `svc mcp` (issue 31.6).

In its default mode it negotiates 2026-07-28, where the person is asked in input-required
rounds, over stdio and over HTTP (`svc mcp --http`, with the bearer token). Its elicitation
handler is the person: it approves the payment and types the 2FA code, which reaches the
service and never any result, progress message or log.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.to_thread
import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from tests.conftest import Cli, Sandbox, unique_email
from tests.e2e.test_mcp import TOOLS, advance, run
from tests.e2e.test_mcp_http import http_server
from tests.forkserver import ForkServer

pytestmark = pytest.mark.e2e
MODERN = "2026-07-28"


@dataclass
class Person:
    """fastmcp's elicitation handler: pays, and types the code when asked for one."""

    code: str
    asked: list[str] = field(default_factory=list)

    async def __call__(self, message: str, response_type: Any, params: Any, context: Any) -> Any:
        props = params.requested_schema["properties"]
        self.asked.append("pay" if "pay" in props else "value")
        return {"pay": True} if "pay" in props else {"value": self.code}


@asynccontextmanager
async def stdio(cli: Cli, command: list[str], person: Person) -> AsyncIterator[Client[Any]]:
    """fastmcp's stdio transport starting `svc mcp` with `command` (the `svc_mcp` fixture's)."""
    log = (cli.home / "fastmcp-stderr.txt").open("w")
    transport = StdioTransport(command[0], command[1:], env=cli.env, log_file=log)
    try:
        async with Client(transport, elicitation_handler=person) as client:
            yield client
    finally:
        log.close()
    assert "Traceback" not in (cli.home / "fastmcp-stderr.txt").read_text()


async def drive(client: Client[Any], sandbox: Sandbox, person: Person) -> list[str]:
    """Every step the issue names; returns every result and progress message, as JSON."""
    seen: list[str] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append(message or "")

    assert client.protocol_version == MODERN
    assert {t.name for t in await client.list_tools()} == TOOLS
    for name, args in (("list_tasks", {}), ("spend", {}), ("guide", {"goal": "Renew books"})):
        free = await client.call_tool(name, args)
        assert not free.is_error, (name, free.content)
    paid = await client.call_tool(
        "submit_task", {"task": "Log in to my bank #2fa", "email": unique_email()}
    )
    doc = paid.structured_content
    assert isinstance(doc, dict) and not paid.is_error, paid.content
    assert len(sandbox.charges_for(doc["request_id"])) == 1
    task_id = doc["task"]["id"]
    seen.append(json.dumps(doc))
    await advance(sandbox, 11)  # the sandbox asks for the code 10 s after creation
    waited = await client.call_tool(
        "wait_for_task", {"task_id": task_id, "timeout_seconds": 5}, progress_handler=progress
    )
    seen.append(waited.model_dump_json() if hasattr(waited, "model_dump_json") else repr(waited))
    seen.append(json.dumps(waited.structured_content))
    assert person.asked == ["pay", "value"]
    internals = await anyio.to_thread.run_sync(sandbox.internals, task_id)
    assert internals["sensitive_values_stored"] == 1
    await advance(sandbox, 25)
    await anyio.sleep(0.3)
    done = await client.call_tool(
        "wait_for_task", {"task_id": task_id, "timeout_seconds": 10}, progress_handler=progress
    )
    assert isinstance(done.structured_content, dict)
    assert done.structured_content["task"]["state"] == "completed", done.content
    seen.append(json.dumps(done.structured_content))
    seen.append(repr(done.content))
    return seen


def _code() -> str:
    return f"{uuid.uuid4().int % 10**8:08d}"


def test_fastmcp_over_stdio_pays_and_finishes_a_2fa_task(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    person = Person(_code())
    seen: list[str] = []

    async def body() -> None:
        async with stdio(cli, svc_mcp, person) as client:
            seen.extend(await drive(client, sandbox, person))

    run(body)
    assert all(person.code not in text for text in seen)
    for path in cli.home.rglob("*"):
        if path.is_file():
            assert person.code.encode() not in path.read_bytes(), path


def test_fastmcp_over_http_pays_and_finishes_a_2fa_task(
    cli: Cli, sandbox: Sandbox, fork_server: ForkServer
) -> None:
    person = Person(_code())
    seen: list[str] = []
    with http_server(cli, fork_server) as served:
        assert served.token is not None

        async def body() -> None:
            async with Client(served.url, auth=served.token, elicitation_handler=person) as client:
                seen.extend(await drive(client, sandbox, person))

        run(body)
        seen.append(served.stderr.read_text())
    assert all(person.code not in text for text in seen)
    for path in cli.home.rglob("*"):
        if path.is_file():
            assert person.code.encode() not in path.read_bytes(), path
