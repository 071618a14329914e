"""The watch engine in-process: `run(WatchOptions, AppContext)` against the loopback sandbox,
no `svc` subprocess for the watch itself (issue 17.1), and its parts (asks, hooks)."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import pytest
from tests.conftest import Cli, Sandbox, unique_email
from tests.inproc import captured, isolate_home

from svc.commands.ask_commands import reply_command
from svc.commands.watch import WatchOptions, run
from svc.commands.watch_hooks import ExecHooks, command_argv
from svc.context import AppContext
from svc.engines.asks import summarize
from svc.engines.changes import TaskChange
from svc.errors import HumanNeeded, UsageError


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    isolate_home(tmp_path / "inproc", monkeypatch)
    return tmp_path


def context(sandbox: Sandbox) -> tuple[AppContext, io.StringIO, io.StringIO]:
    return captured(sandbox.url)


def submit(cli: Cli, text: str) -> str:
    return str(cli.ok("submit", text, "--email", unique_email()).json()["id"])


def test_run_follows_a_task_to_completed_and_returns_0(
    cli: Cli, sandbox: Sandbox, home: Path
) -> None:
    task_id = submit(cli, "In process #complete")
    sandbox.advance(25)
    app, out, _ = context(sandbox)
    assert not app.has_ledger()  # a fresh home: nothing to read, nothing created
    assert run(WatchOptions(task_ids=[task_id], interval=0.2), app) == 0
    last = json.loads(out.getvalue().splitlines()[-1])
    assert last["id"] == task_id and last["state"] == "completed"
    app.close()


def test_run_stops_at_an_ask_with_the_reply_command_and_a_stop_line(
    cli: Cli, sandbox: Sandbox, home: Path
) -> None:
    task_id = submit(cli, "In process #questions")
    sandbox.advance(11)
    app, out, _ = context(sandbox)
    with pytest.raises(HumanNeeded) as caught:
        run(WatchOptions(task_ids=[task_id], interval=0.2), app)
    assert caught.value.hint and f"svc reply {task_id} --set shipping_address=VALUE" in (
        caught.value.hint
    )
    stop = json.loads(out.getvalue().splitlines()[-1])
    assert stop["ask"] == "structured" and stop["reply_keys"][-1] == "seat_preference"
    app.close()


def test_run_without_ids_is_a_usage_error(sandbox: Sandbox, home: Path) -> None:
    app, _, _ = context(sandbox)
    with pytest.raises(UsageError):
        run(WatchOptions(), app)
    assert run(WatchOptions(all_live=True), app) == 0  # no ledger: nothing live, nothing created
    assert not app.has_ledger()


def test_a_hanging_hook_is_stopped_at_its_bound_and_reported() -> None:
    warnings: list[str] = []
    hooks = ExecHooks("sleep 30", warnings.append, timeout=0.3)
    started = time.monotonic()
    for i in range(3):
        hooks.submit(TaskChange(f"t{i}", "state", {"id": f"t{i}", "state": "pending"}))
    hooks.close()
    assert time.monotonic() - started < 5
    assert sorted(warnings) == [
        f"--exec hook for t{i} ran over 0.3s and was stopped" for i in range(3)
    ]


def test_a_plain_command_is_exec_d_directly_and_anything_else_through_sh() -> None:
    assert command_argv("true") == ["true"]
    assert command_argv("exit 7") == ["/bin/sh", "-c", "exit 7"]  # a built-in: the shell's
    assert command_argv("cd /tmp") == ["/bin/sh", "-c", "cd /tmp"]
    assert command_argv("notify.sh --loud") == ["notify.sh", "--loud"]
    assert command_argv("curl -d @- $URL") == ["/bin/sh", "-c", "curl -d @- $URL"]


def test_reply_command_quotes_a_hostile_field_name_for_the_shell() -> None:
    task = {
        "id": "tsk_1",
        "state": "blocked_on_user",
        "events": [
            {"type": "input_requested", "payload": {"field": "x; rm -rf ~", "sensitive": True}}
        ],
    }
    summary = summarize(task)
    assert summary.kind == "plain"
    assert (
        reply_command(summary) == "svc reply tsk_1 --field 'x; rm -rf ~' --sensitive --value-file -"
    )


def test_abort_stops_running_hooks_at_once() -> None:
    warnings: list[str] = []
    hooks = ExecHooks("sleep 30", warnings.append, timeout=60)
    hooks.submit(TaskChange("t1", "state", {"id": "t1", "state": "pending"}))
    for _ in range(100):  # until the hook runs (the machine may be busy)
        if hooks._running:
            break
        time.sleep(0.05)
    started = time.monotonic()
    hooks.abort()
    hooks.close()
    assert time.monotonic() - started < 3
    assert warnings == ["--exec hook for t1 exited -9"]


def test_a_notification_carries_no_escape_of_the_servers_and_no_field_separator(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from svc.ui import notify

    monkeypatch.setattr(notify.shutil, "which", lambda name: None)  # no desktop notifier
    hostile = "Evil\x07Air\x1b]52;c;cm0=\x07; rm -rf ~ \u202e"
    task = {
        "id": "tsk_1",
        "state": "blocked_on_user",
        "info_request": {"amount_usd": 42.5, "merchant_name": hostile},
    }
    notify.Notifier(terminal_ok=True).notify(f"task tsk_1 waits on you: {summarize(task).what}")
    written = capsys.readouterr().out
    assert written.startswith("\x07\x1b]9;svc: task tsk_1 waits on you: ")
    payload = written[len("\x07\x1b]9;") : written.index("\x07", 1)]
    assert "\x1b" not in payload and ";" not in payload.replace("svc: ", "", 1)
    assert "\u202e" not in written and written.count("\x07") == 3  # bell + two terminators


def test_osascript_gets_the_text_as_an_argument_never_as_code(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """macOS: the AppleScript is a constant; an injection attempt is only `item 1 of argv`."""
    from svc.ui import notify

    started: list[list[str]] = []
    monkeypatch.setattr(notify.sys, "platform", "darwin")
    monkeypatch.setattr(
        notify.shutil, "which", lambda name: f"/usr/bin/{name}" if name == "osascript" else None
    )
    monkeypatch.setattr(notify, "_start_detached", started.append)
    attack = '" & do shell script "touch /tmp/pwned" & "'
    notify.Notifier(terminal_ok=False).notify(f"task tsk_1 waits on you: {attack}")
    [(program, flag, code, text)] = started
    assert (program, flag) == ("/usr/bin/osascript", "-e")
    assert "pwned" not in code and code.startswith("on run argv")
    assert text.endswith(attack)  # shown as it reads: AppleScript never parses it


def test_an_answer_sent_closes_its_prompt_for_good(
    cli: Cli, sandbox: Sandbox, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 30.11: after a decline was sent, a poll sent before it came back still waiting
    on the same ask, and the watch drew the stale panel and opened the prompt again."""
    from types import SimpleNamespace

    from svc.api.models import TaskDetail
    from svc.commands.watch_face import Following, WatchFace
    from svc.commands.watch_status import Status
    from svc.engines.asks import read_ask
    from svc.engines.reply import body_for
    from svc.replies import Decline

    task_id = submit(cli, "Decline me #approval")
    sandbox.advance(11)
    isolate_home(home / "person", monkeypatch, person=True)
    app, _, _ = captured(sandbox.url, person=True)
    face = WatchFace(app, [task_id], Following(interval=0.2))
    face.follower.start()
    face.status = Status(app.output, face.states)

    def answered(task: dict[str, object]) -> None:  # one poll's answer, as the loop takes it
        for change in face.follower._take(task_id, task, None):
            face._take(change)
        face._ask_next()

    stale = app.tasks.poll(task_id).raw  # in flight when the answer is sent
    answered(stale)
    assert face.form is not None  # the prompt a person answers
    face.form.withdraw()
    decline = body_for(read_ask(TaskDetail.model_validate(stale)), Decline())
    done = SimpleNamespace(task_id=task_id, task=stale, body=decline, error=None)
    done.done = SimpleNamespace(is_set=lambda: True)
    face.form = done  # type: ignore[assignment]
    face._check_form()  # sends the decline
    answered(stale)  # the poll sent before it answers now
    assert face.form is None, "the answered prompt was opened again"
    answered(app.tasks.poll(task_id).raw)
    assert face.finals[task_id]["error"] == "payment_rejected"
    face.status.stop()
    face.follower.close()
    app.close()
