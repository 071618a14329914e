"""Common mistakes end in one line, a `hint:` and the contract's exit code (issue 15, item 6).

Each case is what a new user typed: a mistyped flag, the sandbox on a busy port or on every
interface, a poll while the sandbox is down. None of them may say "internal error".
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest
from tests.conftest import Cli, Result

pytestmark = pytest.mark.e2e


def one_error(result: Result, code: int) -> tuple[str, str]:
    """The error line and the hint line; nothing else on stderr."""
    assert result.returncode == code, (result.returncode, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 2, result.stderr
    assert lines[0].startswith("svc: ") and lines[1].startswith("hint: "), result.stderr
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr
    return lines[0], lines[1]


@pytest.mark.parametrize(
    ("args", "needle", "hint"),
    [
        (["poll", "--bogus", "task_1"], "No such option: --bogus", "see 'svc poll --help'"),
        (["nosuch"], "No such command 'nosuch'", "see 'svc --help'"),
        (["tasks", "--limit", "many"], "Invalid value for '--limit'", "see 'svc tasks --help'"),
        (["watch", "--interval"], "Option '--interval' requires an argument", "svc watch --help"),
    ],
)
def test_a_usage_error_is_one_line_and_a_hint(
    bare_cli: Cli, args: list[str], needle: str, hint: str
) -> None:
    line, hint_line = one_error(bare_cli(*args), 2)
    assert needle in line and "Value error" not in line
    assert hint in hint_line
    assert "Usage:" not in line


def test_a_usage_error_under_json_is_a_json_document(bare_cli: Cli) -> None:
    result = bare_cli("--json", "poll", "--bogus", "task_1")
    one_error(result, 2)
    doc = json.loads(result.stdout)
    assert doc["error"] == "usage_error" and doc["exit_code"] == 2
    assert "--bogus" in doc["detail"] and doc["hint"] == "see 'svc poll --help'"


def test_serve_on_every_interface_needs_allow_remote(bare_cli: Cli) -> None:
    line, hint = one_error(bare_cli("sandbox", "serve", "--host", "0.0.0.0", "--port", "0"), 2)
    assert "refusing to listen on 0.0.0.0" in line
    assert "--allow-remote" in hint
    help_text = bare_cli.ok("sandbox", "serve", "--help").stdout
    assert "--allow-remote" in help_text  # the flag the help offers exists


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield listener.getsockname()[1]


def test_serve_on_a_busy_port_names_it_and_offers_port_0(bare_cli: Cli, busy_port: int) -> None:
    line, hint = one_error(bare_cli("sandbox", "serve", "--port", str(busy_port)), 2)
    assert f"port {busy_port} on 127.0.0.1 is already in use" in line
    assert f"http://127.0.0.1:{busy_port}" in line
    assert "--port 0" in hint


def test_serve_on_a_host_that_does_not_resolve(bare_cli: Cli) -> None:
    result = bare_cli("sandbox", "serve", "--host", "no-such-host.invalid", "--allow-remote")
    line, _ = one_error(result, 2)
    assert "cannot listen on no-such-host.invalid:8402" in line


def test_exit_9_on_loopback_says_to_start_the_sandbox(bare_cli: Cli) -> None:
    line, hint = one_error(bare_cli("poll", "task_1"), 9)
    assert "cannot connect to http://127.0.0.1:9" in line
    assert "svc sandbox serve" in hint and "is the sandbox running?" in hint


def test_a_usage_error_echoes_what_was_typed_inert(bare_cli: Cli) -> None:
    """Click quotes the bad value back; a pasted escape sequence (clipboard, title) must not
    reach the terminal, in the line or in the JSON error."""
    hostile = "\x1b]52;c;cHduZWQ=\x07\x1b]0;title\x07many"
    result = bare_cli("--json", "tasks", "--limit", hostile)
    line, _ = one_error(result, 2)
    assert "Invalid value for '--limit'" in line
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr
    doc = json.loads(result.stdout)
    assert doc["exit_code"] == 2 and "\x1b" not in doc["detail"] and "\x07" not in doc["detail"]
