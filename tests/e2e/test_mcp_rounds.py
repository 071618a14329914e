"""Asks under the 2026-07-28 protocol (issue 31.2): input-required rounds with sealed state.

The SDK's own `Client`, pinned to 2026-07-28, drives the installed `svc mcp` over stdio
against the sandbox. That protocol has no back channel, so the person is asked by ending the
call with an `input_required` result; the client's elicitation callback answers and the client
repeats the call with the answer and the sealed `requestState`. The attacks come first: a
forged, altered, replayed or transplanted state pays nothing.
"""

from __future__ import annotations

import base64
import contextlib
import json
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from tests.conftest import Cli, Sandbox, unique_email
from tests.e2e.test_mcp import Person, advance, run, task_of

pytestmark = pytest.mark.e2e
MODERN = "2026-07-28"


@asynccontextmanager
async def modern(
    cli: Cli,
    command: list[str],
    *,
    person: Person | None = None,
    env: dict[str, str] | None = None,
) -> AsyncIterator[tuple[Client, Path]]:
    """A 2026-07-28 client of `svc mcp` (started with `command`, the `svc_mcp` fixture's) over
    stdio; yields it and the server's stderr file."""
    stderr = cli.home / f"mcp-stderr-{uuid.uuid4().hex[:8]}.txt"
    params = StdioServerParameters(
        command=command[0], args=command[1:], env={**cli.env, **(env or {})}
    )
    with stderr.open("w") as errlog:
        params_err = {"errlog": errlog}
        async with Client(
            _Stdio(params, params_err), mode=MODERN, elicitation_callback=person
        ) as client:
            yield client, stderr
    assert "Traceback" not in stderr.read_text()


class _Stdio:
    """`stdio_client` with the server's stderr in a file (the Client's own keeps it on ours)."""

    def __init__(self, params: StdioServerParameters, extra: dict[str, Any]) -> None:
        from mcp import stdio_client

        self._cm = stdio_client(params, **extra)

    async def __aenter__(self) -> Any:
        return await self._cm.__aenter__()

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._cm.__aexit__(*exc)


def _submit_args(task: str = "Renew my library books #complete") -> dict[str, Any]:
    return {"task": task, "email": unique_email(), "request_id": f"req_{uuid.uuid4().hex}"}


async def _first_round(client: Client, args: dict[str, Any]) -> types.InputRequiredResult:
    first = await client.session.call_tool("submit_task", args, allow_input_required=True)
    assert isinstance(first, types.InputRequiredResult), first
    assert first.request_state and first.input_requests
    return first


def _pay(yes: bool = True) -> dict[str, Any]:
    return {"person": types.ElicitResult(action="accept", content={"pay": yes})}


def _refused(exc: MCPError) -> None:
    assert exc.error.code == types.INVALID_PARAMS
    assert "requestState" in exc.error.message


def test_a_forged_or_altered_state_is_refused_and_nothing_is_paid(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    args = _submit_args()

    async def body() -> None:
        async with modern(cli, svc_mcp, person=Person()) as (client, _):
            first = await _first_round(client, args)
            state = first.request_state
            assert state is not None
            # The client cannot read what was asked: the state is sealed, not merely signed.
            # (Its text is random base64: "pay" turned up in it by chance, about one run in a
            # hundred; what matters is that no decoding of it shows the plain words.)
            assert args["request_id"] not in state
            opened = _decoded_parts(state)
            assert len(opened) > 32  # the sealed bytes were read: the check below means something
            for plain in (args["request_id"].encode(), b'"kind"', b'"pay'):
                assert plain not in opened, plain
            flipped = state[:-2] + ("A" if state[-2] != "A" else "B") + state[-1]
            forged = json.dumps({"v": 1, "about": {"kind": "pay"}, "nonce": "x"})
            for bad in (flipped, forged, "v1.AAAA", state + "A"):
                with pytest.raises(MCPError) as caught:
                    await client.session.call_tool(
                        "submit_task",
                        args,
                        input_responses=_pay(),
                        request_state=bad,
                        allow_input_required=True,
                    )
                _refused(caught.value)
            # Moved onto another task (other arguments), the true state is refused as well.
            other = {**args, "task": "Pay someone else #complete"}
            with pytest.raises(MCPError) as caught:
                await client.session.call_tool(
                    "submit_task",
                    other,
                    input_responses=_pay(),
                    request_state=state,
                    allow_input_required=True,
                )
            _refused(caught.value)

    run(body)
    assert sandbox.charges_for(args["request_id"]) == []
    rows = [r for r in cli.ok("tasks", "--json").json() if r["request_id"] == args["request_id"]]
    assert all(r["status"] == "rejected" for r in rows), rows  # nothing held, nothing signed


def test_a_replayed_round_is_refused_and_pays_once(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    args = _submit_args()

    async def body() -> None:
        async with modern(cli, svc_mcp, person=Person()) as (client, _):
            first = await _first_round(client, args)
            second = await client.session.call_tool(
                "submit_task",
                args,
                input_responses=_pay(),
                request_state=first.request_state,
                allow_input_required=True,
            )
            assert isinstance(second, types.CallToolResult), second
            assert task_of(second)["state"] == "pending"
            with pytest.raises(MCPError) as caught:  # the very same round, sent again
                await client.session.call_tool(
                    "submit_task",
                    args,
                    input_responses=_pay(),
                    request_state=first.request_state,
                    allow_input_required=True,
                )
            _refused(caught.value)

    run(body)
    assert len(sandbox.charges_for(args["request_id"])) == 1


def test_the_person_approves_in_a_round_and_is_charged_once(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    person = Person(pay=True)
    email = unique_email()

    async def body() -> None:
        async with modern(cli, svc_mcp, person=person) as (client, _):
            # No request id from the agent: the round keeps the one it asked about.
            paid = await client.call_tool(
                "submit_task", {"task": "Renew my library books #complete", "email": email}
            )
            assert not paid.is_error, paid.content
            doc = paid.structured_content
            assert isinstance(doc, dict) and doc["replayed"] is False
            (question,) = person.payment_questions()
            assert "1.50 USD" in question and "Renew my library books" in question
            assert len(sandbox.charges_for(doc["request_id"])) == 1

    run(body)


def test_a_declined_payment_pays_nothing_and_says_so(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    person = Person(pay=False)
    args = _submit_args()

    async def body() -> None:
        async with modern(cli, svc_mcp, person=person) as (client, _):
            result = await client.call_tool("submit_task", args)
            assert result.is_error
            text = result.content[0].text  # type: ignore[union-attr]
            assert "payment_not_approved" in text and "did not confirm" in text, text
            assert len(person.payment_questions()) == 1

    run(body)
    assert sandbox.charges_for(args["request_id"]) == []


def test_a_client_that_cannot_show_a_form_is_refused_with_nothing_paid(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    args = _submit_args()

    async def body() -> None:
        async with modern(cli, svc_mcp) as (client, _):  # no elicitation callback: no form declared
            result = await client.call_tool("submit_task", args)
            assert result.is_error
            text = result.content[0].text  # type: ignore[union-attr]
            assert "cannot ask the person" in text, text

    run(body)
    assert sandbox.charges_for(args["request_id"]) == []


def test_a_2fa_code_goes_from_the_person_to_the_service_in_a_round(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    code = f"{uuid.uuid4().int % 10**8:08d}"
    person = Person(pay=True, code=code)
    seen: list[str] = []

    async def body() -> None:
        async with modern(cli, svc_mcp, person=person) as (client, stderr):
            first = await client.call_tool(
                "submit_task", {"task": "Log in to my bank #2fa", "email": unique_email()}
            )
            task_id = task_of(first)["id"]
            seen.append(first.model_dump_json())
            await advance(sandbox, 11)  # the sandbox asks for the code 10 s after creation
            waited = await client.call_tool(
                "wait_for_task", {"task_id": task_id, "timeout_seconds": 5}
            )
            seen.append(waited.model_dump_json())
            assert person.answered.is_set()
            internals = await anyio.to_thread.run_sync(sandbox.internals, task_id)
            assert internals["sensitive_values_stored"] == 1  # the service got it, as sensitive
            await advance(sandbox, 25)
            await anyio.sleep(0.3)
            done = await client.call_tool(
                "wait_for_task", {"task_id": task_id, "timeout_seconds": 10}
            )
            seen.append(done.model_dump_json())
            assert task_of(done)["state"] == "completed", done.content
            received = [e for e in task_of(done)["events"] if e["type"] == "reply_received"]
            assert received[0]["payload"]["sensitive"] is True
            seen.append(stderr.read_text())

    run(body)
    assert all(code not in text for text in seen)
    for path in cli.home.rglob("*"):  # ledger, config, secret store, logs
        if path.is_file():
            assert code.encode() not in path.read_bytes(), path


def _decoded_parts(state: str) -> bytes:
    """Every dot-separated part of a state token, read as base64url as far as it reads."""
    raw = b""
    for part in state.split("."):
        with contextlib.suppress(ValueError):
            raw += base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
    return raw
