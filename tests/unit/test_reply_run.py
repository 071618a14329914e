"""`svc reply` in-process: `run(ReplyOptions, AppContext)` against the loopback sandbox, with no
`svc` subprocess (issue 17.1), and the form driven by a scripted person in place of the
terminal. The e2e tests (tests/e2e/test_reply_form.py) cover the same paths on a real pty.

The person's side is checked on what the form *said*: a secret never appears in it (the review
shows `(hidden)`), and hostile server text (note, options) arrives inert.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import Sandbox, home_with_wallet, unique_email
from tests.inproc import captured, isolate_home, task_doc

from svc.api.answers import Task
from svc.commands.reply import ReplyOptions, run
from svc.commands.submit import SubmitOptions
from svc.commands.submit import run as submit
from svc.context import AppContext
from svc.errors import Conflict, ExitCode, UsageError
from svc.ui import prompts
from svc.ui.output import Output
from svc.ui.reply_form import ReplyCancelled

ESC_BEL_BIDI = ("\x1b", "\x07", "\x9b", "\u202e", "\u2066", "\x00", "\x08")


@pytest.fixture
def home(tmp_path: Path, wallet_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return isolate_home(home_with_wallet(tmp_path, wallet_home), monkeypatch, person=True)


class Person:
    """Answers the form's prompts from a script, and keeps everything the form said."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *answers: str) -> None:
        self.answers = list(answers)
        self.screen: list[str] = []
        monkeypatch.setattr(prompts, "ask_text", self._answer)
        monkeypatch.setattr(prompts, "ask_hidden", self._answer)
        monkeypatch.setattr(prompts, "say", self.screen.append)

    def _answer(self, label: str, default: str | None = None) -> str:
        self.screen.append(f"{label}: ")  # the prompt, never the answer (as on a terminal)
        if not self.answers:
            raise AssertionError(f"the form asked more than scripted: {label!r}")
        return self.answers.pop(0)

    @property
    def text(self) -> str:
        return "\n".join(self.screen)


class Sent:
    """The replies that left the client (a spy on the task client's reply)."""

    def __init__(self, app: AppContext, monkeypatch: pytest.MonkeyPatch) -> None:
        self.bodies: list[dict[str, Any]] = []
        real = app.tasks.reply

        def spy(task_id: str, body: dict[str, Any], **kwargs: Any) -> Task:
            self.bodies.append(body)
            return real(task_id, body, **kwargs)

        monkeypatch.setattr(app.tasks, "reply", spy)


def context(sandbox: Sandbox, *, person: bool = False) -> tuple[AppContext, io.StringIO]:
    app, out, _ = captured(sandbox.url, person=person)
    return app, out


@pytest.fixture
def blocked(sandbox: Sandbox, home: Path) -> Iterator[Any]:
    """A function: a paid task with `tag`, blocked on its user (the sandbox asks at 10 s)."""
    made: list[AppContext] = []

    def make(tag: str) -> str:
        app, out = context(sandbox)
        made.append(app)
        assert submit(SubmitOptions(text=f"In process {tag}", email=unique_email()), app) == 0
        task_id = str(json.loads(out.getvalue())["id"])
        sandbox.advance(11)
        return task_id

    yield make
    for app in made:
        app.close()


SEAT = {"shipping_address": "1 Main St", "phone": "5550100"}


def test_run_sends_the_checked_field_values(
    sandbox: Sandbox, blocked: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    task_id = blocked("#questions")
    app, out = context(sandbox)
    sent = Sent(app, monkeypatch)
    opts = ReplyOptions(task_id, sets={**SEAT, "seat_preference": "window"})
    assert run(opts, app) == 0
    app.close()
    assert [b["info"] for b in sent.bodies] == [
        {"field_values": {**SEAT, "seat_preference": "window"}}
    ]
    assert json.loads(out.getvalue())["state"] == "pending"


def test_run_refuses_a_set_outside_the_options_and_sends_nothing(
    sandbox: Sandbox, blocked: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    task_id = blocked("#questions")
    app, _ = context(sandbox)
    sent = Sent(app, monkeypatch)
    with pytest.raises(UsageError, match="not one of the options the question offers"):
        run(ReplyOptions(task_id, sets={**SEAT, "seat_preference": "middle"}), app)
    app.close()
    assert sent.bodies == []


def test_run_with_no_answer_and_prompting_off_is_exit_2(sandbox: Sandbox, blocked: Any) -> None:
    task_id = blocked("#questions")
    app, _ = context(sandbox)
    with pytest.raises(UsageError) as caught:
        run(ReplyOptions(task_id), app)
    app.close()
    assert caught.value.exit_code == ExitCode.USAGE and "prompting is off" in caught.value.message


def test_the_form_takes_a_number_lets_one_answer_be_edited_and_sends_after_the_review(
    sandbox: Sandbox, blocked: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    task_id = blocked("#questions")
    app, _ = context(sandbox, person=True)
    sent = Sent(app, monkeypatch)
    # address, phone, "2" (aisle by its number), then at the review: edit the 3rd -> "1", send
    person = Person(monkeypatch, "1 Main St", "5550100", "2", "e", "3", "1", "")
    assert run(ReplyOptions(task_id), app) == 0
    app.close()
    assert [b["info"] for b in sent.bodies] == [
        {"field_values": {**SEAT, "seat_preference": "window"}}
    ]
    assert "  1) window" in person.screen and "  2) aisle" in person.screen
    assert "  3) seat_preference: aisle" in person.screen  # the first review
    assert "  3) seat_preference: window" in person.screen  # the review after the edit
    assert "We need a few details to finish your booking" in person.text  # the note, first


def test_cancelling_at_the_review_sends_nothing_and_is_exit_2(
    sandbox: Sandbox, blocked: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    task_id = blocked("#questions")
    app, _ = context(sandbox, person=True)
    sent = Sent(app, monkeypatch)
    Person(monkeypatch, "1 Main St", "5550100", "window", "n")
    with pytest.raises(ReplyCancelled) as caught:
        run(ReplyOptions(task_id), app)
    assert caught.value.exit_code == ExitCode.USAGE and caught.value.code == "cancelled"
    assert sent.bodies == []
    assert app.tasks.poll(task_id).state == "blocked_on_user"
    app.close()


def test_a_secret_is_hidden_in_the_review_and_never_said(
    sandbox: Sandbox, blocked: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    task_id = blocked("#2fa")
    app, out = context(sandbox, person=True)
    sent = Sent(app, monkeypatch)
    person = Person(monkeypatch, "", "314159", "")  # empty: asked again; the code; send
    assert run(ReplyOptions(task_id), app) == 0
    app.close()
    assert sent.bodies == [{"field": "sms_code", "value": "314159", "sensitive": True}]
    assert "  1) sms_code: (hidden)" in person.screen
    assert "a value is required" in person.screen
    assert "314159" not in person.text + out.getvalue()


def test_keeping_a_payment_sends_nothing_and_reports_it(
    sandbox: Sandbox, blocked: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    task_id = blocked("#approval")
    app, out = context(sandbox, person=True)
    sent = Sent(app, monkeypatch)
    person = Person(monkeypatch, "")  # Enter: keep it for the approval app (no review)
    assert run(ReplyOptions(task_id), app) == 0
    app.close()
    assert sent.bodies == []
    assert json.loads(out.getvalue())["outcome"] == "left_to_approval_app"
    assert "Payment: 42.50 USD to Example Air" in person.screen
    # Issue 30.11: the words `svc watch` asks with; never a `(Y/n)` that reads as "approve".
    assert "Enter: leave it to the approval app, d: decline: " in person.screen
    assert "Keep the payment" not in person.screen and "(Y/n)" not in person.screen


# --- hostile server text, without the sandbox (its #hostile keeps options plain) -------------

HOSTILE = "\x1b[2J\x1b]0;pwned\x07 \u202egnp.exe \x9b31m bell\x07 nul\x00"


class FakeTasks:
    def __init__(self, task: dict[str, Any]) -> None:
        self.task = task
        self.sent: list[dict[str, Any]] = []

    def poll(self, task_id: str, auth: object = None) -> Task:
        return Task(self.task)

    def reply(self, task_id: str, body: dict[str, Any], auth: object = None) -> Task:
        self.sent.append(body)
        return Task({**self.task, "state": "pending", "info_request": None})


class FakeApp:
    """Only what `run` uses: the task client, output, the no-input setting, no ledger."""

    def __init__(self, task: dict[str, Any], *, no_input: bool) -> None:
        self.tasks = FakeTasks(task)
        self.out, self.err = io.StringIO(), io.StringIO()
        self.output = Output(json_mode=True, stdout=self.out, stderr=self.err)
        self.settings = type("S", (), {"no_input": no_input})()

    # What engines.auth and engines.task_state read: no credential, no ledger, and a policy
    # that is never asked (the fake tasks never answer 402).
    bearer = None
    secrets = None
    task_states_lost = False

    def policy(self, **limits: object) -> None:
        return None

    def has_ledger(self) -> bool:
        return False


def hostile_task() -> dict[str, Any]:
    return task_doc(
        state="blocked_on_user",
        info_request={
            "note": f"Please answer {HOSTILE}",
            "requested_fields": ["phone"],
            "questions": [
                {"key": "seat", "question": f"Seat? {HOSTILE}", "options": ["window", HOSTILE]}
            ],
        },
        events=[],
    )


def test_hostile_note_question_and_options_stay_inert_in_the_form_and_review(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = FakeApp(hostile_task(), no_input=False)
    person = Person(monkeypatch, "5550100", "2", "")  # the hostile option, by its number
    assert run(ReplyOptions("task_1"), app) == 0  # type: ignore[arg-type]
    bad = [c for c in ESC_BEL_BIDI if c in person.text]
    assert not bad, bad
    assert "Please answer" in person.text and "gnp.exe" in person.text  # shown, made inert
    (body,) = app.tasks.sent
    assert "\x1b" not in json.dumps(body)  # the chosen option is the cleaned text shown


def test_a_hostile_set_value_is_refused_inertly(monkeypatch: pytest.MonkeyPatch) -> None:
    app = FakeApp(hostile_task(), no_input=True)
    with pytest.raises(UsageError) as caught:
        run(ReplyOptions("task_1", sets={"phone": "1", "seat": f"middle{HOSTILE}"}), app)  # type: ignore[arg-type]
    assert not [c for c in ESC_BEL_BIDI if c in caught.value.message]
    assert app.tasks.sent == []


def test_a_task_that_no_longer_waits_is_a_conflict_and_nothing_is_sent() -> None:
    task = {**hostile_task(), "state": "completed", "info_request": None}
    app = FakeApp(task, no_input=True)
    with pytest.raises(Conflict):
        run(ReplyOptions("task_1", message="hi"), app)  # type: ignore[arg-type]
    assert app.tasks.sent == []


def payment_task(status: str, fields: list[str]) -> dict[str, Any]:
    task = hostile_task()
    task["info_request"] = {
        "requested_fields": fields,
        "questions": [],
        "amount_usd": 1.5,
        "merchant_name": "Example Air",
        "payment_status": status,
    }
    return task


def test_an_expired_approval_is_sent_again_on_one_yes_without_a_review(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = FakeApp(payment_task("approval_expired", []), no_input=False)
    person = Person(monkeypatch, "y")
    assert run(ReplyOptions("task_1"), app) == 0  # type: ignore[arg-type]
    assert [b["info"] for b in app.tasks.sent] == [{"field_values": {}, "payment_approved": True}]
    assert (
        "The approval of 1.50 USD to Example Air expired. Send it to the approval app again? (y/N): "
        in (person.screen)
    )
    assert "Review:" not in person.screen


def test_a_payment_decision_beside_typed_answers_is_in_the_review_and_can_be_edited(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = FakeApp(payment_task("pending_approval", ["phone"]), no_input=False)
    # phone; keep the payment (Enter); at the review edit the 2nd (the payment): decline, yes
    person = Person(monkeypatch, "5550100", "", "e", "2", "d", "y", "")
    assert run(ReplyOptions("task_1"), app) == 0  # type: ignore[arg-type]
    assert "  2) payment: leave it to the approval app" in person.screen
    assert "  2) payment: DECLINE (the task fails)" in person.screen
    assert [b["info"] for b in app.tasks.sent] == [
        {"field_values": {"phone": "5550100"}, "payment_approved": False}
    ]


def test_an_option_is_named_by_its_text_then_its_number_then_its_text_in_another_case() -> None:
    from svc.ui.form import pick

    assert pick("aisle", ["window", "aisle"]) == "aisle"
    assert pick("2", ["window", "aisle"]) == "aisle"
    assert pick("1", ["2", "1"]) == "1"  # an option that is a number wins over a position
    assert pick("AISLE", ["window", "aisle"]) == "aisle"  # sent as the question spells it
    assert pick("a", ["A", "a"]) == "a" and pick("A", ["a", "b"]) == "a"
    for outside in ("middle", "0", "3", "", "-1"):
        assert pick(outside, ["window", "aisle"]) is None
