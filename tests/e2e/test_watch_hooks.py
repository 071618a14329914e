"""`svc watch --exec` and `--notify` through the executable (issue 14 items 1-3).

A hook records what it received (argv, environment, stdin) in a file per call; a fake
`notify-send` earlier on PATH records its argv. Hostile server text (#hostile) must never reach
a hook's argv, and a failing or hanging hook must not change the watch's exit code or timing
beyond its bound.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import SVC, Cli, Sandbox, unique_email
from tests.person import fake_notify_send
from tests.procs import rest_of

pytestmark = pytest.mark.e2e

RECORDER = """\
import json, os, sys, uuid
out = os.environ["HOOK_OUT"]
doc = {
    "argv": sys.argv,
    "env": {k: v for k, v in os.environ.items() if k.startswith("SVC_TASK_")},
    "stdin": sys.stdin.read(),
}
with open(os.path.join(out, uuid.uuid4().hex + ".json"), "w") as f:
    json.dump(doc, f)
"""


def submit(cli: Cli, text: str) -> str:
    return str(cli.ok("submit", text, "--email", unique_email()).json()["id"])


def recorder(tmp_path: Path) -> tuple[str, Path]:
    script = tmp_path / "record.py"
    script.write_text(RECORDER)
    out = tmp_path / "calls"
    out.mkdir()
    return f"{sys.executable} {script}", out


def calls(out: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in out.iterdir()]


def watch_while(cli: Cli, sandbox: Sandbox, args: list[str], advance: float) -> tuple:
    """Start a watch, let it see the task live, advance the sandbox, wait for the end."""
    proc = subprocess.Popen(
        [SVC, "watch", *args],
        env=cli.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()  # the task seen live (a marker, not a sleep: load)
        sandbox.advance(advance)
        out, err = rest_of(proc, timeout=40)  # through readline()'s buffer
        out = first + out
    finally:
        proc.kill()
    assert "Traceback" not in err
    return proc.returncode, out, err


def test_exec_runs_once_per_change_with_the_detail_on_stdin_and_hostile_text_not_in_argv(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    task_id = submit(cli, "Hooked #complete #hostile")
    command, out = recorder(tmp_path)
    env_cli = Cli(cli.home, {**cli.env, "HOOK_OUT": str(out)})
    code, stdout, err = watch_while(
        env_cli, sandbox, [task_id, "--interval", "1", "--json", "--exec", command], 25
    )
    assert code == 0, err
    changes = [json.loads(line) for line in stdout.splitlines()]
    got = calls(out)
    assert len(got) == len(changes) >= 2  # one call per observed change
    by_state = {}
    for call in got:
        detail = json.loads(call["stdin"])
        assert detail["id"] == task_id == call["env"]["SVC_TASK_ID"]
        assert call["env"]["SVC_TASK_STATE"] == detail["state"]
        assert call["env"]["SVC_TASK_ASK"] == "none"
        assert call["argv"] == [str(tmp_path / "record.py")]  # nothing of the server's
        by_state[detail["state"]] = call
    assert by_state["completed"]["env"]["SVC_TASK_PREVIOUS_STATE"] in ("pending", "running")
    final = json.loads(by_state["completed"]["stdin"])
    assert final == changes[-1]  # the same detail the watch printed
    assert "pwned" in call["stdin"] and "pwned" in json.dumps(final)  # the data was hostile


def test_a_failing_hook_is_a_warning_and_a_hanging_one_is_stopped_at_its_bound(
    cli: Cli, sandbox: Sandbox
) -> None:
    done = submit(cli, "Done already #complete")
    failed = submit(cli, "Fails #fail")
    sandbox.advance(25)
    result = cli("watch", done, "--exec", "echo boom >&2; exit 3")
    assert result.returncode == 0
    assert "--exec hook for " + done + " exited 3: boom" in result.stderr
    builtin = cli("watch", done, "--exec", "exit 7")  # a shell built-in with no shell syntax
    assert builtin.returncode == 0
    assert "--exec hook for " + done + " exited 7" in builtin.stderr
    assert "No such file" not in builtin.stderr
    started = time.monotonic()
    hung = cli("watch", done, failed, "--exec", "sleep 30", "--exec-timeout", "1")
    elapsed = time.monotonic() - started
    assert hung.returncode == 3  # the failed task's code, not the hook's
    assert hung.stderr.count("ran over 1s and was stopped") == 2
    assert elapsed < 8, elapsed  # the hooks ran side by side, each cut at 1 s


def test_stop_at_an_ask_names_the_reply_command_and_the_time_left(
    cli: Cli, sandbox: Sandbox
) -> None:
    two_fa = submit(cli, "Code please #2fa")
    questions = submit(cli, "Details please #questions")
    short = submit(cli, "Quick #ask-expire")
    sandbox.advance(11)
    result = cli("watch", two_fa, "--no-input")
    assert result.returncode == 6
    assert f"`svc reply {two_fa} --field sms_code --sensitive --value-file -`" in result.stderr
    assert "asks for sms_code (a secret), no expiry given" in result.stderr
    stop = result.lines()[-1]
    assert stop["id"] == two_fa and stop["state"] == "blocked_on_user"
    assert stop["ask"] == "plain" and stop["reply_keys"] == ["sms_code"]
    assert stop["seconds_left"] is None
    result = cli("watch", questions, "--no-input")
    assert result.returncode == 6
    hint = (
        f"svc reply {questions} --set shipping_address=VALUE --set phone=VALUE "
        "--set seat_preference=VALUE"
    )
    assert hint in result.stderr and re.search(r"\d+m\d\ds left", result.stderr)
    stop = result.lines()[-1]
    assert stop["ask"] == "structured" and 800 < stop["seconds_left"] <= 15 * 60
    result = cli("watch", short, "--no-input")
    stop = result.lines()[-1]
    assert result.returncode == 6 and 0 < stop["seconds_left"] <= 60  # the 60 s ask
    minutes, seconds = divmod(stop["seconds_left"], 60)
    left = f"{minutes}m{seconds:02d}s left" if minutes else f"{seconds}s left"
    assert left in result.stderr


def test_a_payment_ask_hint_approves_in_the_app_and_never_declines_by_default(
    cli: Cli, sandbox: Sandbox
) -> None:
    """Issue 22.4: a CI job that follows the hint must not cancel the purchase."""
    approval = submit(cli, "Buy it #approval")
    sandbox.advance(11)
    result = cli("watch", approval, "--no-input")
    assert result.returncode == 6
    hint = result.stderr.splitlines()[1]
    assert hint.startswith("hint: approve the payment in the user's payment app, then ")
    assert hint.index(f"`svc watch {approval}`") < hint.index("--decline-payment")
    assert "or decline it:" in hint
    stop = result.lines()[-1]
    assert stop["ask"] == "payment"
    assert stop["reply_command"] == f"svc watch {approval}"  # following it spends nothing
    assert stop["decline_command"] == f"svc reply {approval} --decline-payment"
    expired = submit(cli, "Buy it #approval-expire")
    sandbox.advance(30)
    stop = cli("watch", expired, "--no-input").lines()[-1]
    assert stop["reply_command"] == f"svc reply {expired} --approve-payment"  # asks again


def test_with_several_tasks_waiting_the_stop_names_each_once(cli: Cli, sandbox: Sandbox) -> None:
    """Issue 22.6: the message named the first task twice and the hint only the first."""
    two_fa = submit(cli, "Code please #2fa")
    questions = submit(cli, "Details please #questions")
    sandbox.advance(11)
    result = cli("watch", two_fa, questions, "--no-input")
    assert result.returncode == 6
    line, hint = result.stderr.splitlines()[:2]
    assert line.startswith("svc: 2 tasks wait on the user and prompting is off: ")
    assert line.count(two_fa) == 1 and line.count(questions) == 1
    assert f"svc reply {two_fa} --field sms_code" in hint and f"svc reply {questions} --set" in hint
    assert hint.endswith(f"then `svc watch {two_fa} {questions}`")
    single = cli("watch", two_fa, "--no-input")
    assert single.stderr.splitlines()[0].count(two_fa) == 1


def test_poll_exit_status_has_its_own_code_for_a_live_task(cli: Cli, sandbox: Sandbox) -> None:
    task_id = submit(cli, "Still going #complete")
    assert cli("poll", task_id, "--exit-status").returncode == 11
    sandbox.advance(25)
    assert cli("poll", task_id, "--exit-status").returncode == 0


def test_notify_piped_calls_the_desktop_notifier_and_writes_no_escape(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    bin_dir, log = fake_notify_send(tmp_path)
    task_id = submit(cli, "Code please #2fa #hostile")
    sandbox.advance(11)
    env = {"PATH": f"{bin_dir}{os.pathsep}{cli.env['PATH']}"}
    result = cli("watch", task_id, "--no-input", "--notify", env=env)
    assert result.returncode == 6
    assert "\x07" not in result.stdout and "\x1b" not in result.stdout
    for _ in range(50):  # the notifier runs detached
        if log.exists() and "---" in log.read_text():
            break
        time.sleep(0.1)
    text = log.read_text()
    assert f"task {task_id} waits on you: asks for sms_code (a secret)" in text
    assert "\x1b" not in text and "pwned" not in text  # our words only
