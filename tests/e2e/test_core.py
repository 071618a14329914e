"""The core promise, end to end: the installed `svc` against the sandbox on loopback.

Submit and pay with x402, poll, watch and reply through every state and transition row of the
spec, with the contract's exit codes and one clear line for every bad input.
"""

from __future__ import annotations

import base64
import json
import subprocess
import uuid
from pathlib import Path

import pytest
from tests.conftest import SVC, TEST_ADDRESS, TEST_KEY, Cli, Sandbox, has_jq, unique_email
from tests.ledger_reads import ledger_file, submission_row

pytestmark = pytest.mark.e2e


def submit(cli: Cli, task: str, *extra: str, request_id: str | None = None) -> dict:
    rid = request_id or f"req_{uuid.uuid4().hex}"
    result = cli.ok("submit", task, "--email", unique_email(), "--request-id", rid, *extra)
    doc = result.json()
    doc["_request_id"] = rid
    return doc


def poll(cli: Cli, task_id: str) -> dict:
    return cli.ok("poll", task_id).json()


# --- submit and pay ---------------------------------------------------------------------------


def test_submit_pays_once_with_x402_and_prints_the_task(cli: Cli, sandbox: Sandbox) -> None:
    task = submit(cli, "Renew my library books #complete")
    assert task["state"] == "pending"
    assert set(task) >= {
        "id",
        "state",
        "goal",
        "flow",
        "max_budget_usd",
        "webhook_url",
        "result",
        "error",
        "created_at",
        "updated_at",
        "completed_at",
    }
    charges = sandbox.charges_for(task["_request_id"])
    assert len(charges) == 1
    assert charges[0]["amount_atomic"] == 1_500_000
    assert charges[0]["payer"].lower() == TEST_ADDRESS.lower()
    ledger = cli.ok("tasks").json()
    row = next(r for r in ledger if r["request_id"] == task["_request_id"])
    assert row["task_id"] == task["id"] and row["status"] == "accepted" and row["has_proof"]
    assert "proof" not in row  # the ledger's proof never reaches output


def test_same_request_id_returns_the_original_task_and_charges_once(
    cli: Cli, sandbox: Sandbox
) -> None:
    rid = f"req_{uuid.uuid4().hex}"
    email = unique_email()
    first = cli.ok("submit", "Idempotent #complete", "--email", email, "--request-id", rid).json()
    again = cli.ok("submit", "Idempotent #complete", "--email", email, "--request-id", rid)
    assert again.json()["id"] == first["id"]
    assert "not charged again" in again.stderr
    assert len(sandbox.charges_for(rid)) == 1
    spend = cli.ok("spend").json()
    assert spend["paid_count"] == 1 and spend["total_usd"] == "1.500000"


def test_request_id_reused_for_another_task_is_refused(cli: Cli) -> None:
    rid = f"req_{uuid.uuid4().hex}"
    cli.ok("submit", "First #complete", "--email", unique_email(), "--request-id", rid)
    result = cli("submit", "Second #complete", "--email", unique_email(), "--request-id", rid)
    assert result.returncode == 2
    assert "already used for a different task" in result.stderr


def test_price_above_max_price_is_refused_before_signing(cli: Cli, sandbox: Sandbox) -> None:
    rid = f"req_{uuid.uuid4().hex}"
    before = sandbox.books()
    result = cli(
        "submit",
        "Too dear #complete",
        "--email",
        unique_email(),
        "--request-id",
        rid,
        "--max-price",
        "1.00",
    )
    assert result.returncode == 5
    assert "above the limit 1.00 USD" in result.stderr
    after = sandbox.books()
    assert after["charges"] == before["charges"]
    assert after["settlement_failures"] == before["settlement_failures"]
    row = next(r for r in cli.ok("tasks").json() if r["request_id"] == rid)
    assert row["status"] == "rejected" and not row["has_proof"]


def test_price_raised_by_the_service_is_refused_by_the_default_cap(
    cli: Cli, sandbox: Sandbox
) -> None:
    sandbox.configure(price_atomic=2_000_000)
    result = cli("submit", "Dear #complete", "--email", unique_email())
    assert result.returncode == 5
    assert "price 2.00 USD is above the limit 1.50 USD" in result.stderr


def test_changed_recipient_is_refused_until_trusted(cli: Cli, sandbox: Sandbox) -> None:
    submit(cli, "Pin the recipient #complete")
    sandbox.configure(pay_to="0x" + "12" * 20)
    refused = cli("submit", "New recipient #complete", "--email", unique_email())
    assert refused.returncode == 5
    assert "recipient changed" in refused.stderr
    trusted = submit(cli, "Trusted now #complete", "--trust-recipient")
    assert sandbox.charges_for(trusted["_request_id"])[0]["amount_atomic"] == 1_500_000


def test_insufficient_funds_is_a_payment_error_and_nothing_is_charged(
    cli: Cli, sandbox: Sandbox
) -> None:
    sandbox.admin("POST", f"/wallets/{TEST_ADDRESS}", json={"balance_atomic": 0})
    try:
        rid = f"req_{uuid.uuid4().hex}"
        result = cli("submit", "Broke #complete", "--email", unique_email(), "--request-id", rid)
        assert result.returncode == 5
        assert "settlement_failed" in result.stderr and "insufficient_funds" in result.stderr
        assert sandbox.charges_for(rid) == []
    finally:
        sandbox.admin("POST", f"/wallets/{TEST_ADDRESS}", json={"balance_atomic": 1_000_000_000})


def test_submit_without_a_wallet_says_how_to_get_one(cli: Cli, tmp_path: Path) -> None:
    empty = Cli(cli.home, {**cli.env, "SVC_CONFIG_DIR": str(tmp_path / "other")})
    result = empty("submit", "No wallet #complete", "--email", unique_email())
    assert result.returncode == 5
    assert "no wallet" in result.stderr and "svc wallet create" in result.stderr


def test_wallet_key_from_the_environment_pays(cli: Cli, sandbox: Sandbox, tmp_path: Path) -> None:
    key = "0x" + "11" * 32
    env_cli = Cli(
        cli.home, {**cli.env, "SVC_CONFIG_DIR": str(tmp_path / "envwallet"), "SVC_WALLET_KEY": key}
    )
    task = submit(env_cli, "Env wallet #complete")
    payer = sandbox.charges_for(task["_request_id"])[0]["payer"]
    assert payer.lower() == env_cli.ok("wallet", "address").json()["address"].lower()


# --- lost answers, faults, retries -------------------------------------------------------------


def test_lost_answer_to_a_paid_submit_exits_10_and_reconciles_without_paying_again(
    cli: Cli, sandbox: Sandbox
) -> None:
    rid = f"req_{uuid.uuid4().hex}"
    email = unique_email()
    sandbox.faults(
        {
            "kind": "drop_after",
            "method": "POST",
            "path": "/svc/tasks",
            "header": "x-payment",
            "count": 10,
        }
    )
    lost = cli("submit", "Lost answer #complete", "--email", email, "--request-id", rid)
    assert lost.returncode == 10
    assert "may have been charged" in lost.stderr and rid in lost.stderr
    row = next(r for r in cli.ok("tasks").json() if r["request_id"] == rid)
    assert row["status"] == "unknown"
    sandbox.clear_faults()
    resumed = cli.ok("submit", "Lost answer #complete", "--email", email, "--request-id", rid)
    assert resumed.json()["id"]
    assert len(sandbox.charges_for(rid)) == 1


def test_dropped_connection_before_the_server_sees_it_is_retried_once_paid(
    cli: Cli, sandbox: Sandbox
) -> None:
    rid = f"req_{uuid.uuid4().hex}"
    sandbox.faults(
        {
            "kind": "drop_before",
            "method": "POST",
            "path": "/svc/tasks",
            "header": "x-payment",
            "count": 1,
        }
    )
    cli.ok("submit", "Flaky network #complete", "--email", unique_email(), "--request-id", rid)
    assert len(sandbox.charges_for(rid)) == 1


def test_poll_retries_5xx_and_429_with_retry_after(cli: Cli, sandbox: Sandbox) -> None:
    task = submit(cli, "Retry reads #complete")
    sandbox.faults(
        {"kind": "status", "status": 503, "method": "GET", "path": "/svc/tasks/", "count": 1},
        {
            "kind": "status",
            "status": 429,
            "retry_after": 1,
            "method": "GET",
            "path": "/svc/tasks/",
            "count": 1,
        },
    )
    assert poll(cli, task["id"])["id"] == task["id"]


def test_service_down_is_exit_9_and_says_nothing_was_charged(bare_cli: Cli) -> None:
    bare_cli.ok("wallet", "create")
    result = bare_cli("submit", "Nobody home", "--email", unique_email())
    assert result.returncode == 9
    assert "cannot connect" in result.stderr and "nothing was charged" in result.stderr
    polled = bare_cli("poll", "task_x")
    assert polled.returncode == 9


def test_persistent_5xx_on_poll_is_exit_9(cli: Cli, sandbox: Sandbox) -> None:
    sandbox.faults(
        {"kind": "status", "status": 500, "method": "GET", "path": "/svc/tasks/", "count": 10}
    )
    result = cli("poll", "task_whatever")
    assert result.returncode == 9
    assert "HTTP 500" in result.stderr


# --- states and transitions ----------------------------------------------------------------------


def test_complete_scenario_poll_watch_and_exit_status(cli: Cli, sandbox: Sandbox) -> None:
    task = submit(cli, "Finish it #complete")
    assert cli("poll", task["id"], "--exit-status").returncode == 11  # still live: pending
    sandbox.advance(25)
    done = poll(cli, task["id"])
    assert done["state"] == "completed"
    assert done["result"]["summary"] and done["reason"] and done["completed_at"]
    assert [e["to_state"] for e in done["events"] if e["to_state"]] == ["pending", "completed"]
    assert cli("poll", task["id"], "--exit-status").returncode == 0
    watched = cli("watch", task["id"])
    assert watched.returncode == 0
    assert watched.lines()[-1]["state"] == "completed"


@pytest.mark.parametrize(("tag", "state"), [("#fail", "failed"), ("#cancel", "cancelled")])
def test_failed_and_cancelled_tasks_exit_3(
    cli: Cli, sandbox: Sandbox, tag: str, state: str
) -> None:
    task = submit(cli, f"Unlucky {tag}")
    sandbox.advance(25)
    watched = cli("watch", task["id"])
    assert watched.returncode == 3
    assert f"ended {state}" in watched.stderr
    assert watched.lines()[-1]["state"] == state
    assert cli("poll", task["id"], "--exit-status").returncode == 3


def test_2fa_plain_ask_watch_exits_6_then_reply_resumes_and_purges_the_secret(
    cli: Cli, sandbox: Sandbox
) -> None:
    task = submit(cli, "Log in and pay my bill #2fa")
    sandbox.advance(11)
    waiting = cli("watch", task["id"], "--no-input")
    assert waiting.returncode == 6
    assert "waits on the user" in waiting.stderr and f"svc reply {task['id']}" in waiting.stderr
    blocked = waiting.lines()[-1]
    assert blocked["state"] == "blocked_on_user" and blocked.get("info_request") is None
    answered = cli.ok(
        "reply", task["id"], "--field", "sms_code", "--value-file", "-", input="123456\n"
    )
    assert answered.json()["state"] == "pending"
    assert "123456" not in answered.stdout
    assert sandbox.internals(task["id"])["sensitive_values_stored"] == 1
    sandbox.advance(25)
    assert cli("watch", task["id"]).returncode == 0
    assert sandbox.internals(task["id"])["sensitive_values_stored"] == 0
    events = poll(cli, task["id"])["events"]
    assert "123456" not in json.dumps(events)


def test_plain_ask_answered_with_a_message(cli: Cli, sandbox: Sandbox) -> None:
    task = submit(cli, "Needs a word #2fa")
    sandbox.advance(11)
    answered = cli.ok("reply", task["id"], "--message", "The code is on its way")
    assert answered.json()["state"] == "pending"


def test_structured_ask_checks_keys_before_sending_then_resumes(cli: Cli, sandbox: Sandbox) -> None:
    task = submit(cli, "Ship my order #questions")
    sandbox.advance(11)
    detail = poll(cli, task["id"])
    ask = detail["info_request"]
    assert detail["state"] == "blocked_on_user"
    assert ask["requested_fields"] == ["shipping_address", "phone"]
    assert [q["key"] for q in ask["questions"]] == ["seat_preference"]
    wrong = cli("reply", task["id"], "--set", "shipping_address=1 Main St", "--set", "colour=red")
    assert wrong.returncode == 2
    assert (
        "missing phone, seat_preference" in wrong.stderr and "not asked for: colour" in wrong.stderr
    )
    empty = cli(
        "reply",
        task["id"],
        "--set",
        "shipping_address=",
        "--set",
        "phone=1",
        "--set",
        "seat_preference=aisle",
    )
    assert empty.returncode == 2 and "empty value for shipping_address" in empty.stderr
    assert poll(cli, task["id"])["state"] == "blocked_on_user"  # nothing was sent
    ok = cli.ok(
        "reply",
        task["id"],
        "--set",
        "shipping_address=1 Main St",
        "--set",
        "phone=5550100",
        "--set",
        "seat_preference=aisle",
    )
    assert ok.json()["state"] == "pending"
    sandbox.advance(25)
    final = poll(cli, task["id"])
    assert final["state"] == "completed"
    assert "seat_preference" in final["goal"]  # answers are folded into the goal


def test_payment_ask_is_reconciled_when_polled_after_the_user_approves(
    cli: Cli, sandbox: Sandbox
) -> None:
    task = submit(cli, "Buy the flight #approval")
    sandbox.advance(11)
    ask = poll(cli, task["id"])["info_request"]
    assert (
        ask["amount_usd"] == 42.5
        and ask["merchant_name"]
        and ask["payment_status"] == "pending_approval"
    )
    sandbox.admin("POST", f"/tasks/{task['id']}/approve")
    assert poll(cli, task["id"])["state"] == "pending"
    sandbox.advance(25)
    assert poll(cli, task["id"])["state"] == "completed"


def test_declining_a_payment_fails_the_task_with_payment_rejected(
    cli: Cli, sandbox: Sandbox
) -> None:
    task = submit(cli, "Buy it #decline")
    sandbox.advance(11)
    declined = cli.ok("reply", task["id"], "--decline-payment")
    assert declined.json()["state"] == "failed"
    assert declined.json()["error"] == "payment_rejected"
    watched = cli("watch", task["id"])
    assert watched.returncode == 3 and "payment_rejected" in watched.stderr


def test_expired_approval_is_resent_and_early_approve_is_a_conflict(
    cli: Cli, sandbox: Sandbox
) -> None:
    task = submit(cli, "Buy it later #approval-expire")
    sandbox.advance(11)
    early = cli("reply", task["id"], "--approve-payment")
    assert early.returncode == 8
    assert "409" in early.stderr
    sandbox.advance(15)
    assert poll(cli, task["id"])["info_request"]["payment_status"] == "approval_expired"
    resent = cli.ok("reply", task["id"], "--approve-payment").json()
    assert resent["state"] == "blocked_on_user"
    assert resent["info_request"]["payment_status"] == "pending_approval"
    events = poll(cli, task["id"])["events"]
    assert any(e["type"] == "approval_resent" for e in events)


def test_reply_after_the_ask_expired_is_410_exit_8(cli: Cli, sandbox: Sandbox) -> None:
    task = submit(cli, "Answer me quickly #ask-expire")
    sandbox.advance(11)
    sandbox.advance(65)
    result = cli(
        "reply",
        task["id"],
        "--set",
        "shipping_address=x",
        "--set",
        "phone=1",
        "--set",
        "seat_preference=aisle",
    )
    assert result.returncode == 8
    assert "410" in result.stderr


def test_reply_to_a_task_that_is_not_waiting_is_a_conflict(cli: Cli, sandbox: Sandbox) -> None:
    task = submit(cli, "Nothing to ask #complete")
    result = cli("reply", task["id"], "--message", "hello")
    assert result.returncode == 8
    assert "not waiting on a reply" in result.stderr


# --- scoping ------------------------------------------------------------------------------------


def test_tasks_are_scoped_to_the_paying_agent(cli: Cli, sandbox: Sandbox, tmp_path: Path) -> None:
    task = submit(cli, "Mine only #complete")
    sandbox.configure(require_agent=True)
    assert poll(cli, task["id"])["id"] == task["id"]  # answers the zero-amount 402 itself
    other = Cli(
        cli.home,
        {**cli.env, "SVC_CONFIG_DIR": str(tmp_path / "other"), "SVC_WALLET_KEY": "0x" + "22" * 32},
    )
    result = other("poll", task["id"])
    assert result.returncode == 7
    assert "404" in result.stderr
    assert sandbox.charges_for(task["_request_id"])[0]["amount_atomic"] == 1_500_000


# --- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (
            ["submit", "", "--email", "a@example.com"],
            "task: String should have at least 1 character",
        ),
        (["submit", "x", "--email", "nope"], "malformed e-mail address"),
        (["submit", "x", "--email", "ab"], "email: String should have at least 3 characters"),
        (["submit", "x"], "missing --email"),
        (["submit", "--email", "a@example.com"], "missing TASK"),
        (["submit", "--file", "/nonexistent/task.txt", "--email", "a@example.com"], "no such file"),
        (["submit", "--file", "/", "--email", "a@example.com"], "is a directory"),
        (
            ["submit", "x", "--email", "a@example.com", "--max-price", "lots"],
            "--max-price must be a USD amount",
        ),
        (
            ["submit", "x", "--email", "a@example.com", "--request-id", "short"],
            "invalid request id 'short': a request id is 8-128",
        ),
        (
            ["submit", "x", "--email", "a@example.com", "--pay", "cash"],
            "--pay must be x402, mpp or card",
        ),
        (["reply", "task_1", "--approve-payment", "--decline-payment"], "exclude each other"),
        (["reply", "task_1", "--value-file", "-"], "--value-file goes with --field"),
        (["reply", "task_1", "--set", "novalue"], "--set takes KEY=VALUE"),
        (["watch", "task_1", "--interval", "0"], "--interval must be a number of seconds from 1"),
        (["watch", "task_1", "--interval", "nan"], "from 1 to 3600, got 'nan'"),
        (
            ["submit", "x", "--email", "a@example.com", "--max-price", "nan"],
            "--max-price must be a non-negative USD amount, got 'nan'",
        ),
        (["config", "set", "poll_interval", "inf"], "poll_interval must be a number of seconds"),
        (
            ["config", "set", "daily_cap_usd", "--", "-1"],
            "daily_cap_usd must be a non-negative USD amount",
        ),
        (["config", "set", "colour", "blue"], "unknown config key"),
        (["config", "set", "max_price_usd", "much"], "must be a USD amount"),
        (["--base-url", "ftp://x", "poll", "t"], "base URL setting is not an http(s) URL"),
    ],
)
def test_bad_input_is_one_clear_line_and_exit_2(cli: Cli, args: list[str], needle: str) -> None:
    result = cli(*args)
    assert result.returncode == 2, result.stderr
    assert needle in result.stderr
    assert len([line for line in result.stderr.splitlines() if line.startswith("svc:")]) == 1


@pytest.mark.parametrize(
    ("args", "stdin", "code", "needle"),
    [
        (
            ["submit", "x", "--file", "{task}", "--email", "a@example.com"],
            None,
            2,
            "give the task as an argument or with --file, not both",
        ),
        (
            ["submit", "--file", "{latin1}", "--email", "a@example.com"],
            None,
            2,
            "cannot read the task file: {latin1} is not UTF-8 text",
        ),
        (["wallet", "import", "--force"], "nonsense\n", 2, "not a usable private key"),
        (["config", "unset", "email"], None, 2, "email is not set in profile default"),
        (["services", "show", ""], None, 2, "the service slug is empty"),
        (
            ["pay", "card", "req_0123456789abcdef0123"],
            None,
            7,
            "no card payment is waiting for request req_0123456789abcdef0123",
        ),
    ],
)
def test_local_mistakes_are_one_clear_line_with_the_contract_exit_code(
    cli: Cli, tmp_path: Path, args: list[str], stdin: str | None, code: int, needle: str
) -> None:
    files = {"task": tmp_path / "task.txt", "latin1": tmp_path / "latin1.txt"}
    files["task"].write_text("Renew my books")
    files["latin1"].write_bytes("café".encode("latin-1"))
    paths = {name: str(path) for name, path in files.items()}
    result = cli(*[arg.format(**paths) for arg in args], input=stdin)
    assert result.returncode == code, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("svc:")]
    assert len(errors) == 1 and errors[0].startswith(f"svc: {needle.format(**paths)}"), (
        result.stderr
    )


def test_a_bad_key_given_to_wallet_import_force_keeps_the_stored_wallet(cli: Cli) -> None:
    assert cli("wallet", "import", "--force", input="nonsense\n").returncode == 2
    assert cli.ok("wallet", "address").json()["address"] == TEST_ADDRESS


@pytest.mark.parametrize(
    ("name", "value", "needle"),
    [
        (
            "SVC_MAX_PRICE",
            "nan",
            "max_price_usd (env SVC_MAX_PRICE) must be a non-negative USD amount",
        ),
        (
            "SVC_MAX_PRICE",
            "-1",
            "max_price_usd (env SVC_MAX_PRICE) must be a non-negative USD amount",
        ),
        (
            "SVC_DAILY_CAP",
            "lots",
            "daily_cap_usd (env SVC_DAILY_CAP) must be a USD amount like 1.50",
        ),
        (
            "SVC_POLL_INTERVAL",
            "-1",
            "poll_interval (env SVC_POLL_INTERVAL) must be a number of seconds from 1 to 3600",
        ),
        (
            "SVC_POLL_INTERVAL",
            "inf",
            "poll_interval (env SVC_POLL_INTERVAL) must be a number of seconds from 1 to 3600",
        ),
    ],
)
def test_bad_setting_from_the_environment_names_its_source_before_anything_is_sent(
    cli: Cli, sandbox: Sandbox, name: str, value: str, needle: str
) -> None:
    rid = f"req_{uuid.uuid4().hex}"
    result = cli(
        "submit", "x #complete", "--email", unique_email(), "--request-id", rid, env={name: value}
    )
    assert result.returncode == 2, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("svc:")]
    assert len(errors) == 1 and errors[0].startswith(f"svc: {needle}"), result.stderr
    assert errors[0].endswith(f"got {value!r}"), result.stderr
    assert sandbox.charges_for(rid) == []


def test_task_of_100001_characters_is_refused_and_100000_accepted(cli: Cli, tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_text("x" * 100_001)
    result = cli("submit", "--file", str(big), "--email", unique_email())
    assert result.returncode == 2
    assert "at most 100000 characters (got 100001 characters)" in result.stderr
    big.write_text("x" * 99_990 + " #complete")
    assert (
        cli.ok("submit", "--file", str(big), "--email", unique_email()).json()["state"] == "pending"
    )


def test_task_from_stdin(cli: Cli) -> None:
    task = cli.ok(
        "submit", "-", "--email", unique_email(), input="Read from stdin #complete\n"
    ).json()
    assert task["goal"].startswith("Read from stdin")


def test_malformed_email_the_server_refuses_is_exit_2(cli: Cli, sandbox: Sandbox) -> None:
    before = len(sandbox.books()["charges"])
    result = cli("submit", "Bad address #complete", "--email", "ana@example..com")
    assert result.returncode == 2
    assert "HTTP 400" in result.stderr and "malformed e-mail address" in result.stderr
    assert len(sandbox.books()["charges"]) == before


def test_unknown_task_is_exit_7(cli: Cli) -> None:
    for args in (
        ["poll", "task_does_not_exist"],
        ["watch", "task_does_not_exist"],
        ["reply", "task_does_not_exist", "--message", "hi"],
    ):
        result = cli(*args)
        assert result.returncode == 7, args
        assert "404" in result.stderr


def test_json_errors_on_stdout_when_piped(cli: Cli) -> None:
    result = cli("poll", "task_does_not_exist")
    doc = result.json()
    assert doc["exit_code"] == 7 and doc["error"] == "not_found"


# --- scripting ------------------------------------------------------------------------------------


def test_poll_pipes_into_real_jq(cli: Cli, sandbox: Sandbox) -> None:
    assert has_jq(), "jq is part of the test toolchain (.ci/run installs it)"
    task = submit(cli, "Pipe me #complete")
    out = subprocess.run(
        f"{SVC} poll {task['id']} | jq -r .state",
        shell=True,
        capture_output=True,
        text=True,
        env=cli.env,
        check=True,
    )
    assert out.stdout.strip() == "pending"


def test_watch_streams_ndjson_with_the_final_detail_last(cli: Cli, sandbox: Sandbox) -> None:
    first = submit(cli, "One #complete")
    second = submit(cli, "Two #fail")
    sandbox.advance(25)
    result = cli("watch", first["id"], second["id"], "--json")
    assert result.returncode == 3
    lines = result.lines()
    last = {}
    for line in lines:
        last[line["id"]] = line
    assert last[first["id"]]["state"] == "completed"
    assert last[second["id"]]["state"] == "failed"
    assert all("events" in line for line in lines)


def test_verbose_trace_redacts_the_payment_proof(cli: Cli) -> None:
    rid = f"req_{uuid.uuid4().hex}"
    result = cli.ok(
        "submit", "Trace me #complete", "--email", unique_email(), "-v", "--request-id", rid
    )
    assert "> POST" in result.stderr and "x-payment: [redacted]" in result.stderr
    proof = submission_row(ledger_file(cli.home), rid)["proof"]
    assert proof and len(proof) > 100
    assert proof not in result.stderr and proof not in result.stdout
    assert json.loads(base64.b64decode(proof))["payload"]["signature"] not in result.stderr


def test_submit_wait_follows_to_the_end(cli: Cli, sandbox: Sandbox) -> None:
    sandbox.admin("POST", "/clock", json={"speed": 20})
    try:
        result = cli("submit", "Wait for me #complete", "--email", unique_email(), "--wait")
    finally:
        sandbox.admin("POST", "/clock", json={"speed": 1})
    assert result.returncode == 0, result.stderr
    assert result.lines()[-1]["state"] == "completed"


def test_dry_run_sends_nothing(cli: Cli, sandbox: Sandbox) -> None:
    before = sandbox.books()
    result = cli.ok("submit", "Just looking #complete", "--email", unique_email(), "--dry-run")
    doc = result.json()
    assert doc["dry_run"] is True and doc["within_policy"] is True
    assert sandbox.books() == before
    refused = cli(
        "submit", "Just looking", "--email", unique_email(), "--dry-run", "--max-price", "1"
    )
    assert refused.returncode == 5


# --- config and the remaining exit codes -------------------------------------------------------------


def test_config_profiles_and_precedence(cli: Cli, sandbox: Sandbox) -> None:
    path = cli.ok("config", "path").stdout.strip()
    assert path.endswith("config.toml")
    cli.ok("config", "set", "max_price_usd", "1.00")
    listed = {row["key"]: row for row in cli.ok("config", "list").json()["settings"]}
    assert (
        listed["max_price_usd"]["value"] == "1.00"
        and listed["max_price_usd"]["source"] == "profile default"
    )
    # profile value applies...
    refused = cli("submit", "Capped by profile #complete", "--email", unique_email())
    assert refused.returncode == 5 and "limit 1.00 USD" in refused.stderr
    # ...the environment beats the profile, and a flag beats both
    env_wins = cli(
        "submit", "Env cap #complete", "--email", unique_email(), env={"SVC_MAX_PRICE": "0.50"}
    )
    assert env_wins.returncode == 5 and "limit 0.50 USD" in env_wins.stderr
    cli.ok(
        "submit",
        "Flag cap #complete",
        "--email",
        unique_email(),
        "--max-price",
        "2",
        env={"SVC_MAX_PRICE": "0.50"},
    )
    # another profile is separate
    cli.ok("config", "set", "email", "work@example.com", "--profile", "work")
    assert (
        cli.ok("config", "get", "email", "--profile", "work").json()["value"] == "work@example.com"
    )
    assert cli.ok("config", "get", "email").json()["value"] is None
    # a profile pays with its own wallet, never another's (issue 33.1)
    no_wallet = cli("submit", "Email from the profile #complete", "--profile", "work")
    assert no_wallet.returncode == 5 and "--profile work" in no_wallet.stderr
    cli.ok("wallet", "import", "--profile", "work", input=TEST_KEY + "\n")
    cli.ok("submit", "Email from the profile #complete", "--profile", "work")
    cli.ok("config", "unset", "max_price_usd")
    assert cli("config", "unset", "max_price_usd").returncode == 2


def test_a_broken_config_file_is_one_clear_line(cli: Cli) -> None:
    path = cli.ok("config", "path").stdout.strip()
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("[profiles.default\nbase_url = ")
    result = cli("poll", "task_1")
    assert result.returncode == 2
    assert "is not valid TOML" in result.stderr


def test_malformed_json_from_the_server_is_exit_1(cli: Cli, sandbox: Sandbox) -> None:
    sandbox.faults({"kind": "malformed_json", "method": "GET", "path": "/svc/tasks/", "count": 1})
    result = cli("poll", "task_any")
    assert result.returncode == 1
    assert "malformed JSON" in result.stderr
    sandbox.faults(
        {"kind": "wrong_content_type", "method": "GET", "path": "/svc/tasks/", "count": 1}
    )
    result = cli("poll", "task_any")
    assert result.returncode == 1
    assert "instead of JSON" in result.stderr
