"""`svc mcp` driven by the official MCP client over stdio, against the sandbox (issue 16).

Each test starts the installed `svc mcp` as a subprocess with the isolated home of the `cli`
fixture (its wallet already imported), talks to it with `ClientSession`, and checks the money
in the sandbox's books and the local ledger, and the secrets in every byte the server wrote.
"""

from __future__ import annotations

import json
import os
import statistics
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.session import ClientRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from tests.conftest import SVC, Cli, Sandbox, unique_email

pytestmark = pytest.mark.e2e

TOOLS = {
    "submit_task",
    "get_task",
    "wait_for_task",
    "reply_to_task",
    "quote",
    "guide",
    "list_tasks",
    "spend",
    "get_receipt",
}


class Person:
    """Answers the server's elicitations as the person at the MCP client would."""

    def __init__(self, *, pay: bool = True, code: str | None = None) -> None:
        self.pay = pay
        self.code = code
        self.asked: list[types.ElicitRequestFormParams] = []
        self.answered = anyio.Event()

    async def __call__(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        assert isinstance(params, types.ElicitRequestFormParams)
        self.asked.append(params)
        props = params.requested_schema["properties"]
        if "pay" in props:
            return types.ElicitResult(action="accept", content={"pay": self.pay})
        assert "value" in props
        self.answered.set()
        if self.code is None:
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content={"value": self.code})

    def payment_questions(self) -> list[str]:
        return [p.message for p in self.asked if "pay" in p.requested_schema["properties"]]


@asynccontextmanager
async def served(
    cli: Cli,
    command: list[str],
    *,
    person: Person | None = None,
    env: dict[str, str] | None = None,
) -> AsyncIterator[tuple[ClientSession, Path]]:
    """A session with `svc mcp`, started with `command` (the `svc_mcp` fixture's, or the
    installed script's for a test of the process itself); yields it and the file that receives
    the server's stderr."""
    stderr = cli.home / f"mcp-stderr-{uuid.uuid4().hex[:8]}.txt"
    params = StdioServerParameters(
        command=command[0], args=command[1:], env={**cli.env, **(env or {})}
    )
    with stderr.open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, elicitation_callback=person) as session,
        ):
            await session.initialize()
            yield session, stderr
    assert "Traceback" not in stderr.read_text()


def run(body: Callable[[], Awaitable[None]]) -> None:
    anyio.run(body)


def task_of(result: types.CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    doc = result.structured_content
    assert isinstance(doc, dict)
    return dict(doc.get("task", doc))


def error_of(result: types.CallToolResult) -> dict[str, Any]:
    """The contract's error object, which an error result carries in `_meta` (issue 31: no
    structured content, which clients check against the tool's output schema)."""
    assert result.is_error, result.structured_content
    assert result.structured_content is None
    assert result.meta is not None and isinstance(result.meta["svc/error"], dict)
    return dict(result.meta["svc/error"])


def ledger_rows(cli: Cli) -> list[dict[str, Any]]:
    return list(cli.ok("tasks", "--json").json())


async def submitted(
    session: ClientSession, task: str, **extra: Any
) -> tuple[str, types.CallToolResult]:
    """(request id, result) of a submit_task with a fresh request id and e-mail."""
    rid = f"req_{uuid.uuid4().hex}"
    args = {"task": task, "email": unique_email(), "request_id": rid}
    return rid, await session.call_tool("submit_task", {**args, **extra})


async def advance(sandbox: Sandbox, seconds: float) -> None:
    await anyio.to_thread.run_sync(sandbox.advance, seconds)


def test_lists_the_tools_with_the_spec_limits(cli: Cli, svc_mcp: list[str]) -> None:
    async def body() -> None:
        async with served(cli, svc_mcp) as (session, _):
            tools = {t.name: t for t in (await session.list_tools()).tools}
            assert set(tools) == TOOLS
            submit = tools["submit_task"].input_schema["properties"]
            assert (submit["task"]["minLength"], submit["task"]["maxLength"]) == (1, 100_000)
            assert (submit["email"]["minLength"], submit["email"]["maxLength"]) == (3, 254)
            reply = tools["reply_to_task"].input_schema["properties"]
            assert reply["value"]["maxLength"] == reply["message"]["maxLength"] == 4000
            assert reply["field"]["maxLength"] == 64
            goal = tools["quote"].input_schema["properties"]["goal"]
            assert (goal["minLength"], goal["maxLength"]) == (1, 2000)
            assert all(t.description and len(t.description) > 60 for t in tools.values())
            templates = (await session.list_resource_templates()).resource_templates
            assert [t.uri_template for t in templates] == ["svc://tasks/{task_id}"]

    run(body)


def test_with_no_wallet_no_one_is_asked_to_pay(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    """A profile with no wallet: the refusal is the missing wallet, and the person is never
    asked "Pay 1.50 USD?" for a payment that could not be made."""
    cli.ok("config", "set", "max_price_usd", "1.50", "--profile", "empty")
    person = Person(pay=True)
    rid = f"req_{uuid.uuid4().hex}"

    async def body() -> None:
        async with served(cli, svc_mcp, person=person, env={"SVC_PROFILE": "empty"}) as (
            session,
            _,
        ):
            args = {"task": "Pay #complete", "email": unique_email(), "request_id": rid}
            refused = await session.call_tool("submit_task", args)
            assert refused.is_error
            text = refused.content[0].text  # type: ignore[union-attr]
            assert "no_wallet" in text and "no wallet to pay with" in text, text

    run(body)
    assert person.asked == [] and sandbox.charges_for(rid) == []


def test_with_no_payment_token_no_one_is_asked_to_pay_by_mpp(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    """MPP with no shared payment token (none stored, no file, no command): the refusal is
    the missing token, before the person is asked."""
    person = Person(pay=True)
    rid = f"req_{uuid.uuid4().hex}"
    args = {"task": "Pay #complete", "email": unique_email(), "request_id": rid, "pay": "mpp"}

    async def body() -> None:
        async with served(cli, svc_mcp, person=person, env={"SVC_SPT": ""}) as (session, _):
            refused = await session.call_tool("submit_task", args)
            text = refused.content[0].text  # type: ignore[union-attr]
            assert refused.is_error and "no_spt" in text, text

    run(body)
    assert person.asked == [] and sandbox.charges_for(rid) == []


class SlowPerson(Person):
    """Takes `seconds` before answering any form."""

    def __init__(self, seconds: float, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.seconds = seconds

    async def __call__(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        await anyio.sleep(self.seconds)
        return await super().__call__(context, params)


def test_a_slow_payer_is_asked_once_and_the_same_request_id_goes_on(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    """The person takes longer than a call may wait (45 s, here at a tenth of the pace): the
    submit ends first, nothing signed, saying the form stays open and which request id goes
    on; submit_task again with that id waits on the same form and pays once."""
    person = SlowPerson(7.0, pay=True)
    rid = f"req_{uuid.uuid4().hex}"
    args = {"task": "Renew my books #complete", "email": unique_email(), "request_id": rid}

    async def body() -> None:
        scaled = {"SVC_TEST_MCP_TIME_SCALE": "0.1"}
        async with served(cli, svc_mcp, person=person, env=scaled) as (session, _):
            began = time.monotonic()
            first = await session.call_tool("submit_task", args)
            assert first.is_error and time.monotonic() - began < 6.5
            text = first.content[0].text  # type: ignore[union-attr]
            assert "awaiting_person" in text and f"request_id {rid}" in text, text
            assert sandbox.charges_for(rid) == []  # nothing signed while the form is open
            again = await session.call_tool("submit_task", args)
            assert not again.is_error, again.content

    run(body)
    assert len(person.payment_questions()) == 1 and len(sandbox.charges_for(rid)) == 1


def test_submit_pays_once_and_the_same_request_id_is_never_charged_again(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    person = Person(pay=True)

    async def body() -> None:
        async with served(cli, svc_mcp, person=person) as (session, _):
            email = unique_email()
            rid, first = await submitted(session, "Renew my library books #complete", email=email)
            task = task_of(first)
            assert task["state"] == "pending"
            assert first.structured_content["replayed"] is False  # type: ignore[index]
            assert first.structured_content["request_id"] == rid  # type: ignore[index]
            assert len(sandbox.charges_for(rid)) == 1
            (question,) = person.payment_questions()
            assert "1.50 USD" in question and "Renew my library books" in question
            again = await session.call_tool(
                "submit_task",
                {"task": "Renew my library books #complete", "email": email, "request_id": rid},
            )
            assert task_of(again)["id"] == task["id"]
            assert again.structured_content["replayed"] is True  # type: ignore[index]
            assert len(sandbox.charges_for(rid)) == 1
            assert len(person.payment_questions()) == 1  # nothing new to pay, nothing asked
            uri = f"svc://tasks/{task['id']}"
            listed = [str(r.uri) for r in (await session.list_resources()).resources]
            assert uri in listed
            read = await session.read_resource(uri)
            doc = json.loads(read.contents[0].text)  # type: ignore[union-attr]
            assert doc["task"]["id"] == task["id"] and doc["ledger"]["request_id"] == rid
            assert "proof" not in doc["ledger"] and "body" not in doc["ledger"]
            spend = await session.call_tool("spend", {})
            assert spend.structured_content["paid_count"] == 1  # type: ignore[index]

    run(body)


def test_wait_through_a_2fa_ask_with_the_person_typing_the_code(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    code = f"{uuid.uuid4().int % 10**8:08d}"
    person = Person(pay=True, code=code)
    progress: list[tuple[float, float | None, str | None]] = []
    results: list[types.CallToolResult] = []
    views: list[dict[str, Any]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    async def body() -> None:
        async with served(cli, svc_mcp, person=person) as (session, stderr):
            _, first = await submitted(session, "Log in to my bank #2fa")
            task_id = task_of(first)["id"]
            await advance(sandbox, 11)  # the sandbox asks for the code 10 s after creation

            async def finish_after_the_answer() -> None:
                await person.answered.wait()
                await anyio.sleep(1.5)
                views.append(await anyio.to_thread.run_sync(sandbox.internals, task_id))
                await advance(sandbox, 25)

            async with anyio.create_task_group() as group:
                group.start_soon(finish_after_the_answer)
                waited = await session.call_tool(
                    "wait_for_task",
                    {"task_id": task_id, "timeout_seconds": 60},
                    progress_callback=on_progress,
                )
            results.append(waited)
            assert task_of(waited)["state"] == "completed", waited.content
            results.append(await session.call_tool("get_task", {"task_id": task_id}))
            results.append(await session.call_tool("list_tasks", {}))
            # it reached the service marked sensitive (purged there once the task ended)
            assert views[0]["sensitive_values_stored"] == 1
            received = [e for e in task_of(waited)["events"] if e["type"] == "reply_received"]
            assert received[0]["payload"]["sensitive"] is True
            (secret_question,) = [
                p for p in person.asked if "value" in p.requested_schema["properties"]
            ]
            assert "sms_code" in json.dumps(secret_question.requested_schema)
            assert progress and all(code not in (m or "") for _, _, m in progress)
            for result in results:
                assert code not in result.model_dump_json()
            assert code not in stderr.read_text()

    run(body)
    for path in cli.home.rglob("*"):  # ledger (and its WAL), config, secret store, logs
        if path.is_file():
            assert code.encode() not in path.read_bytes(), path


def test_questions_answered_with_field_values(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    async def body() -> None:
        async with served(cli, svc_mcp, env={"SVC_MCP_PREAPPROVED_USD": "1.50"}) as (session, _):
            _, first = await submitted(session, "Book me a flight #questions")
            task_id = task_of(first)["id"]
            await advance(sandbox, 11)
            waited = await session.call_tool("wait_for_task", {"task_id": task_id})
            task = task_of(waited)
            assert task["state"] == "blocked_on_user"
            text = waited.content[0].text  # type: ignore[union-attr]
            assert "shipping_address, phone, seat_preference" in text
            wrong = await session.call_tool(
                "reply_to_task", {"task_id": task_id, "field_values": {"phone": "5550100"}}
            )
            assert error_of(wrong)["error"] == "field_values_mismatch"
            answered = await session.call_tool(
                "reply_to_task",
                {
                    "task_id": task_id,
                    "field_values": {
                        "shipping_address": "1 Main St",
                        "phone": "5550100",
                        "seat_preference": "window",
                    },
                },
            )
            assert task_of(answered)["state"] == "pending"

    run(body)


def test_decline_a_payment_ask(cli: Cli, sandbox: Sandbox, svc_mcp: list[str]) -> None:
    async def body() -> None:
        async with served(cli, svc_mcp, env={"SVC_MCP_PREAPPROVED_USD": "1.50"}) as (session, _):
            _, first = await submitted(session, "Buy the plane ticket #approval")
            task_id = task_of(first)["id"]
            await advance(sandbox, 11)
            waited = await session.call_tool("wait_for_task", {"task_id": task_id})
            assert task_of(waited)["info_request"]["payment_status"] == "pending_approval"
            assert "decline_payment" in waited.content[0].text  # type: ignore[union-attr]
            declined = await session.call_tool(
                "reply_to_task", {"task_id": task_id, "decline_payment": True}
            )
            task = task_of(declined)
            assert (task["state"], task["error"]) == ("failed", "payment_rejected")

    run(body)


def test_a_price_over_the_cap_is_refused_before_any_signature(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    person = Person(pay=True)

    async def body() -> None:
        async with served(cli, svc_mcp, person=person, env={"SVC_MAX_PRICE": "1.00"}) as (
            session,
            _,
        ):
            # the agent cannot raise the person's cap either
            rid, first = await submitted(session, "Too dear #complete", max_price_usd="5.00")
            error = error_of(first)
            assert error["error"] == "policy_refused" and error["exit_code"] == 5
            assert "above the limit 1.00 USD" in error["detail"]
            # the next step as the model can take it: no CLI flag (svc.next_step)
            assert error["hint"] == (  # only the setting that refused (issue 52)
                "nothing was signed or paid; change the limit with the person's max_price_usd "
                "setting (submit_task's max_price_usd can only lower it)"
            )
            assert sandbox.charges_for(rid) == []
            assert person.asked == []  # refused by the policy before the person was asked

    run(body)
    rows = ledger_rows(cli)
    assert len(rows) == 1 and rows[0]["has_proof"] is False
    assert sandbox.charges_for(rows[0]["request_id"]) == []
    spend = cli.ok("spend", "--json").json()
    assert spend["outstanding"] == [] and spend["paid_count"] == 0


def test_a_paid_call_needs_elicitation_or_a_pre_approval(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    async def body() -> None:
        async with served(cli, svc_mcp) as (session, _):  # this client declares no elicitation
            _, first = await submitted(session, "Nobody to ask #complete")
            error = error_of(first)
            assert error["error"] == "payment_not_approved" and error["exit_code"] == 5
            assert "mcp_preapproved_usd" in error["hint"]
        async with served(cli, svc_mcp, person=Person(pay=False)) as (session, _):
            _, declined = await submitted(session, "The person says no #complete")
            assert error_of(declined)["error"] == "payment_not_approved"
        async with served(cli, svc_mcp, env={"SVC_MCP_PREAPPROVED_USD": "1.50"}) as (session, _):
            rid, paid = await submitted(session, "Pre-approved price #complete")
            assert task_of(paid)["state"] == "pending"
            assert len(sandbox.charges_for(rid)) == 1

    run(body)
    rows = ledger_rows(cli)
    assert [r["has_proof"] for r in rows] == [True, False, False]  # newest first
    for row in rows[1:]:
        assert sandbox.charges_for(row["request_id"]) == []


def test_a_secret_from_the_model_is_refused_and_without_elicitation_the_person_is_sent_to_the_cli(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    async def body() -> None:
        async with served(cli, svc_mcp, env={"SVC_MCP_PREAPPROVED_USD": "1.50"}) as (session, _):
            _, first = await submitted(session, "Log in #2fa")
            task_id = task_of(first)["id"]
            await advance(sandbox, 11)
            waited = await session.call_tool("wait_for_task", {"task_id": task_id})
            assert task_of(waited)["state"] == "blocked_on_user"
            text = waited.content[0].text  # type: ignore[union-attr]
            assert f"svc reply {task_id} --field sms_code --sensitive --value-file -" in text
            for args in (
                {"field": "sms_code", "value": "123456"},
                {"field": "otp", "value": "123456", "sensitive": False},
                {"message": "123456"},
            ):
                refused = await session.call_tool("reply_to_task", {"task_id": task_id, **args})
                assert error_of(refused)["error"] == "secret_from_model", args
            asked = await session.call_tool(
                "reply_to_task", {"task_id": task_id, "field": "sms_code"}
            )
            assert error_of(asked)["error"] == "human_needed"
            assert "--sensitive" in error_of(asked)["hint"]
            assert sandbox.internals(task_id)["sensitive_values_stored"] == 0

    run(body)


BAD_CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("submit_task", {}, "invalid_arguments"),
    ("submit_task", {"task": "x" * 100_001, "email": "a@example.com"}, "invalid_arguments"),
    ("submit_task", {"task": "t", "email": "ab"}, "invalid_arguments"),
    ("submit_task", {"task": "t", "email": "not-an-address"}, "invalid_email"),
    ("submit_task", {"task": "t", "email": "a@example.com", "pay": "cash"}, "invalid_arguments"),
    (
        "submit_task",
        {"task": "t", "email": "a@example.com", "request_id": "short"},
        "invalid_arguments",
    ),
    (
        "submit_task",
        {"task": "t", "email": "a@example.com", "max_price_usd": "-1"},
        "invalid_arguments",
    ),
    ("submit_task", {"task": "t", "email": "a@example.com", "tip": 5}, "invalid_arguments"),
    ("get_task", {"task_id": 42}, "invalid_arguments"),
    ("get_task", {"task_id": "tsk_does_not_exist"}, "not_found"),
    ("get_task", {"task_id": "../../_sandbox/books"}, "invalid_task_id"),  # refused unsent
    ("wait_for_task", {"task_id": "t", "timeout_seconds": 0}, "invalid_arguments"),
    ("reply_to_task", {"task_id": "t"}, "usage_error"),
    ("reply_to_task", {"task_id": "t", "field": "f" * 65, "value": "v"}, "invalid_arguments"),
    (
        "reply_to_task",
        {"task_id": "t", "approve_payment": True, "decline_payment": True},
        "usage_error",
    ),
    ("quote", {"goal": ""}, "invalid_arguments"),
    ("quote", {"goal": "g", "budgetUsd": "1e9"}, "invalid_arguments"),
    ("spend", {"since": "yesterday"}, "invalid_arguments"),
    ("list_tasks", {"limit": 0}, "invalid_arguments"),
]


def test_every_tool_declares_its_output_schema_and_results_conform(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    """Issue 25.5: structured content comes with an outputSchema, which the official client
    checks on every result that is not an error (it raises on a mismatch)."""
    from jsonschema import Draft202012Validator

    async def body() -> None:
        async with served(cli, svc_mcp, env={"SVC_MCP_PREAPPROVED_USD": "1.50"}) as (session, _):
            tools = {t.name: t for t in (await session.list_tools()).tools}
            for tool in tools.values():
                assert tool.output_schema is not None, tool.name
                Draft202012Validator.check_schema(tool.output_schema)
            _, first = await submitted(session, "Schema check #complete")
            task_id = task_of(first)["id"]
            calls = [
                ("get_task", {"task_id": task_id}),
                ("wait_for_task", {"task_id": task_id, "timeout_seconds": 1}),
                ("quote", {"goal": "Book a table"}),
                ("guide", {"goal": "Book a table"}),
                ("list_tasks", {}),
                ("spend", {}),
            ]
            for name, args in calls:
                result = await session.call_tool(name, args)  # validated by the client
                assert not result.is_error, (name, result.content)
                Draft202012Validator(tools[name].output_schema).validate(result.structured_content)

    run(body)


def test_bad_arguments_are_tool_errors_and_the_server_lives_on(
    cli: Cli, svc_mcp: list[str]
) -> None:
    async def body() -> None:
        async with served(cli, svc_mcp) as (session, stderr):
            for name, args, code in BAD_CALLS:
                result = await session.call_tool(name, args)
                error = error_of(result)
                assert error["error"] == code, (name, args, error)
                assert result.content and "error" in result.content[0].text  # type: ignore[union-attr]
            assert len((await session.list_tools()).tools) == len(TOOLS)
            # An unknown tool is a protocol error, as the MCP spec asks (issue 25.5)
            with pytest.raises(MCPError) as raised:
                await session.call_tool("no_such_tool", {})
            assert raised.value.error.code == INVALID_PARAMS
            assert "unknown tool 'no_such_tool'" in raised.value.error.message
            listed = await session.call_tool("list_tasks", {"limit": 5})
            assert not listed.is_error
            assert "x" * 1000 not in stderr.read_text()

    run(body)


def _server_pid() -> int:
    """The `svc mcp` child of this process (the client spawns it)."""
    me = str(os.getpid())
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            stat = (proc / "stat").read_text()
            cmdline = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if stat.rsplit(")", 1)[1].split()[1] == me and b"mcp" in cmdline:
            return int(proc.name)
    raise AssertionError("svc mcp process not found")


def test_figures_get_task_latency_and_idle_memory(cli: Cli, sandbox: Sandbox) -> None:
    """The issue's figures: median get_task round trip against the sandbox, idle RSS."""
    figures: dict[str, float] = {}

    async def body() -> None:
        async with served(cli, [SVC, "mcp"], env={"SVC_MCP_PREAPPROVED_USD": "1.50"}) as (
            session,
            _,
        ):
            await anyio.sleep(1.0)
            status = Path(f"/proc/{_server_pid()}/status").read_text()
            rss_kb = int(next(x for x in status.splitlines() if x.startswith("VmRSS")).split()[1])
            figures["idle_rss_mib"] = rss_kb / 1024
            _, first = await submitted(session, "Measure me #slow")
            task_id = task_of(first)["id"]
            timings = []
            for _ in range(21):
                await anyio.sleep(0.15)  # past the loopback poll spacing: a real poll each time
                start = time.perf_counter()
                result = await session.call_tool("get_task", {"task_id": task_id})
                timings.append(time.perf_counter() - start)
                assert task_of(result)["id"] == task_id
                assert "as polled" not in result.content[0].text  # type: ignore[union-attr]
            figures["get_task_median_ms"] = statistics.median(timings[1:]) * 1000
            status = Path(f"/proc/{_server_pid()}/status").read_text()
            rss_kb = int(next(x for x in status.splitlines() if x.startswith("VmRSS")).split()[1])
            figures["rss_after_calls_mib"] = rss_kb / 1024

    run(body)
    print(f"\nsvc mcp figures: {json.dumps({k: round(v, 1) for k, v in figures.items()})}")
    assert figures["get_task_median_ms"] < 250
    assert figures["idle_rss_mib"] < 250


def test_a_fleet_runner_serves_the_fleets_tasks(
    cli: Cli, sandbox: Sandbox, pg_url: str, svc_mcp: list[str]
) -> None:
    """On a shared ledger there is no local file: the resources and list_tasks read the fleet's
    rows (before, a fleet runner always listed nothing)."""
    fleet = {"SVC_LEDGER_URL": pg_url, "SVC_RUNNER": "ci-1"}
    task = cli.ok("submit", "Fleet resource", "--email", unique_email(), "--json", env=fleet).json()

    async def body() -> None:
        async with served(cli, svc_mcp, env={**fleet, "SVC_RUNNER": "agent-1"}) as (session, _):
            listed = [str(r.uri) for r in (await session.list_resources()).resources]
            assert f"svc://tasks/{task['id']}" in listed
            tasks = await session.call_tool("list_tasks", {})
            assert task["id"] in str(tasks.structured_content)

    run(body)
