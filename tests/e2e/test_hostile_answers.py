"""Answers that do not match their question, and numbers that are not numbers (issue 21.2,
21.3), through the `svc` executable against tests/hostile_answers.AnswersPeer.

An answer about another task is a protocol error (exit 9): nothing is printed as the asked
task, no hook runs, no reply is sent on its strength. A `Retry-After` or `retry_after` that is
not a sane wait counts as absent (the normal backoff), an `expires_at` that is not a time
counts as no expiry: never an internal error.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from tests.conftest import Cli, _base_env
from tests.hostile_answers import AnswersPeer, Busy

pytestmark = pytest.mark.e2e

PROTOCOL = 9
MINE, OTHER = "task_mine", "task_other"


def peer_cli(tmp_path: Path, peer: AnswersPeer) -> Cli:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return Cli(home, {**_base_env(home), "SVC_BASE_URL": peer.url})


def refused_as_another_task(result: object, what: str) -> None:
    from tests.conftest import Result

    assert isinstance(result, Result)
    assert result.returncode == PROTOCOL, result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    line = result.stderr.splitlines()[0]
    assert line.startswith(f"svc: {what}:") and MINE in line and OTHER in line, result.stderr
    assert result.json()["exit_code"] == PROTOCOL  # the one JSON object is the error


# --- 21.2: answers match their question ------------------------------------------------------


def test_a_poll_answer_about_another_task_is_refused(tmp_path: Path, answers_peer: AnswersPeer):
    answers_peer.config.answer_id = OTHER
    result = peer_cli(tmp_path, answers_peer)("poll", MINE)
    refused_as_another_task(result, "poll")
    doc = result.json()
    assert doc["error"] == "wrong_task" and "state" not in doc  # no task printed as asked


def test_watch_runs_no_hook_for_an_answer_about_another_task(
    tmp_path: Path, answers_peer: AnswersPeer
) -> None:
    answers_peer.config.answer_id = OTHER
    witness = tmp_path / "hook-ran"
    hook = f"touch {witness}"
    result = peer_cli(tmp_path, answers_peer)("watch", MINE, "--exec", hook, "--interval", "1")
    refused_as_another_task(result, "poll")
    time.sleep(0.3)  # a hook started in the background would have had time to run
    assert not witness.exists()


def test_a_wrong_task_is_refused_before_a_reply_is_sent(
    tmp_path: Path, answers_peer: AnswersPeer
) -> None:
    """The reply flow reads the ask first: an ask about another task sends no answer."""
    answers_peer.config.answer_id = OTHER
    answers_peer.config.state = "blocked_on_user"
    answers_peer.config.info_request = {"requested_fields": ["seat"], "questions": []}
    result = peer_cli(tmp_path, answers_peer)("reply", MINE, "--set", "seat=aisle")
    refused_as_another_task(result, "poll")
    assert answers_peer.sent("POST") == []


def test_a_reply_answer_about_another_task_is_refused_and_says_how_to_check(
    tmp_path: Path, answers_peer: AnswersPeer
) -> None:
    answers_peer.config.reply_answer_id = OTHER
    answers_peer.config.state = "blocked_on_user"
    answers_peer.config.info_request = {"requested_fields": ["seat"], "questions": []}
    result = peer_cli(tmp_path, answers_peer)("reply", MINE, "--set", "seat=aisle")
    refused_as_another_task(result, "reply")
    assert f"svc poll {MINE}" in result.stderr  # the answer went out: how to see if it took


def test_the_matching_answer_still_works(tmp_path: Path, answers_peer: AnswersPeer) -> None:
    result = peer_cli(tmp_path, answers_peer)("poll", MINE)
    assert result.returncode == 0, result.stderr
    assert result.json()["id"] == MINE


# --- 21.3: numbers from servers ---------------------------------------------------------------

NOT_WAITS = [
    Busy(503, {"Retry-After": "nan"}),
    Busy(503, {"Retry-After": "inf"}),
    Busy(503, {"Retry-After": "-5"}),
    Busy(503, {"Retry-After": "1e999"}),
    Busy(503, {"Retry-After": "Mon, 99 Foo 99999 99:99:99 GMT"}),
    Busy(503, {"Retry-After": "\u0661\u0662"}),  # Arabic-Indic digits: float() takes them
    Busy(503, body='{"error": "busy", "retry_after": NaN}'),
    Busy(503, body='{"error": "busy", "retry_after": 1e999}'),
    Busy(503, body='{"error": "busy", "retry_after": "NaN"}'),
    Busy(429, body='{"error": "rate_limit_exceeded", "retry_after": -1e308}'),
]


@pytest.mark.parametrize("busy", NOT_WAITS, ids=lambda b: f"{b.status}-{b.headers or b.body}")
def test_a_wait_that_is_not_one_counts_as_absent(
    tmp_path: Path, answers_peer: AnswersPeer, busy: Busy
) -> None:
    answers_peer.config.busy = [busy]
    started = time.monotonic()
    result = peer_cli(tmp_path, answers_peer)("poll", MINE)
    assert result.returncode == 0, result.stderr  # retried with the normal backoff, then read
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr
    assert time.monotonic() - started < 10
    assert len(answers_peer.sent("GET")) == 2


def test_a_huge_wait_is_not_slept(tmp_path: Path, answers_peer: AnswersPeer) -> None:
    """A sane but long wait (an hour) is the server's answer, not a sleep: one line, exit 9."""
    answers_peer.config.busy = [Busy(503, {"Retry-After": "3600"})]
    started = time.monotonic()
    result = peer_cli(tmp_path, answers_peer)("poll", MINE)
    assert result.returncode == PROTOCOL, result.stderr
    assert time.monotonic() - started < 10 and len(answers_peer.sent("GET")) == 1


@pytest.mark.parametrize(
    "expires_at",
    ["garbage", "0000-00-00T00:00:00Z", "9999-12-31T23:59:59-23:59", "1" * 500, 12, None],
)
def test_an_expiry_that_is_not_a_time_is_no_expiry(
    tmp_path: Path, answers_peer: AnswersPeer, expires_at: object
) -> None:
    answers_peer.config.state = "blocked_on_user"
    answers_peer.config.info_request = {
        "requested_fields": ["seat"],
        "questions": [],
        "expires_at": expires_at,
        "created_at": "not a time either",
    }
    cli = peer_cli(tmp_path, answers_peer)
    runs = {("poll", MINE, "--exit-status"): 6, ("watch", MINE, "--no-input"): 6}
    on_a_terminal = cli("poll", MINE, env={"CI": "", "COLUMNS": "100"})
    for args, code in {**runs, ("poll", MINE): 0}.items():
        result = cli(*args)
        assert result.returncode == code, result.stderr  # 6: the contract's "waits on the user"
        assert "internal error" not in result.stderr and "Traceback" not in result.stderr
    assert on_a_terminal.returncode == 0, on_a_terminal.stderr


# --- 21.5: notifications are inert -------------------------------------------------------------

# Short enough to survive the 64-character bound on a field name whole.
MARKUP = '<a href="https://e.x/">P</a>&<img src="file:///etc/passwd">'
APPLESCRIPT = '" & do shell script "touch /tmp/pwned" & "'
# What each must read as in the body: shown as text, never a link, an image or code.
ESCAPED = {
    MARKUP: "&lt;a href=&quot;https://e.x/&quot;&gt;P&lt;/a&gt;&amp;&lt;img src=&quot;file:",
    APPLESCRIPT: "&quot; &amp; do shell script &quot;touch /tmp/pwned&quot; &amp; &quot;",
}
HOSTILE = "{hostile}"
# Every field of an ask whose text reaches the notification's body.
NOTIFIED = {
    "merchant_name": {
        "info_request": {
            "requested_fields": [],
            "questions": [],
            "amount_usd": 42.5,
            "merchant_name": HOSTILE,
        }
    },
    "requested_field": {
        "info_request": {"requested_fields": [HOSTILE], "questions": [], "note": HOSTILE}
    },
    "question_key": {
        "info_request": {"requested_fields": [], "questions": [{"key": HOSTILE, "text": "?"}]}
    },
    "event_field": {
        "events": [
            {
                "id": "evt_ask",
                "type": "input_requested",
                "created_at": "2026-11-24T12:00:00Z",
                "payload": {"field": HOSTILE, "message": HOSTILE},
            }
        ]
    },
}


@pytest.mark.parametrize("hostile", list(ESCAPED), ids=["markup", "applescript"])
@pytest.mark.parametrize("where", list(NOTIFIED))
def test_a_notification_body_carries_no_markup(
    tmp_path: Path, answers_peer: AnswersPeer, where: str, hostile: str
) -> None:
    """freedesktop notification servers render body markup: links, images and AppleScript
    quotes from any field of an ask reach `notify-send` escaped, after `--` (a body starting
    with `-` is no option)."""
    from tests.person import fake_notify_send

    bin_dir, log = fake_notify_send(tmp_path)
    answers_peer.config.state = "blocked_on_user"
    ask = json.loads(json.dumps(NOTIFIED[where]).replace(HOSTILE, json.dumps(hostile)[1:-1]))
    answers_peer.config.info_request = ask.get("info_request")
    answers_peer.config.events = ask.get("events", [])
    cli = peer_cli(tmp_path, answers_peer)
    env = {"PATH": f"{bin_dir}:{cli.env['PATH']}"}
    result = cli("watch", MINE, "--no-input", "--notify", env=env)
    assert result.returncode == 6, result.stderr
    for _ in range(50):  # the notifier runs detached
        if log.exists() and "---" in log.read_text():
            break
        time.sleep(0.1)
    argv = log.read_text().split("\n---\n")[0].splitlines()[1:]
    assert "--" in argv and argv.index("--") == len(argv) - 3  # -- summary body
    body = argv[-1]
    assert "<" not in body and ">" not in body and '"' not in body, body
    assert ESCAPED[hostile] in body, body
    assert not Path("/tmp/pwned").exists()


# --- 21.6: every invalid_token reason has its own fix -----------------------------------------

REASON_FIXES = {
    "token_expired": "svc identity refresh",
    "token_invalid": "svc identity refresh",
    "malformed_agent_authorization": "exactly one `Bearer <token>`",
    "unrecognized_agent_credential": "--auth-base",
    "conflicting_agent_credentials": "two different agent tokens",
    "combined_authorization_unsupported": "combined in one Authorization header",
}


@pytest.mark.parametrize(("reason", "fix"), REASON_FIXES.items())
def test_each_invalid_token_reason_says_its_own_fix(
    tmp_path: Path, answers_peer: AnswersPeer, reason: str, fix: str
) -> None:
    body = f'{{"error": "invalid_token", "reason": "{reason}", "detail": "refused"}}'
    answers_peer.config.busy = [Busy(401, {"WWW-Authenticate": "Bearer"}, body)]
    result = peer_cli(tmp_path, answers_peer)("poll", MINE)
    assert result.returncode == 4, result.stderr  # the contract's authentication exit
    line, hint = result.stderr.splitlines()[:2]
    assert line.startswith("svc: poll failed: HTTP 401 invalid_token") and reason in line
    assert hint.startswith("hint: ") and fix in hint, hint
    assert result.json()["reason"] == reason
    assert len(answers_peer.sent("GET")) == 1  # none of them is retried as it is


def test_the_hints_of_the_reasons_are_all_different() -> None:
    from svc.errors import CODES, INVALID_TOKEN_HINTS

    hints = [*INVALID_TOKEN_HINTS.values(), CODES["invalid_token"].hint]
    assert len(set(hints)) == len(hints) == 7
