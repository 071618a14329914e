"""How a service task reads to an MCP Tasks client (svc/mcp/task_states.py): the service's
states as the extension's five, each ask as the form the person fills (a secret field marked
and answered as a `Secret`), a client without forms never `input_required`; and the
extension attached to `svc mcp`'s server the way the SDK's `MCPServer` attaches one."""

from __future__ import annotations

from typing import Any

import pytest
from tests.inproc import task_doc

from svc.api.models import TaskDetail
from svc.mcp.task_states import (
    COMPLETED,
    INPUT_REQUIRED,
    WORKING,
    decide,
    form_for,
)
from svc.replies import Approve, Decline, Fields, Message, Secret, Value

SEAT = {"key": "seat", "question": "Window or aisle?", "options": ["window", "aisle"]}


def plain(event_id: str = "e1", **payload: Any) -> TaskDetail:
    event = {"id": event_id, "type": "input_requested", "created_at": "x", "payload": payload}
    return TaskDetail.model_validate(task_doc(state="blocked_on_user", events=[event]))


def structured(fields: list[str], questions: list[Any] | None = None, **ask: Any) -> TaskDetail:
    info = {"requested_fields": fields, "questions": questions or [], **ask}
    return TaskDetail.model_validate(task_doc(state="blocked_on_user", info_request=info))


def in_state(state: str, **changes: Any) -> TaskDetail:
    return TaskDetail.model_validate(task_doc(state=state, **changes))


@pytest.mark.parametrize("state", ["pending", "running", "something_new"])
def test_a_task_not_final_and_not_waiting_is_working_in_todays_words(state: str) -> None:
    decision = decide(in_state(state), can_ask=True)
    assert (decision.status, decision.form) == (WORKING, None)
    assert decision.message == f"Task task_1 is {state}."


def test_a_completed_task_is_completed_and_a_failed_or_cancelled_one_an_error_result() -> None:
    done = decide(in_state("completed"), can_ask=True)
    assert (done.status, done.is_error) == (COMPLETED, False)
    for state in ("failed", "cancelled"):
        ended = decide(in_state(state, reason="no seats left"), can_ask=True)
        # The extension keeps `failed` for JSON-RPC errors: a tool error is a completed task.
        assert (ended.status, ended.is_error) == (COMPLETED, True)
        assert 'The service says: "no seats left"' in ended.message


def test_a_secret_ask_is_input_required_with_a_secret_form_answered_as_a_secret() -> None:
    task = plain(field="sms_code", message="Enter the code", sensitive=True)
    decision = decide(task, can_ask=True)
    assert decision.status == INPUT_REQUIRED and decision.form is not None
    form = decision.form
    request = form.elicitation()
    assert request["method"] == "elicitation/create" and request["params"]["mode"] == "form"
    assert "AI agent never sees it" in request["params"]["message"]
    assert request["params"]["requestedSchema"]["properties"]["value"]["title"] == "sms_code"
    answer = form.answer({"value": "424242"})
    assert answer == Secret("424242", "sms_code") and form.secrets(answer) == ["424242"]
    for nothing in (None, {}, {"value": ""}, {"value": "  "}, {"value": 7}):
        assert form.answer(nothing) is None, nothing
    assert form.what == "sms_code"


def test_a_client_that_cannot_show_forms_gets_todays_words_never_input_required() -> None:
    task = plain(field="sms_code", message="Enter the code", sensitive=True)
    decision = decide(task, can_ask=False)
    assert (decision.status, decision.form, decision.is_error) == (COMPLETED, None, False)
    assert "svc reply" in decision.message and "in a terminal" in decision.message


def test_plain_asks_that_are_not_secret_take_a_value_or_a_message() -> None:
    valued = form_for(plain(field="city", message="Which city?"))
    assert valued is not None and valued.answer({"value": "Paris"}) == Value("Paris", "city")
    assert valued.secrets(Value("Paris", "city")) == []
    said = form_for(plain(message="Anything to add?"))
    assert said is not None and said.answer({"message": "no"}) == Message("no")
    assert '"Anything to add?"' in said.message  # the service's words, quoted


def test_a_structured_ask_is_one_form_its_secret_keys_marked() -> None:
    form = form_for(structured(["address", "card_pin"], [SEAT]))
    assert form is not None
    props = form.schema["properties"]
    assert list(props) == ["address", "card_pin", "seat"] == form.schema["required"]
    assert props["seat"]["enum"] == ["window", "aisle"]
    assert "secret" in props["card_pin"]["description"] and "description" not in props["address"]
    content = {"address": "1 Main St", "card_pin": "9911", "seat": "aisle"}
    answer = form.answer(content)
    assert answer == Fields(content, sensitive=True) and form.secrets(answer) == ["9911"]
    assert form.answer({"address": "1 Main St"}) is None  # every key, or nothing


def test_a_payment_ask_is_approved_or_declined_by_the_person() -> None:
    task = structured([], payment_status="pending_approval", amount_usd="42.50")
    form = form_for(task)
    assert form is not None and form.schema["properties"]["payment"]["enum"] == [
        "approve",
        "decline",
    ]
    assert form.answer({"payment": "approve"}) == Approve({})
    assert form.answer({"payment": "decline"}) == Decline({})
    assert form.answer({"payment": "maybe"}) is None


def test_a_new_ask_of_the_same_task_is_another_question() -> None:
    first = form_for(plain("e1", field="sms_code", sensitive=True))
    again = form_for(plain("e1", field="sms_code", sensitive=True))
    later = form_for(plain("e2", field="sms_code", sensitive=True))
    assert first is not None and again is not None and later is not None
    assert first.ask_id == again.ask_id != later.ask_id


def test_the_extension_is_attached_as_the_sdk_attaches_one(tmp_path: Any) -> None:
    """The adapter mirrors the SDK's private `MCPServer._apply_extension`: if a later SDK
    changes the low-level surface it uses, this fails first."""
    from svc.mcp.server import SvcServer
    from svc.mcp.tasks import TASKS, attach
    from svc.mcp.versions import SERVED

    class Pool:
        class settings:  # what SvcServer reads of a pool
            @staticmethod
            def min_poll_interval() -> float:
                return 0.1

    from mcp.server.lowlevel import Server

    handlers = SvcServer(Pool())  # type: ignore[arg-type]
    server: Server[Any] = Server("probe", on_call_tool=handlers.call_tool)
    attach(server, handlers, lambda name, args: None)
    assert server.extensions == {TASKS: {}}  # exactly {}: the TypeScript client's demand
    for method in ("tasks/get", "tasks/update", "tasks/cancel", "tools/call"):
        assert server.get_request_handler(method) is not None, method
    assert "2026-07-28" in SERVED
