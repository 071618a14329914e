"""The sandbox driven by hand (issue 15, item 8): approve, claim-code, tags, serve's banner.

Each helper runs through the `svc` executable against a live sandbox, and refuses what it
must: an empty or hostile id, no pending claim, a host that is not a sandbox.
"""

from __future__ import annotations

import subprocess
import uuid
from pathlib import Path

import pexpect
import pytest
from tests.conftest import SVC, Cli, Sandbox, unique_email

pytestmark = pytest.mark.e2e


def _submit(cli: Cli, text: str) -> str:
    rid = f"req_{uuid.uuid4().hex}"
    doc = cli.ok("submit", text, "--email", unique_email(), "--request-id", rid).json()
    return str(doc["id"])


def _state(cli: Cli, task_id: str) -> str:
    return str(cli.ok("poll", task_id).json()["state"])


def test_approve_approves_a_pending_payment(cli: Cli, sandbox: Sandbox) -> None:
    task_id = _submit(cli, "Buy the flight #approval")
    sandbox.advance(11)
    assert cli.ok("poll", task_id).json()["info_request"]["payment_status"] == "pending_approval"
    doc = cli.ok("sandbox", "approve", task_id).json()  # piped: JSON, like every command
    assert doc["approved"] is True and doc["task_id"] == task_id
    assert _state(cli, task_id) == "pending"  # reconciled: no longer asking
    sandbox.advance(25)
    assert _state(cli, task_id) == "completed"


def test_approve_on_a_terminal_says_what_to_do_next(cli: Cli, sandbox: Sandbox) -> None:
    task_id = _submit(cli, "Buy the flight #approval")
    sandbox.advance(11)
    env = {k: v for k, v in cli.env.items() if k != "CI"}
    child = pexpect.spawn(SVC, ["sandbox", "approve", task_id], env=env, encoding="utf-8")
    child.expect(pexpect.EOF, timeout=30)
    child.close()
    assert child.exitstatus == 0, child.before
    assert f"approved {task_id}" in child.before and f"svc watch {task_id}" in child.before


def test_approve_refuses_an_unknown_an_empty_and_a_dotted_id(cli: Cli) -> None:
    missing = cli("sandbox", "approve", "task_nosuch")
    assert missing.returncode != 0 and "task_nosuch" in missing.stderr
    for bad in ("", "..", "a/b"):
        result = cli("sandbox", "approve", bad)
        assert result.returncode == 2, (bad, result.stderr)
        assert len(result.stderr.splitlines()) <= 2 and "invalid ID" in result.stderr


def test_approve_against_something_that_is_not_a_sandbox_is_not_an_internal_error(
    bare_cli: Cli,
) -> None:
    result = bare_cli("sandbox", "approve", "task_1")
    assert result.returncode == 9 and "internal error" not in result.stderr


def test_claim_code_lets_a_claim_finish_without_a_browser(cli: Cli) -> None:
    email = unique_email()
    cli.ok("identity", "register", "--email", email)
    none_yet = cli("sandbox", "claim-code")
    assert none_yet.returncode != 0 and "no pending claim link" in none_yet.stderr
    link = cli("identity", "claim", env={"SVC_NO_INPUT": "1"})
    assert link.returncode == 6, link.stderr
    code = cli.ok("sandbox", "claim-code").json()["user_code"]
    assert isinstance(code, str) and code
    done = cli.ok("identity", "claim", "--code", code).json()
    assert done["claimed"] is True and done["email"] == email


def test_claim_code_json_names_the_attempt(cli: Cli) -> None:
    cli.ok("identity", "register", "--email", unique_email())
    assert cli("identity", "claim", env={"SVC_NO_INPUT": "1"}).returncode == 6
    doc = cli.ok("--json", "sandbox", "claim-code").json()
    assert doc["user_code"] and doc["attempt_id"] and doc["login_hint"]
    again = cli.ok("--json", "sandbox", "claim-code", "--attempt", doc["attempt_id"]).json()
    assert again["user_code"] == doc["user_code"]
    wrong = cli("sandbox", "claim-code", "--attempt", "att_nosuch")
    assert wrong.returncode != 0 and "no pending claim link" in wrong.stderr


def test_tags_is_the_cheat_sheet_also_in_serve_help(bare_cli: Cli) -> None:
    sheet = bare_cli.ok("sandbox", "tags").stdout  # text even when piped: `| grep` works
    assert not sheet.startswith("{")
    assert next(line for line in sheet.splitlines() if "#hostile" in line).strip() != "#hostile"
    for tag in ("#2fa", "#questions", "#approval", "#ask-expire", "#hostile", "#fail-delivery"):
        assert tag in sheet
    serve_help = " ".join(bare_cli.ok("sandbox", "serve", "--help").stdout.split())
    assert "#hostile" in serve_help and "#fail-delivery" in serve_help
    doc = bare_cli.ok("--json", "sandbox", "tags").json()
    assert "#hostile" in [row["tag"] for row in doc["task_tags"]]
    assert "#ready" in doc["quote_tags"]


def test_tags_match_the_sandbox_scenarios() -> None:
    """The cheat-sheet is plain data; it must name every scenario the sandbox knows."""
    from svc.commands.sandbox.scenario_tags import TASK_TAGS
    from svc_sandbox.scenarios import SCENARIOS

    listed = {tag.lstrip("#") for tag, _ in TASK_TAGS}
    assert set(SCENARIOS) <= listed


def test_serve_prints_a_banner_on_stderr_and_only_the_url_on_stdout(bare_cli: Cli) -> None:
    proc = subprocess.Popen(
        [SVC, "sandbox", "serve", "--port", "0"],
        env=bare_cli.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stderr is not None
        url_line = proc.stdout.readline()
        assert url_line.startswith("SANDBOX_URL=http://127.0.0.1:")
        url = url_line.split("=", 1)[1].strip()
        banner = [proc.stderr.readline() for _ in range(8)]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    text = "".join(banner)
    assert f"export SVC_BASE_URL={url}" in text
    assert "svc sandbox approve" in text and "svc sandbox claim-code" in text
    assert "svc sandbox tags" in text and len(banner) <= 24  # one screen


@pytest.mark.parametrize(
    "args",
    [
        ["poll", ""],
        ["watch", ""],
        ["watch", "task_1", ""],
        ["reply", "", "--message", "hi"],
        ["pay", "card", ""],
        ["sandbox", "approve", ""],
        ["sandbox", "claim-code", "--attempt", ""],
    ],
)
def test_an_empty_id_is_a_usage_error_before_any_request(
    cli: Cli, sandbox: Sandbox, args: list[str]
) -> None:
    """Against a live sandbox, so an id that reached the URL would show (`/svc/tasks/` is a
    307 redirect there, the "HTTP 307" of issue 15)."""
    before = sandbox.admin("GET", "/requests")["count"]
    result = cli(*args)
    assert result.returncode == 2, (args, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) <= 2 and lines[0].startswith("svc: invalid "), result.stderr
    assert "307" not in result.stderr and "internal error" not in result.stderr
    assert sandbox.admin("GET", "/requests")["count"] == before


def test_quote_on_a_terminal_shows_the_guide_url_once(cli: Cli) -> None:
    env = {k: v for k, v in cli.env.items() if k != "CI"}
    child = pexpect.spawn(
        SVC,
        ["quote", "Renew my library books"],
        env=env,
        encoding="utf-8",
        dimensions=(60, 200),
    )
    child.expect(pexpect.EOF, timeout=30)
    child.close()
    assert child.exitstatus == 0, child.before
    assert child.before.count("/svc/agent/guide?goal=") == 1, child.before


def test_browser_set_opens_that_browser_and_claim_code_finishes_it(
    cli: Cli, tmp_path: Path
) -> None:
    """With BROWSER set (a graphical session), Enter opens the link in that browser, here a
    script that records its call; the person's part is then done by `svc sandbox claim-code`."""
    cli.ok("identity", "register", "--email", unique_email())
    calls, browser = tmp_path / "calls.txt", tmp_path / "fake-browser"
    browser.write_text(f'#!/bin/sh\necho "$*" >> {calls}\n')
    browser.chmod(0o755)
    env = {k: v for k, v in cli.env.items() if k not in ("CI", "DISPLAY", "WAYLAND_DISPLAY")}
    env["BROWSER"] = str(browser)
    child = pexpect.spawn(
        SVC, ["identity", "claim"], env=env, encoding="utf-8", timeout=30, dimensions=(60, 160)
    )
    child.expect(r"Open: (\S+)")
    link = child.match.group(1)
    child.expect("Press Enter to open")
    child.sendline("")
    child.expect("Code shown on the page")
    assert calls.read_text().strip() == link  # the browser got the link, nothing else ran
    child.sendline(cli.ok("sandbox", "claim-code").json()["user_code"])
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    assert "no graphical session" not in (child.before or "")
