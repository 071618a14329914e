"""The reply form's clock check: an expired ask is exit 8 naming when, before anything is typed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from svc.commands.reply import check_time_left
from svc.errors import Conflict, ExitCode


class _Output:
    def __init__(self) -> None:
        self.lines: list[tuple[str, str]] = []

    def warn(self, message: str) -> None:
        self.lines.append(("warn", message))

    def note(self, message: str) -> None:
        self.lines.append(("note", message))


class _App:
    def __init__(self) -> None:
        self.output = _Output()


def _detail(expires_in: float) -> dict[str, Any]:
    now = datetime.now(UTC)
    stamp = (now + timedelta(seconds=expires_in)).isoformat().replace("+00:00", "Z")
    return {
        "id": "task_1",
        "state": "blocked_on_user",
        "updated_at": (now - timedelta(seconds=5)).isoformat().replace("+00:00", "Z"),
        "info_request": {"requested_fields": ["phone"], "questions": [], "expires_at": stamp},
    }


def test_an_expired_ask_is_exit_8_with_its_time_and_nothing_sent() -> None:
    detail = _detail(-30)
    with pytest.raises(Conflict) as caught:
        check_time_left(_App(), detail)  # type: ignore[arg-type]
    error = caught.value
    assert error.exit_code == ExitCode.CONFLICT and error.code == "ask_expired"
    expires = detail["info_request"]["expires_at"]
    assert f"the ask of task task_1 expired at {expires}" in error.message
    assert "nothing was sent" in error.message


def test_an_ask_that_expires_while_the_form_is_open_says_so() -> None:
    with pytest.raises(Conflict, match="while the form was open"):
        check_time_left(_App(), _detail(-1), after_form=True)  # type: ignore[arg-type]


def test_a_short_time_left_is_a_warning_and_a_long_one_a_note() -> None:
    app = _App()
    check_time_left(app, _detail(45))  # type: ignore[arg-type]
    check_time_left(app, _detail(900))  # type: ignore[arg-type]
    assert [kind for kind, _ in app.output.lines] == ["warn", "note"]
    assert "expires soon" in app.output.lines[0][1]


def test_no_expiry_says_nothing() -> None:
    app = _App()
    detail = _detail(60)
    del detail["info_request"]["expires_at"]
    check_time_left(app, detail)  # type: ignore[arg-type]
    assert app.output.lines == []
