"""`svc mcp` reads the host's requests from `sys.stdin`, whatever that is: fd 0 for a process
(claimed, tests/e2e/test_mcp_signals.py), and the stream itself where a library host or a test
runner has put another in its place (never the process's fd 0 behind its back)."""

from __future__ import annotations

import json
import os

from tests.conftest import Cli
from tests.mcp_wire import INITIALIZED, initialize


def test_requests_come_from_the_stdin_the_process_was_given(cli: Cli) -> None:
    """The in-process runner gives `main` a piped stream as `sys.stdin`; before, the server
    read the test process's own fd 0 and never saw the host's `initialize`. (A request after
    it may go unanswered: the SDK ends the session at end of input, as a host that closed
    stdin expects.)"""
    fd0 = os.fstat(0)
    lines = [initialize("replaced-stdin"), INITIALIZED]
    result = cli("mcp", input="".join(json.dumps(line) + "\n" for line in lines))
    assert result.returncode == 0, result.stderr
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert [doc["id"] for doc in answers] == [1], answers
    assert answers[0]["result"]["serverInfo"]["name"] == "svc"
    after = os.fstat(0)
    assert (after.st_dev, after.st_ino) == (fd0.st_dev, fd0.st_ino)  # fd 0 left alone
