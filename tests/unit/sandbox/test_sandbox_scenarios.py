"""Each scenario tag, end to end over HTTP, on a sandbox clock the tests move by hand."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from svc_sandbox.scenarios import scenario_of
from svc_sandbox.state.clock import SandboxClock
from svc_sandbox.state.sandbox import SandboxState

TaskFactory = Any


@pytest.fixture
def state() -> SandboxState:
    """A sandbox whose clock moves only when a test advances it: on the real clock a test
    that advanced 19 of a task's 20 s failed when the worker stalled for a second between
    the advance and the poll (a loaded full run saw the task already completed)."""
    return SandboxState(SandboxClock(monotonic=lambda: 0.0))


def advance(client: TestClient, seconds: float) -> None:
    assert client.post("/_sandbox/clock", json={"advance_seconds": seconds}).status_code == 200


def poll(client: TestClient, task_id: str) -> dict[str, Any]:
    response = client.get(f"/svc/tasks/{task_id}")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def reply(client: TestClient, task_id: str, body: dict[str, Any]) -> Any:
    return client.post(f"/svc/tasks/{task_id}/reply", json=body)


def internals(client: TestClient, task_id: str) -> dict[str, Any]:
    body: dict[str, Any] = client.get(f"/_sandbox/tasks/{task_id}").json()
    return body


def types(task: dict[str, Any]) -> list[str]:
    return [event["type"] for event in task["events"]]


def when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


@pytest.mark.parametrize(
    ("text", "tag"),
    [
        ("plain task", "complete"),
        ("do it #fail now", "fail"),
        ("#approval-expire please", "approval-expire"),
        ("#approval", "approval"),
        ("#unknown then #2FA", "2fa"),
        ("#slow #fail", "slow"),
        ("Buy shoes #questions-secret", "questions-secret"),
        ("#questions #questions-secret", "questions"),
    ],
)
def test_scenario_tag_selection(text: str, tag: str) -> None:
    assert scenario_of(text) == tag


def test_default_scenario_completes_after_20s(client: TestClient, new_task: TaskFactory) -> None:
    task = new_task("Find a hotel")
    assert poll(client, task["id"])["state"] == "pending"
    advance(client, 19)
    assert poll(client, task["id"])["state"] == "pending"
    advance(client, 1)
    done = poll(client, task["id"])
    assert done["state"] == "completed"
    assert set(done["result"]) == {"output", "summary"}
    assert done["reason"]
    assert done["error"] is None
    assert when(done["completed_at"]) - when(done["created_at"]) == timedelta(seconds=20)
    assert done["max_budget_usd"] is None and done["webhook_url"] is None
    assert done["flow"] == "browser_task"
    created, finished = done["events"]
    assert created["type"] == "created"
    assert (created["from_state"], created["to_state"]) == (None, "pending")
    assert finished["type"] == "state_changed"
    assert (finished["from_state"], finished["to_state"]) == ("pending", "completed")
    assert set(finished) == {"id", "type", "from_state", "to_state", "payload", "created_at"}
    assert "info_request" not in done
    assert len(internals(client, task["id"])["poll_times"]) == 3


@pytest.mark.parametrize(
    ("tag", "final_state", "error"),
    [("#fail", "failed", "task_failed"), ("#cancel", "cancelled", None)],
)
def test_fail_and_cancel(
    client: TestClient, new_task: TaskFactory, tag: str, final_state: str, error: str | None
) -> None:
    task = new_task(f"Try this {tag}")
    advance(client, 20)
    final = poll(client, task["id"])
    assert final["state"] == final_state
    assert final["error"] == error
    assert final["completed_at"] is not None
    if final_state == "failed":
        assert final["reason"]
    reply_response = reply(client, task["id"], {"message": "hello"})
    assert reply_response.status_code == 409
    assert reply_response.json()["error"] == "conflict"


def test_slow_takes_ten_minutes(client: TestClient, new_task: TaskFactory) -> None:
    task = new_task("Slow one #slow")
    advance(client, 599)
    assert poll(client, task["id"])["state"] == "pending"
    advance(client, 1)
    assert poll(client, task["id"])["state"] == "completed"


def test_2fa_plain_ask_with_sensitive_code(client: TestClient, new_task: TaskFactory) -> None:
    task = new_task("Log into my bank #2fa")
    early = reply(client, task["id"], {"field": "sms_code", "value": "123456"})
    assert early.status_code == 409
    advance(client, 10)
    blocked = poll(client, task["id"])
    assert blocked["state"] == "blocked_on_user"
    assert "info_request" not in blocked
    asked = blocked["events"][-1]
    assert asked["type"] == "input_requested"
    assert asked["payload"] == {
        "field": "sms_code",
        "message": "Enter the 6-digit code we sent to your phone",
        "sensitive": True,
    }
    wrong_field = reply(client, task["id"], {"field": "otp", "value": "123456"})
    assert wrong_field.status_code == 422
    assert wrong_field.json()["detail"][0]["loc"] == ["body", "field"]
    assert reply(client, task["id"], {"field": "sms_code", "value": ""}).status_code == 422
    assert reply(client, task["id"], {}).status_code == 422
    answered = reply(
        client, task["id"], {"field": "sms_code", "value": "123456", "sensitive": True}
    )
    assert answered.status_code == 200
    assert answered.json()["state"] == "pending"
    assert "events" not in answered.json()
    assert internals(client, task["id"])["sensitive_values_stored"] == 1
    resumed = poll(client, task["id"])
    assert "123456" not in str(resumed)
    received = next(e for e in resumed["events"] if e["type"] == "reply_received")
    assert received["payload"]["value"] == "[redacted]"
    assert reply(client, task["id"], {"field": "sms_code", "value": "1"}).status_code == 409
    advance(client, 20)
    assert poll(client, task["id"])["state"] == "completed"
    view = internals(client, task["id"])
    assert view["sensitive_values_stored"] == 0  # purged when the task ended
    assert "123456" not in str(view)


def test_2fa_message_reply_resumes(client: TestClient, new_task: TaskFactory) -> None:
    task = new_task("#2fa")
    advance(client, 10)
    assert reply(client, task["id"], {"message": "the code is 654321"}).status_code == 200
    task_now = poll(client, task["id"])
    assert task_now["state"] == "pending"
    assert "654321" not in str(task_now)  # the ask was sensitive, so the message is too
    advance(client, 20)
    assert poll(client, task["id"])["state"] == "completed"


def test_reply_limits_use_the_validation_error_body(
    client: TestClient, new_task: TaskFactory
) -> None:
    task = new_task("#2fa")
    advance(client, 10)
    for body in ({"message": "x" * 4001}, {"field": "f" * 65}, {"value": "v" * 4001}):
        response = reply(client, task["id"], body)
        assert response.status_code == 422
        assert {"loc", "msg", "type"} <= set(response.json()["detail"][0])
    ignored_extra = reply(client, task["id"], {"message": "ok", "color": "blue"})
    assert ignored_extra.status_code == 200


QUESTION_ANSWERS = {
    "shipping_address": "1 Main St, Springfield",
    "phone": "+1 555 0100",
    "seat_preference": "aisle",
}


def test_questions_structured_ask(client: TestClient, new_task: TaskFactory) -> None:
    task = new_task("Buy a plane ticket #questions")
    advance(client, 10)
    blocked = poll(client, task["id"])
    assert blocked["state"] == "blocked_on_user"
    ask = blocked["info_request"]
    assert ask["requested_fields"] == ["shipping_address", "phone"]
    assert ask["questions"] == [
        {"key": "seat_preference", "question": "Window or aisle?", "options": ["window", "aisle"]}
    ]
    assert ask["note"]
    assert when(ask["expires_at"]) - when(ask["created_at"]) == timedelta(minutes=15)
    assert blocked["events"][-1]["type"] == "input_requested"

    url_id = task["id"]
    assert reply(client, url_id, {"message": "here you go"}).status_code == 422  # info required
    missing = {k: v for k, v in QUESTION_ANSWERS.items() if k != "phone"}
    assert reply(client, url_id, {"info": {"field_values": missing}}).status_code == 422
    extra = {**QUESTION_ANSWERS, "email": "x@y.z"}
    assert reply(client, url_id, {"info": {"field_values": extra}}).status_code == 422
    empty = {**QUESTION_ANSWERS, "phone": " "}
    response = reply(client, url_id, {"info": {"field_values": empty}})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "info", "field_values"]

    answered = reply(client, url_id, {"info": {"field_values": QUESTION_ANSWERS}})
    assert answered.status_code == 200
    body = answered.json()
    assert body["state"] == "pending"
    assert "info_request" not in body
    assert "Answer: seat_preference=aisle" in body["goal"]
    assert body["goal"].startswith("Buy a plane ticket #questions\n")
    advance(client, 20)
    done = poll(client, url_id)
    assert done["state"] == "completed"
    assert done["result"]["output"]["answers"] == QUESTION_ANSWERS


def test_sensitive_structured_answers_are_not_folded(
    client: TestClient, new_task: TaskFactory
) -> None:
    task = new_task("#questions")
    advance(client, 10)
    response = reply(
        client, task["id"], {"info": {"field_values": QUESTION_ANSWERS}, "sensitive": True}
    )
    assert response.status_code == 200
    assert "Answer:" not in response.json()["goal"]
    assert internals(client, task["id"])["sensitive_values_stored"] == 3
    advance(client, 20)
    poll(client, task["id"])
    assert internals(client, task["id"])["sensitive_values_stored"] == 0


def test_questions_secret_asks_for_an_address_and_a_pin(
    client: TestClient, new_task: TaskFactory
) -> None:
    """`#questions-secret`: a structured ask whose keys include a secret; answered as one
    sensitive reply, the PIN is kept apart and never folded into the goal."""
    task = new_task("Buy shoes #questions-secret")
    advance(client, 10)
    ask = poll(client, task["id"])["info_request"]
    assert ask["requested_fields"] == ["shipping_address", "card_pin"]
    assert ask["questions"] == [] and ask["note"]
    assert when(ask["expires_at"]) - when(ask["created_at"]) == timedelta(minutes=15)
    values = {"shipping_address": "1 Main St", "card_pin": "4321"}
    assert (
        reply(client, task["id"], {"info": {"field_values": {"card_pin": "4321"}}}).status_code
        == 422
    )
    answered = reply(client, task["id"], {"info": {"field_values": values}, "sensitive": True})
    assert answered.status_code == 200
    assert "4321" not in answered.text
    assert internals(client, task["id"])["sensitive_values_stored"] == 2
    advance(client, 20)
    done = poll(client, task["id"])
    assert done["state"] == "completed" and "4321" not in str(done)


def test_ask_expire(client: TestClient, new_task: TaskFactory) -> None:
    task = new_task("#ask-expire")
    advance(client, 10)
    ask = poll(client, task["id"])["info_request"]
    assert when(ask["expires_at"]) - when(ask["created_at"]) == timedelta(seconds=60)
    advance(client, 61)
    late = reply(client, task["id"], {"info": {"field_values": QUESTION_ANSWERS}})
    assert late.status_code == 410
    assert late.json()["error"] == "ask_expired"
    assert poll(client, task["id"])["state"] == "blocked_on_user"
    advance(client, 300)
    failed = poll(client, task["id"])
    assert failed["state"] == "failed"
    assert failed["error"] == "ask_expired"
    assert failed["reason"]


PAYMENT_REPLY = {"info": {"field_values": {}}}


def test_approval_is_reconciled_when_polled(client: TestClient, new_task: TaskFactory) -> None:
    task = new_task("Book the flight #approval")
    advance(client, 10)
    blocked = poll(client, task["id"])
    ask = blocked["info_request"]
    assert ask["amount_usd"] == 42.5
    assert ask["merchant_name"] == "Example Air"
    assert ask["payment_status"] == "pending_approval"
    assert ask["requested_fields"] == [] and ask["questions"] == []
    assert when(ask["expires_at"]) - when(ask["created_at"]) == timedelta(minutes=15)
    approve_now = reply(
        client, task["id"], {"info": {"field_values": {}, "payment_approved": True}}
    )
    assert approve_now.status_code == 409
    assert approve_now.json()["error"] == "payment_state_mismatch"
    assert reply(client, task["id"], PAYMENT_REPLY).status_code == 409
    advance(client, 100)  # approved in the app at +40 s, but nobody polled yet
    assert internals(client, task["id"])["task"]["state"] == "blocked_on_user"
    resumed = poll(client, task["id"])  # this poll reconciles the approval
    assert resumed["state"] == "pending"
    assert resumed["events"][-1]["to_state"] == "pending"
    advance(client, 19)
    assert poll(client, task["id"])["state"] == "pending"
    advance(client, 1)
    assert poll(client, task["id"])["state"] == "completed"


def test_decline_never_auto_approves_and_can_be_rejected(
    client: TestClient, new_task: TaskFactory
) -> None:
    task = new_task("#decline")
    advance(client, 300)
    assert poll(client, task["id"])["info_request"]["payment_status"] == "pending_approval"
    rejected = reply(client, task["id"], {"info": {"field_values": {}, "payment_approved": False}})
    assert rejected.status_code == 200
    body = rejected.json()
    assert body["state"] == "failed"
    assert body["error"] == "payment_rejected"
    assert body["reason"]
    assert body["completed_at"] is not None


def test_decline_approved_through_the_admin_app(client: TestClient, new_task: TaskFactory) -> None:
    task = new_task("#decline")
    assert client.post(f"/_sandbox/tasks/{task['id']}/approve").status_code == 409  # no ask yet
    advance(client, 10)
    assert client.post(f"/_sandbox/tasks/{task['id']}/approve").status_code == 200
    assert poll(client, task["id"])["state"] == "pending"
    advance(client, 20)
    assert poll(client, task["id"])["state"] == "completed"
    assert client.post("/_sandbox/tasks/task_nope/approve").status_code == 404


def test_approval_expire_and_resend(client: TestClient, new_task: TaskFactory) -> None:
    task = new_task("#approval-expire")
    advance(client, 24)
    assert poll(client, task["id"])["info_request"]["payment_status"] == "pending_approval"
    advance(client, 1)
    expired = poll(client, task["id"])
    assert expired["state"] == "blocked_on_user"
    old_expiry = expired["info_request"]["expires_at"]
    assert expired["info_request"]["payment_status"] == "approval_expired"
    resend = {"info": {"field_values": {}, "payment_approved": True}}
    response = reply(client, task["id"], resend)
    assert response.status_code == 200
    body = response.json()
    assert body["state"] == "blocked_on_user"
    assert body["info_request"]["payment_status"] == "pending_approval"
    assert when(body["info_request"]["expires_at"]) > when(old_expiry)
    assert "approval_resent" in types(poll(client, task["id"]))
    again = reply(client, task["id"], resend)  # not expired any more
    assert again.status_code == 409
    assert again.json()["error"] == "payment_state_mismatch"
    advance(client, 20)  # the user approves 20 s after the resend
    assert poll(client, task["id"])["state"] == "pending"
    advance(client, 20)
    assert poll(client, task["id"])["state"] == "completed"


def test_unknown_task_is_404(client: TestClient) -> None:
    for response in (
        client.get("/svc/tasks/task_missing"),
        client.post("/svc/tasks/task_missing/reply", json={"message": "hi"}),
        client.get("/_sandbox/tasks/task_missing"),
    ):
        assert response.status_code == 404
        assert response.json()["error"] == "not_found"
        assert response.json()["detail"]


def test_reset_forgets_everything(client: TestClient, new_task: TaskFactory) -> None:
    task = new_task("to be forgotten")
    client.post("/_sandbox/config", json={"price_atomic": 1})
    advance(client, 100)
    assert client.post("/_sandbox/reset").status_code == 200
    assert client.get(f"/svc/tasks/{task['id']}").status_code == 404
    assert client.get("/_sandbox/books").json()["charges"] == []
    assert client.get("/_sandbox/config").json()["price_atomic"] == 1_500_000
    assert abs(client.get("/_sandbox/clock").json()["offset_seconds"]) < 5
