"""The scripts of examples/ run as a user runs them (issue 32.5): each a real Python process
with its own home, pointed at the sandbox through the environment exactly as `svc` is (the
`cli` fixture's home and variables), its output and the service's books checked.

- submit_and_wait.py: a paid `#2fa` task watched to its ask, the code answered from stdin as a
  Secret (never echoed), watched to completed; one charge, which `svc spend` shows;
- fan_out.py: 100 tasks submitted and watched by one AsyncClient, all completed, 100 charges;
- agent_tool.py: the tool function's answer for a completed task, its error object for a
  refused price (nothing paid), and the schema a framework registers it with.
"""

from __future__ import annotations

import json
import re
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import Cli, Sandbox, unique_email

pytestmark = pytest.mark.e2e

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def fast_clock(sandbox: Sandbox) -> Iterator[None]:
    """Tasks that take ~20 s of sandbox time end in about a second (restored after: the
    sandbox is the session's)."""
    sandbox.admin("POST", "/clock", json={"speed": 20})
    try:
        yield
    finally:
        sandbox.admin("POST", "/clock", json={"speed": 1})


def run_example(
    cli: Cli,
    script: str,
    *args: str,
    input: str = "",
    env: dict[str, str] | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        input=input,
        env={**cli.env, **(env or {})},
        cwd=cli.home,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def spend(cli: Cli, env: dict[str, str] | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = cli.ok("spend", "--json", env=env).json()
    return doc


def test_submit_and_wait_answers_the_2fa_ask_from_stdin_and_pays_once(
    cli: Cli, sandbox: Sandbox, fast_clock: None
) -> None:
    code = "418302"
    email = unique_email()
    proc = run_example(
        cli, "submit_and_wait.py", "Book a table for two at 7pm #2fa", email, input=code + "\n"
    )
    assert proc.returncode == 0, proc.stderr
    task = json.loads(proc.stdout)
    assert task["state"] == "completed" and task["result"]
    assert "asks for" in proc.stderr and ": ask blocked_on_user" in proc.stderr
    assert code not in proc.stdout + proc.stderr  # the secret is never shown back
    found = re.search(r"request id (req_\w+)", proc.stderr)
    assert found, proc.stderr
    request_id = found.group(1)
    charges = sandbox.charges_for(request_id)
    assert len(charges) == 1 and charges[0]["amount_atomic"] == 1_500_000
    books = spend(cli)
    assert books["paid_count"] == 1 and books["total_usd"] == "1.500000"
    # The CLI reads the same ledger and sees the same task.
    assert cli.ok("poll", task["id"], "--json").json()["state"] == "completed"


def test_submit_and_wait_exits_6_when_nobody_gives_the_code(
    cli: Cli, sandbox: Sandbox, fast_clock: None
) -> None:
    proc = run_example(cli, "submit_and_wait.py", "Renew my passport #2fa", unique_email())
    assert proc.returncode == 6, proc.stderr
    task = json.loads(proc.stdout)
    assert task["state"] == "blocked_on_user"
    assert f"svc reply {task['id']}" in proc.stderr


def test_submit_and_wait_exits_with_the_cli_code_when_the_policy_refuses(cli: Cli) -> None:
    proc = run_example(
        cli,
        "submit_and_wait.py",
        "Too dear #complete",
        unique_email(),
        env={"SVC_MAX_PRICE": "1.00"},
    )
    assert proc.returncode == 5, proc.stderr
    assert proc.stdout == ""
    assert "error: refusing to pay" in proc.stderr
    assert spend(cli)["paid_count"] == 0


def test_fan_out_submits_and_follows_100_tasks_in_one_event_loop(
    cli: Cli, sandbox: Sandbox, fast_clock: None
) -> None:
    # Its own payer (a fresh key, which the sandbox funds with 1,000 test USDC), so the 150 USD
    # do not come out of the session's test wallet; no daily cap, as the script's help says.
    key = "0x" + secrets.token_hex(32)
    env = {"SVC_WALLET_KEY": key, "SVC_DAILY_CAP": "none"}
    n = 100
    proc = run_example(
        cli, "fan_out.py", str(n), unique_email(), "Renew my library books", env=env, timeout=240
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary == {"tasks": n, "submitted": n, "outcomes": {"completed": n}}
    from eth_account import Account

    payer = Account.from_key(key).address.lower()
    charges = [c for c in sandbox.books()["charges"] if c.get("payer", "").lower() == payer]
    assert len(charges) == n and len({c["request_id"] for c in charges}) == n
    books = spend(cli, env=env)
    assert books["paid_count"] == n and books["total_usd"] == "150.000000"


def test_fan_out_without_lifting_the_daily_cap_stops_at_it(
    cli: Cli, sandbox: Sandbox, fast_clock: None
) -> None:
    key = "0x" + secrets.token_hex(32)
    env = {"SVC_WALLET_KEY": key}
    proc = run_example(cli, "fan_out.py", "12", unique_email(), "Water the plants", env=env)
    assert proc.returncode == 1, proc.stderr
    summary = json.loads(proc.stdout)
    # A fresh home's 15.00 USD a day: ten tasks paid (concurrently), two refused by the cap.
    assert summary == {
        "tasks": 12,
        "submitted": 10,
        "outcomes": {"completed": 10, "daily_cap_exceeded": 2},
    }
    assert spend(cli, env=env)["total_usd"] == "15.000000"


def test_the_agent_tool_returns_the_finished_task_as_data(
    cli: Cli, sandbox: Sandbox, fast_clock: None
) -> None:
    proc = run_example(cli, "agent_tool.py", "Renew my library books #complete", unique_email())
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert answer["state"] == "completed" and answer["error"] is None
    assert isinstance(answer["result"], dict) and answer["result"]
    assert cli.ok("poll", answer["task_id"], "--json").json()["result"] == answer["result"]


def test_the_agent_tool_returns_a_refused_price_as_an_error_object(cli: Cli) -> None:
    proc = run_example(cli, "agent_tool.py", "Too dear #complete", unique_email(), "1.00")
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert answer["error"] == "policy_refused" and answer["exit_code"] == 5
    assert "1.00" in answer["detail"]
    assert spend(cli)["paid_count"] == 0


def test_the_agent_tool_describes_itself_as_function_calling_apis_want(cli: Cli) -> None:
    proc = run_example(cli, "agent_tool.py", "--schema")
    assert proc.returncode == 0, proc.stderr
    tool = json.loads(proc.stdout)
    assert tool["name"] == "run_task"
    assert tool["description"].startswith("Have the task service carry out")
    params = tool["parameters"]
    assert params["type"] == "object" and params["required"] == ["task", "email"]
    assert set(params["properties"]) == {"task", "email", "max_price_usd"}
    assert params["properties"]["max_price_usd"]["default"] == "1.50"


def test_the_guides_at_a_glance_snippet_runs_as_printed(
    cli: Cli, sandbox: Sandbox, fast_clock: None
) -> None:
    guide = (EXAMPLES.parent / "docs" / "python.md").read_text(encoding="utf-8")
    section = guide.split("\n## At a glance\n", 1)[1].split("\n## ", 1)[0]
    code = re.findall(r"```python\n(.*?)\n```", section, re.S)
    assert len(code) == 1
    proc = subprocess.run(
        [sys.executable, "-c", code[0]],
        env=cli.env,
        cwd=cli.home,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "ask blocked_on_user"
    (row,) = cli.ok("tasks", "--json").json()
    task = cli.ok("poll", row["task_id"], "--json").json()
    replies = [e for e in task["events"] if e["type"] == "reply_received"]
    assert len(replies) == 1 and replies[0]["payload"]["field"] == "sms_code"
    assert "123456" not in json.dumps(task)  # sent as sensitive: the service keeps it redacted
