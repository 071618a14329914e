"""What svc was told in secret, it never prints (issue 29.10), through the `svc` executable.

The service (tests/hostile_answers.AnswersPeer with `fold_replies`) folds every reply back into
the task's goal, an event (as text and as a JSON number) and the result, as the spec allows.
A value sent as sensitive, by `svc reply --sensitive` or the hidden field of a form, is then
redacted from everything the same process prints: JSON, `--jq`, `--template`, the table,
`svc watch --json`'s NDJSON lines, and the JSON on an `--exec` hook's stdin.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from tests.conftest import Cli, _base_env
from tests.hostile_answers import AnswersPeer
from tests.person import finish
from tests.person import spawn_person as spawn

pytestmark = pytest.mark.e2e

TASK = "task_mine"
REDACTED = "[redacted]"
ASK = {
    "id": "evt_ask",
    "type": "input_requested",
    "created_at": "2026-11-24T12:00:00Z",
    "payload": {"field": "password", "message": "Your password, please", "sensitive": True},
}


def folding_peer(tmp_path: Path, peer: AnswersPeer) -> Cli:
    peer.config.fold_replies = True
    peer.config.state = "blocked_on_user"
    peer.config.events = [ASK]
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return Cli(home, {**_base_env(home), "SVC_BASE_URL": peer.url})


def a_secret() -> str:
    return f"{uuid.uuid4().int % 10**10:010d}"  # digits: folded back as a JSON number too


REPLY = ("reply", TASK, "--field", "password", "--sensitive", "--value-file", "-")


def test_reply_json_never_prints_the_password_the_service_folded_back(
    tmp_path: Path, answers_peer: AnswersPeer
) -> None:
    secret = a_secret()
    result = folding_peer(tmp_path, answers_peer)(*REPLY, input=secret + "\n")
    assert result.returncode == 0, result.stderr
    assert answers_peer.folded == [secret]  # sent, and folded into the answer
    task = result.json()
    assert REDACTED in task["goal"] and REDACTED in task["result"]["summary"]
    assert secret not in result.stdout + result.stderr
    folded = task["events"][-1]["payload"]
    assert folded["message"] == REDACTED and folded["code"] == REDACTED  # the number too


@pytest.mark.parametrize(
    "flag",
    [
        ("--jq", ".goal, .events[-1].payload.code"),
        ("--template", "{{ goal }} {{ result.summary }} {{ events[-1].payload.code }}"),
        ("--json", "goal,result"),
    ],
)
def test_reply_output_flags_never_pick_the_password_out(
    tmp_path: Path, answers_peer: AnswersPeer, flag: tuple[str, str]
) -> None:
    secret = a_secret()
    result = folding_peer(tmp_path, answers_peer)(*REPLY, *flag, input=secret + "\n")
    assert result.returncode == 0, result.stderr
    assert answers_peer.folded == [secret]
    assert REDACTED in result.stdout
    assert secret not in result.stdout + result.stderr


def test_reply_table_on_a_terminal_never_shows_the_password(
    tmp_path: Path, answers_peer: AnswersPeer
) -> None:
    secret = a_secret()
    cli = folding_peer(tmp_path, answers_peer)
    value = tmp_path / "password.txt"
    value.write_text(secret + "\n")
    child = spawn(cli, *REPLY[:-1], str(value))
    child.expect("answer sent")
    assert finish(child) == 0, child.before
    screen = child.before or ""
    assert answers_peer.folded == [secret]
    assert "Book a table" in screen and REDACTED in screen  # the task was drawn, scrubbed
    assert secret not in screen


def test_watch_json_and_hooks_never_get_a_secret_typed_in_its_form(
    tmp_path: Path, answers_peer: AnswersPeer
) -> None:
    """The form's hidden field answers the ask; the service folds it into the goal and an
    event of the next polls: the NDJSON lines and the hook's stdin carry it redacted."""
    secret = a_secret()
    cli = folding_peer(tmp_path, answers_peer)
    hooked = tmp_path / "hooked.ndjson"
    hook = f"cat >> {hooked}; echo >> {hooked}"
    child = spawn(cli, "watch", TASK, "--json", "--interval", "1", "--exec", hook)
    child.expect(r"password \(hidden\):")
    child.sendline(secret)
    child.expect(r"Send this answer\?")
    child.sendline("")
    assert finish(child) == 0, child.before
    screen = child.before or ""
    assert answers_peer.folded == [secret]
    lines = [json.loads(line) for line in screen.splitlines() if line.startswith("{")]
    final = [line for line in lines if line.get("state") == "completed"]
    assert final and REDACTED in final[-1]["goal"], screen
    assert secret not in screen
    hooks = [json.loads(line) for line in hooked.read_text().splitlines() if line.strip()]
    done = [doc for doc in hooks if doc["state"] == "completed"]
    assert done and REDACTED in done[-1]["goal"]
    assert secret not in hooked.read_text()
