"""A structured ask with a secret key, answered over MCP (issue 31.2): the model gives the
plain keys, the person types the secret ones, one reply carries all of them.

`#questions-secret` asks for `shipping_address` and `card_pin`. Under 2025-11-25 the person is
asked by elicitation within the call; under 2026-07-28 by input-required rounds whose sealed
state keeps each answer until all are in. The PIN reaches the service and nothing else: no
tool result, progress message, log line or file. A tampered round and a client that cannot
ask the person both leave the task unanswered.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.client.session import ClientRequestContext
from mcp.shared.exceptions import MCPError
from tests.conftest import Cli, Sandbox, _base_env, unique_email
from tests.e2e.test_mcp import Person, advance, error_of, run, served, task_of
from tests.e2e.test_mcp_rounds import modern
from tests.hostile_answers import AnswersPeer

pytestmark = pytest.mark.e2e

ADDRESS = "1 Main St, Springfield"
TASK = "Buy the shoes #questions-secret"


class Typist(Person):
    """A person who types a different secret for each field the form names."""

    def __init__(self, values: dict[str, str]) -> None:
        super().__init__(pay=True)
        self.values = values
        self.fields: list[str] = []

    async def __call__(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        assert isinstance(params, types.ElicitRequestFormParams)
        props = params.requested_schema["properties"]
        if "pay" in props:
            return await super().__call__(context, params)
        self.asked.append(params)
        field = str(props["value"]["title"])
        self.fields.append(field)
        self.answered.set()
        return types.ElicitResult(action="accept", content={"value": self.values[field]})


def _pin() -> str:
    return f"{uuid.uuid4().int % 10**6:06d}"


async def _blocked_task(session: Any, sandbox: Sandbox) -> str:
    """A paid `#questions-secret` task, now asking (the sandbox asks 10 s after creation)."""
    created = await session.call_tool("submit_task", {"task": TASK, "email": unique_email()})
    task_id = str(task_of(created)["id"])
    await advance(sandbox, 11)
    waited = await session.call_tool("get_task", {"task_id": task_id})
    assert task_of(waited)["state"] == "blocked_on_user"
    text = waited.content[0].text  # type: ignore[union-attr]
    assert "card_pin" in text and "leave them out" in text.lower(), text  # the model is told how
    return task_id


async def _finish(session: Any, sandbox: Sandbox, task_id: str, seen: list[str]) -> None:
    progress: list[str] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append(message or "")

    await advance(sandbox, 25)
    await anyio.sleep(0.3)  # past the loopback poll spacing
    done = await session.call_tool(
        "wait_for_task", {"task_id": task_id, "timeout_seconds": 10}, progress_callback=on_progress
    )
    assert task_of(done)["state"] == "completed", done.content
    seen += [done.model_dump_json(), *progress]


def _nowhere(pin: str, seen: list[str], home: Path) -> None:
    assert all(pin not in text for text in seen), [t for t in seen if pin in t][:1]
    for path in home.rglob("*"):  # ledger, config, secret store, logs, the server's stderr
        if path.is_file():
            assert pin.encode() not in path.read_bytes(), path


def _answered_as_secret(sandbox: Sandbox, task_id: str) -> None:
    internals = sandbox.internals(task_id)
    received = [e for e in internals["task"]["events"] if e["type"] == "reply_received"]
    assert len(received) == 1 and received[0]["payload"]["sensitive"] is True, received
    assert set(received[0]["payload"]["field_values"]) == {"shipping_address", "card_pin"}


def test_2025_the_person_types_the_pin_by_elicitation(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    pin = _pin()
    person = Typist({"card_pin": pin})
    seen: list[str] = []
    box: dict[str, str] = {}

    async def body() -> None:
        async with served(cli, svc_mcp, person=person) as (session, stderr):
            task_id = box["id"] = await _blocked_task(session, sandbox)
            sent = await session.call_tool(
                "reply_to_task",
                {"task_id": task_id, "field_values": {"shipping_address": ADDRESS}},
            )
            assert task_of(sent)["state"] == "pending", sent.content
            assert person.fields == ["card_pin"]
            seen.append(sent.model_dump_json())
            await anyio.to_thread.run_sync(_answered_as_secret, sandbox, task_id)
            await _finish(session, sandbox, task_id, seen)
            seen.append(stderr.read_text())

    run(body)
    _nowhere(pin, seen, cli.home)


def test_2025_a_secret_named_with_no_value_is_asked_too(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    pin = _pin()
    person = Typist({"card_pin": pin})

    async def body() -> None:
        async with served(cli, svc_mcp, person=person) as (session, _):
            task_id = await _blocked_task(session, sandbox)
            sent = await session.call_tool(
                "reply_to_task",
                {"task_id": task_id, "field_values": {"shipping_address": ADDRESS, "card_pin": ""}},
            )
            assert task_of(sent)["state"] == "pending", sent.content
            assert person.fields == ["card_pin"]

    run(body)


def test_2026_the_person_types_the_pin_in_a_round(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    pin = _pin()
    person = Typist({"card_pin": pin})
    seen: list[str] = []

    async def body() -> None:
        async with modern(cli, svc_mcp, person=person) as (client, stderr):
            task_id = await _blocked_task(client, sandbox)
            sent = await client.call_tool(
                "reply_to_task",
                {"task_id": task_id, "field_values": {"shipping_address": ADDRESS}},
            )
            assert task_of(sent)["state"] == "pending", sent.content
            assert person.fields == ["card_pin"]
            seen.append(sent.model_dump_json())
            await anyio.to_thread.run_sync(_answered_as_secret, sandbox, task_id)
            await _finish(client, sandbox, task_id, seen)
            seen.append(stderr.read_text())

    run(body)
    _nowhere(pin, seen, cli.home)


def test_2026_a_tampered_round_is_refused_and_nothing_is_sent(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    box: dict[str, str] = {}

    async def body() -> None:
        async with modern(cli, svc_mcp, person=Typist({"card_pin": _pin()})) as (client, _):
            task_id = box["id"] = await _blocked_task(client, sandbox)
            args = {"task_id": task_id, "field_values": {"shipping_address": ADDRESS}}
            first = await client.session.call_tool("reply_to_task", args, allow_input_required=True)
            assert isinstance(first, types.InputRequiredResult), first
            state = first.request_state
            assert state is not None
            flipped = state[:-2] + ("A" if state[-2] != "A" else "B") + state[-1]
            answer = {"person": types.ElicitResult(action="accept", content={"value": "123456"})}
            for bad in (flipped, json.dumps({"v": 1, "about": {"kind": "secret"}, "nonce": "x"})):
                with pytest.raises(MCPError) as caught:
                    await client.session.call_tool(
                        "reply_to_task",
                        args,
                        input_responses=answer,
                        request_state=bad,
                        allow_input_required=True,
                    )
                assert caught.value.error.code == types.INVALID_PARAMS

    run(body)
    internals = sandbox.internals(box["id"])
    assert internals["task"]["state"] == "blocked_on_user"
    assert not [e for e in internals["task"]["events"] if e["type"] == "reply_received"]


def test_a_client_that_cannot_ask_the_person_is_refused_with_nothing_sent(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    box: dict[str, str] = {}

    async def body() -> None:
        # Paid with the profile's pre-approval, as a client with no form would have to.
        async with served(cli, svc_mcp, env={"SVC_MCP_PREAPPROVED_USD": "1.50"}) as (session, _):
            created = await session.call_tool(
                "submit_task", {"task": TASK, "email": unique_email()}
            )
            task_id = box["id"] = str(task_of(created)["id"])
            await advance(sandbox, 11)
            waited = await session.call_tool("get_task", {"task_id": task_id})
            text = waited.content[0].text  # type: ignore[union-attr]
            assert f"svc reply {task_id}" in text, text
            sent = await session.call_tool(
                "reply_to_task",
                {"task_id": task_id, "field_values": {"shipping_address": ADDRESS}},
            )
            error = error_of(sent)
            assert error["error"] == "human_needed", error
            assert "cannot ask the person" in error["detail"] and "nothing was sent" in (
                error["detail"] + " " + (error.get("hint") or "")
            )

    run(body)
    internals = sandbox.internals(box["id"])
    assert internals["task"]["state"] == "blocked_on_user"


def test_a_pin_from_the_model_stays_refused(cli: Cli, sandbox: Sandbox, svc_mcp: list[str]) -> None:
    box: dict[str, str] = {}

    async def body() -> None:
        async with served(cli, svc_mcp, person=Typist({"card_pin": _pin()})) as (session, _):
            task_id = box["id"] = await _blocked_task(session, sandbox)
            sent = await session.call_tool(
                "reply_to_task",
                {
                    "task_id": task_id,
                    "field_values": {"shipping_address": ADDRESS, "card_pin": "1"},
                },
            )
            assert error_of(sent)["error"] == "secret_from_model"

    run(body)
    assert sandbox.internals(box["id"])["task"]["state"] == "blocked_on_user"


def test_2026_several_secrets_come_one_round_after_another_sealed(
    tmp_path: Path, answers_peer: AnswersPeer, svc_mcp: list[str]
) -> None:
    """Two secret keys: two rounds, the first answer kept sealed in the second round's state;
    one reply carries all three values, and none comes back in a later answer."""
    pin, password = _pin(), f"pw-{uuid.uuid4().hex[:12]}"
    answers_peer.config.fold_replies = True
    answers_peer.config.state = "blocked_on_user"
    answers_peer.config.info_request = {
        "requested_fields": ["shipping_address", "card_pin", "password"],
        "questions": [],
    }
    home = tmp_path / "home"
    home.mkdir()
    cli = Cli(home, {**_base_env(home), "SVC_BASE_URL": answers_peer.url})
    args = {"task_id": "task_mine", "field_values": {"shipping_address": ADDRESS}}
    seen: list[str] = []

    def typed(value: str) -> dict[str, types.ElicitResult]:
        return {"person": types.ElicitResult(action="accept", content={"value": value})}

    async def body() -> None:
        async with modern(cli, svc_mcp, person=Typist({})) as (client, stderr):
            call = client.session.call_tool
            first = await call("reply_to_task", args, allow_input_required=True)
            assert isinstance(first, types.InputRequiredResult), first
            second = await call(
                "reply_to_task",
                args,
                input_responses=typed(pin),
                request_state=first.request_state,
                allow_input_required=True,
            )
            assert isinstance(second, types.InputRequiredResult), second
            assert answers_peer.sent("POST") == []  # nothing sent until all are in
            assert second.request_state and pin not in second.request_state  # sealed
            question = second.input_requests["person"]
            assert isinstance(question, types.ElicitRequest)
            assert "password" in json.dumps(question.params.requested_schema)
            done = await call(
                "reply_to_task",
                args,
                input_responses=typed(password),
                request_state=second.request_state,
                allow_input_required=True,
            )
            assert isinstance(done, types.CallToolResult) and not done.is_error, done
            assert sorted(answers_peer.folded) == sorted([ADDRESS, pin, password])
            seen.append(done.model_dump_json())
            await anyio.sleep(0.3)
            later = await client.call_tool("get_task", {"task_id": "task_mine"})
            seen.append(later.model_dump_json())
            seen.append(stderr.read_text())

    run(body)
    for secret in (pin, password):
        _nowhere(secret, seen, home)
