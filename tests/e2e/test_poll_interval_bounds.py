"""`--interval` is bounded on every host, loopback sandbox included, to 1 s .. 3600 s (issue
52), and a bad value is refused in svc's own words (exit 2) before anything is polled or paid.
The poll interval setting (config poll_interval, SVC_POLL_INTERVAL) takes the same range."""

from __future__ import annotations

import pytest
from tests.conftest import Cli, Sandbox, unique_email, unique_request_id

pytestmark = pytest.mark.e2e

RANGE = "must be a number of seconds from 1 to 3600"


def finished_task(cli: Cli, sandbox: Sandbox) -> str:
    """A task already final: a watch of it ends at its first poll, whatever the interval."""
    task = cli.ok("submit", "Done #complete", "--email", unique_email()).json()
    sandbox.advance(25)  # past the sandbox's work time
    return str(task["id"])


# Refused before the first poll: the task need not exist.
UNKNOWN = "task_0123456789abcdef"


@pytest.mark.parametrize("value", ["99999", "3600.5", "0.5", "0", "abc", "nan", "inf", "-5"])
def test_watch_refuses_an_interval_out_of_range_on_the_loopback_sandbox(
    cli: Cli, sandbox: Sandbox, value: str
) -> None:
    result = cli("watch", UNKNOWN, "--interval", value)
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines()[0] == f"svc: --interval {RANGE}, got {value!r}"
    assert "Input should be" not in result.stderr and "pydantic" not in result.stderr
    assert result.json()["error"] == "usage_error"


def test_watch_takes_an_interval_within_the_range(cli: Cli, sandbox: Sandbox) -> None:
    task_id = finished_task(cli, sandbox)
    for value in ("1", "3600", "2.5", " 60 "):
        result = cli("watch", task_id, "--interval", value)
        assert result.returncode == 0, (value, result.stderr)
        assert result.lines()[-1]["state"] == "completed"


@pytest.mark.parametrize("value", ["abc", "0.5", "99999"])
def test_submit_wait_refuses_a_bad_interval_before_paying(
    cli: Cli, sandbox: Sandbox, value: str
) -> None:
    rid = unique_request_id()
    args = ("submit", "Any #complete", "--email", unique_email(), "--request-id", rid)
    result = cli(*args, "--wait", "--interval", value, timeout=30)
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines()[0] == f"svc: --interval {RANGE}, got {value!r}"
    assert sandbox.charges_for(rid) == []


@pytest.mark.parametrize("value", ["99999", "0.5"])
def test_the_poll_interval_setting_takes_the_same_range(
    cli: Cli, sandbox: Sandbox, value: str
) -> None:
    result = cli("watch", UNKNOWN, env={"SVC_POLL_INTERVAL": value})
    assert result.returncode == 2, result.stderr
    assert f"poll_interval (env SVC_POLL_INTERVAL) {RANGE}, got {value!r}" in result.stderr
    refused = cli("config", "set", "poll_interval", value)
    assert refused.returncode == 2 and RANGE in refused.stderr
