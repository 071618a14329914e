"""The form's typed outcome at a payment approval: keeping the payment is LeftToApprovalApp
(a caller such as watch keeps waiting), never a usage error; a decline needs a second yes."""

from __future__ import annotations

from typing import Any

import pytest
from tests.inproc import task_doc

from svc.api.models import TaskDetail
from svc.engines.asks import read_ask
from svc.engines.reply import body_for
from svc.ui import prompts
from svc.ui.reply_form import LeftToApprovalApp, answer_from_form


def body_from_form(task: TaskDetail) -> dict[str, Any]:
    """The form's answer, checked by the engine, as `svc reply` and `svc watch` do."""
    return body_for(read_ask(task), answer_from_form(task))


def _payment_task() -> TaskDetail:
    return TaskDetail.model_validate(
        task_doc(
            state="blocked_on_user",
            goal="Buy the flight",
            info_request={
                "requested_fields": [],
                "questions": [],
                "amount_usd": "42.50",
                "merchant_name": "Example Air",
                "payment_status": "awaiting_approval",
            },
        )
    )


def _answers(monkeypatch: pytest.MonkeyPatch, *answers: str | bool) -> list[str]:
    """Typed lines (str) and yes/no answers (bool), in the order they are asked."""
    asked: list[str] = []
    queue = list(answers)

    def confirm(text: str, default: bool = False) -> bool:
        asked.append(text)
        answer = queue.pop(0)
        assert isinstance(answer, bool), text
        return answer

    def ask_text(text: str, default: str | None = None) -> str:
        asked.append(text)
        answer = queue.pop(0)
        assert isinstance(answer, str), text
        return answer

    monkeypatch.setattr(prompts, "confirm", confirm)
    monkeypatch.setattr(prompts, "ask_text", ask_text)
    monkeypatch.setattr(prompts, "say", lambda *a, **k: None)
    return asked


def test_keeping_the_payment_is_left_to_the_app(monkeypatch: pytest.MonkeyPatch) -> None:
    task = _payment_task()
    _answers(monkeypatch, "")  # Enter: leave it to the approval app
    with pytest.raises(LeftToApprovalApp) as caught:
        body_from_form(task)
    assert caught.value.task_id == "task_1"


def test_a_decline_needs_the_second_yes(monkeypatch: pytest.MonkeyPatch) -> None:
    task = _payment_task()
    asked = _answers(monkeypatch, "d", True)
    body: dict[str, Any] = body_from_form(task)
    assert asked[0] == "Enter: leave it to the approval app, d: decline"  # as `svc watch` asks
    assert len(asked) == 2 and "for good" in asked[1]
    assert body["info"]["payment_approved"] is False
