"""`svc mcp` driven by clients nobody here wrote (issue 31): the official TypeScript SDK client
(tests/ts/drive.mjs, the SDK pinned in tests/ts/package-lock.json) and the MCP Inspector CLI,
against the sandbox.

Most desktop and IDE hosts are built on the TypeScript SDK, which checks a tool result's
structured content against the tool's output schema, errors included, and times a request
out after 60 s whatever progress arrives. Each test writes a plan, runs the Node client on it
and asserts on the JSON report it prints: what the client returned or threw, the forms the
person saw, progress and log notifications, and every byte the server wrote on stderr.
`make test` installs the clients (`npm ci` in tests/ts; Node from Debian when missing).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import Cli, Sandbox, unique_email
from tests.e2e.test_mcp import BAD_CALLS
from tests.forkserver import ForkServer

from svc.mcp.pace import BEAT_SECONDS, TIME_SCALE_ENV
from svc.operations.watch import WAIT_BUDGET_SECONDS

pytestmark = pytest.mark.e2e

TS = Path(__file__).resolve().parents[1] / "ts"
TOOLS = {"submit_task", "get_task", "wait_for_task", "reply_to_task"}
TOOLS |= {"quote", "guide", "list_tasks", "spend", "get_receipt"}
PREAPPROVED = {"SVC_MCP_PREAPPROVED_USD": "1.50"}
CLIENT_TIMEOUT_MS = 60_000  # the TypeScript SDK's DEFAULT_REQUEST_TIMEOUT_MSEC
# The long-wait test runs the server's waits and the client's timeout at a quarter of the pace
# (svc.mcp.pace): the same ratios in 12 s instead of 44.
LONG_WAIT_SCALE = 0.25


def node() -> str:
    found = shutil.which("node")
    assert found and (TS / "node_modules").is_dir(), (
        "the TypeScript clients are not installed: run `make test` (Node from Debian, then "
        "`npm ci` in tests/ts)"
    )
    return found


def drive(
    cli: Cli,
    sandbox: Sandbox,
    svc_mcp: list[str],
    steps: list[dict[str, Any]],
    *,
    env: dict[str, str] | None = None,
    person: dict[str, Any] | None = None,
    protocol: str | None = None,
    elicitation: bool = True,
    timeout: float = 240,
    http: dict[str, str] | None = None,
    time_scale: float | None = None,
) -> dict[str, Any]:
    """Run the TypeScript client on `steps` against a fresh `svc mcp` (started by the client with
    `svc_mcp`, the conftest fixture's command); its report. With `time_scale`, the server's
    waits and the client's request timeout both run at that pace."""
    scaled = {TIME_SCALE_ENV: str(time_scale)} if time_scale else {}
    plan = {
        "command": svc_mcp[0],
        "args": svc_mcp[1:],
        "env": {**cli.env, **(env or {}), **scaled},
        "timeScale": time_scale,
        "sandbox": sandbox.url,
        "protocol": protocol,
        "elicitation": elicitation,
        "person": person or {},
        "steps": steps,
        "http": http,
    }
    proc = subprocess.run(
        [node(), str(TS / "drive.mjs")],
        input=json.dumps(plan),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        cwd=TS,
    )
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    report: dict[str, Any] = json.loads(proc.stdout)
    assert "Traceback" not in report["stderr"], report["stderr"]
    return report


def call(tool: str, **args: Any) -> dict[str, Any]:
    return {"tool": tool, "args": args}


def result_of(entry: dict[str, Any]) -> dict[str, Any]:
    """The tool result the client returned; a throw (a schema error, a timeout) fails."""
    assert "threw" not in entry, (entry["step"], entry["threw"])
    result: dict[str, Any] = entry["result"]
    return result


def text_of(result: dict[str, Any]) -> str:
    return "\n".join(c["text"] for c in result["content"] if c["type"] == "text")


def tool_error(entry: dict[str, Any]) -> dict[str, Any]:
    """A tool error as the model sees it (the text) and as a program reads it (`_meta`)."""
    result = result_of(entry)
    assert result.get("isError") is True, (entry["step"], result)
    assert "structuredContent" not in result, result  # nothing that breaks the output schema
    error: dict[str, Any] = result["_meta"]["svc/error"]
    text = text_of(result)
    assert text.startswith(f"error {error['error']}: "), text
    assert error["detail"] in text
    if "hint" in error:
        assert f"hint: {error['hint']}" in text
    return error


def task_of(entry: dict[str, Any]) -> dict[str, Any]:
    result = result_of(entry)
    assert not result.get("isError"), text_of(result)
    task: dict[str, Any] = result["structuredContent"]["task"]
    return task


def submit_with_cli(cli: Cli, task: str) -> str:
    """A task paid by `svc submit` (the CLI pays without a form): its id."""
    return str(cli.ok("submit", task, "--email", unique_email(), "--json").json()["id"])


# --- 1. errors every client accepts -------------------------------------------------------


def test_the_typescript_client_gets_every_tool_error_as_a_result_with_its_code_and_hint(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    """The headline of issue 31: an error result's structuredContent was svc's error object,
    which the SDK checks against the tool's output schema and throws -32602 on; the model
    never saw the message or the hint. Every tool's error paths, through the SDK."""
    blocked = submit_with_cli(cli, "Log in to my bank #2fa")
    done = submit_with_cli(cli, "Book a table #complete")
    sandbox.advance(25)  # the 2FA task asks (at +10 s); the other completes (at +20 s)
    email = unique_email()
    stateful = [
        (call("get_task", task_id="tsk_does_not_exist"), "not_found"),
        (call("wait_for_task", task_id="tsk_does_not_exist", timeout_seconds=1), "not_found"),
        (call("reply_to_task", task_id=blocked, field="sms_code", value="123456"), None),
        (call("reply_to_task", task_id=blocked, message="123456"), "secret_from_model"),
        (call("reply_to_task", task_id=done, message="thanks"), None),
        (call("submit_task", task="Twice in a row #complete", email=email), None),
        (call("submit_task", task="Twice in a row #complete", email=email), None),
        (call("submit_task", task="t", email=email, request_id="short"), "invalid_arguments"),
    ]
    steps = [call(name, **args) for name, args, _ in BAD_CALLS] + [s for s, _ in stateful]
    report = drive(cli, sandbox, svc_mcp, steps, env=PREAPPROVED)

    entries = report["steps"]
    for entry, (_, _, code) in zip(entries, BAD_CALLS, strict=False):
        assert tool_error(entry)["error"] == code, entry
    tail = entries[len(BAD_CALLS) :]
    codes = [tool_error(e)["error"] if result_of(e).get("isError") else None for e in tail]
    assert codes[:2] == ["not_found", "not_found"]
    assert codes[2] == codes[3] == "secret_from_model"
    assert codes[4] == "not_waiting"  # a final task takes no answer
    assert codes[5] is None and codes[6] == "duplicate_submission"  # the second one is refused
    assert codes[7] == "invalid_arguments"
    secret = tool_error(tail[2])
    assert secret["exit_code"] == 2 and "the person is asked directly" in secret["hint"]
    duplicate = tool_error(tail[6])
    assert "allow_duplicate=true" in duplicate["hint"]  # the model can act on the hint
    # a secret the model typed is not echoed back either (the vault keeps it out)
    assert "123456" not in json.dumps([e["result"] for e in report["steps"]])


def test_a_refused_payment_and_a_client_without_forms_are_tool_errors_with_nothing_paid(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    rid = [f"req_{uuid.uuid4().hex}" for _ in range(3)]
    declined = drive(
        cli,
        sandbox,
        svc_mcp,
        [call("submit_task", task="Say no #complete", email=unique_email(), request_id=rid[0])],
        person={"pay": False},
    )
    no_forms = drive(
        cli,
        sandbox,
        svc_mcp,
        [
            call(
                "submit_task",
                task="Nobody to ask #complete",
                email=unique_email(),
                request_id=rid[1],
            ),
            call("reply_to_task", task_id="tsk_x", field="sms_code"),
        ],
        elicitation=False,
    )
    over_cap = drive(
        cli,
        sandbox,
        svc_mcp,
        [call("submit_task", task="Too dear #complete", email=unique_email(), request_id=rid[2])],
        env={"SVC_MAX_PRICE": "1.00"},
        person={"pay": True},
    )
    refused = tool_error(declined["steps"][0])
    assert refused["error"] == "payment_not_approved" and refused["exit_code"] == 5
    assert "did not confirm" in refused["hint"]
    assert len(declined["asked"]) == 1  # the person was asked, and said no
    nobody = tool_error(no_forms["steps"][0])
    assert nobody["error"] == "payment_not_approved" and "mcp_preapproved_usd" in nobody["hint"]
    assert tool_error(no_forms["steps"][1])["error"] in ("not_found", "human_needed")
    dear = tool_error(over_cap["steps"][0])
    assert dear["exit_code"] == 5 and over_cap["asked"] == []  # refused before any question
    for request_id in rid:
        assert sandbox.charges_for(request_id) == []


# --- 5. schemas every client accepts ------------------------------------------------------


def test_every_tool_schema_passes_the_inspector_cli_strict_mode_and_ajv_strict(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    """The MCP Inspector CLI (pinned beside the SDK) reports schema portability problems with
    --strict; a nullable field was `type: [string, null]`, which it flags: now `anyOf`."""
    report = drive(cli, sandbox, svc_mcp, [{"listTools": True}, {"strictSchemas": True}])
    tools = {t["name"]: t for t in report["steps"][0]["tools"]}
    assert set(tools) == TOOLS
    assert report["steps"][1]["problems"] == []
    billing = tools["submit_task"]["outputSchema"]["properties"]["billing"]
    assert billing == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    schemas = json.dumps([[t["inputSchema"], t.get("outputSchema")] for t in tools.values()])
    assert '"type": [' not in schemas

    env = [x for k, v in cli.env.items() if v for x in ("-e", f"{k}={v}")]  # no empty values
    strict = ["--cli", "--method", "tools/list", "--strict"]
    inspector = subprocess.run(
        [str(TS / "node_modules/.bin/mcp-inspector"), *strict, *env, *svc_mcp],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=TS,
    )
    assert inspector.returncode == 0, inspector.stderr
    # Silent when clean; before, "Warning: tool "submit_task" Path: outputSchema.properties.
    # billing ... 0 errors, 1 warning across 1 tool."
    assert not re.search(r"Warning|Error|\d+ errors?,", inspector.stderr), inspector.stderr
    assert {t["name"] for t in json.loads(inspector.stdout)["tools"]} == TOOLS


# --- 6. every free tool, a paid submit, a 2FA task through the person ----------------------


def test_every_free_tool_through_the_typescript_client(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    """Each result passes the SDK's own output-schema check (it throws otherwise)."""
    task_id = submit_with_cli(cli, "Renew my books #complete")
    steps = [
        call("get_task", task_id=task_id),
        call("wait_for_task", task_id=task_id, timeout_seconds=1),
        call("quote", goal="Book a table for two"),
        call("guide", goal="Book a table for two"),
        call("list_tasks", limit=5),
        call("spend"),
    ]
    report = drive(cli, sandbox, svc_mcp, steps)
    get, wait, quote, guide, listed, spend = (result_of(e) for e in report["steps"])
    for result in (get, wait, quote, guide, listed, spend):
        assert not result.get("isError"), text_of(result)
    assert get["structuredContent"]["task"]["id"] == task_id
    assert wait["structuredContent"]["task"]["id"] == task_id
    assert "quote" in quote["structuredContent"] or "guide" in quote["structuredContent"]
    assert "The service's guide follows" in text_of(guide)
    assert [t["task_id"] for t in listed["structuredContent"]["tasks"]] == [task_id]
    assert spend["structuredContent"]["paid_count"] == 1


@pytest.mark.parametrize(
    ("protocol", "with_mode"),
    [(None, True), ("2025-06-18", False)],
    ids=["2025-11-25", "2025-06-18"],
)
def test_a_paid_submit_approved_by_the_person_in_the_typescript_client(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str], protocol: str | None, with_mode: bool
) -> None:
    """The person ticks Pay in the client's form: one charge. The form carries `mode` only
    where the negotiated protocol has it (2025-11-25 on)."""
    rid = f"req_{uuid.uuid4().hex}"
    args = {"task": "Renew my library books #complete", "email": unique_email(), "request_id": rid}
    report = drive(
        cli,
        sandbox,
        svc_mcp,
        [call("submit_task", **args), call("submit_task", **args)],
        person={"pay": True},
        protocol=protocol,
    )
    assert report["negotiated"] == (protocol or "2025-11-25")
    first, again = (result_of(e) for e in report["steps"])
    task = first["structuredContent"]["task"]
    assert task["state"] == "pending" and "Paid 1.50 USD by x402" in text_of(first)
    assert again["structuredContent"]["replayed"] is True  # the same request id: not again
    [form] = report["asked"]
    assert "Pay 1.50 USD by x402" in form["message"]
    assert ("mode" in form) is with_mode and form.get("mode", "form") == "form"
    assert len(sandbox.charges_for(rid)) == 1


def test_a_2fa_task_answered_through_the_person_never_shows_the_code(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    code = f"{uuid.uuid4().int % 10**8:08d}"
    steps = [
        call("submit_task", task="Log in to my bank #2fa", email=unique_email()),
        {"advance": 11},  # the sandbox asks for the code 10 s after creation
        {"setLevel": "debug"},  # every log line the server would send, too
        call("wait_for_task", task_id="$task", timeout_seconds=30),
        call("get_task", task_id="$task"),
        call("list_tasks"),
    ]
    report = drive(
        cli, sandbox, svc_mcp, steps, person={"pay": True, "code": code, "advanceAfterAnswer": 25}
    )
    assert_the_code_went_in_secret(report, report["steps"][3], code)


def assert_the_code_went_in_secret(
    report: dict[str, Any], waited: dict[str, Any], code: str
) -> None:
    """The task completed on the code the person typed, sent marked sensitive; the person was
    asked to pay, then for the code; results, progress, logs, forms and the server's stderr
    carry the code nowhere."""
    assert task_of(waited)["state"] == "completed", text_of(result_of(waited))
    received = [e for e in task_of(waited)["events"] if e["type"] == "reply_received"]
    assert received[0]["payload"]["sensitive"] is True
    pay, secret = report["asked"]
    assert "pay" in pay["requestedSchema"]["properties"]
    assert "sms_code" in json.dumps(secret["requestedSchema"])
    assert code not in json.dumps(report)


# --- 3. long waits clients survive ----------------------------------------------------------


def test_a_long_wait_returns_before_the_clients_timeout_and_goes_on_when_called_again(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    """A task that needs 600 s of task time: wait_for_task asked for 300 s returns before the
    SDK's 60 s default (which progress does not reset), telling the model to call again, and
    the next call sees it complete. The sandbox's clock supplies the task time.

    Server and client run at LONG_WAIT_SCALE of real time (the server's wait budget and beat,
    the client's timeout), so a budget too long for the client still makes the client throw."""
    scale = LONG_WAIT_SCALE
    # The real pace's figures, which the scaled run below checks in proportion
    assert WAIT_BUDGET_SECONDS * 1000 <= CLIENT_TIMEOUT_MS - 20_000  # room for a slow poll
    assert BEAT_SECONDS * 1000 <= 10_000
    task_id = submit_with_cli(cli, "Take your time #slow")
    steps = [
        call("wait_for_task", task_id=task_id, timeout_seconds=300),
        {"advance": 600},
        call("wait_for_task", task_id=task_id, timeout_seconds=300),
    ]
    report = drive(cli, sandbox, svc_mcp, steps, timeout=300, time_scale=scale)
    assert report["defaultTimeoutMs"] == CLIENT_TIMEOUT_MS  # the SDK's, which a host keeps
    first, _, second = report["steps"]
    assert task_of(first)["state"] == "pending"
    # with room for a slow poll; and the budget was waited, not cut short
    budget_ms = WAIT_BUDGET_SECONDS * 1000 * scale
    assert budget_ms - 2_000 <= first["ms"] < (CLIENT_TIMEOUT_MS - 10_000) * scale, first["ms"]
    assert "call wait_for_task again" in text_of(result_of(first))
    assert len(first["progress"]) >= first["ms"] // (10_000 * scale)  # a beat every 10 s
    values = [p["progress"] for p in first["progress"]]
    assert values == sorted(set(values))  # strictly increasing, as the spec asks
    assert task_of(second)["state"] == "completed"


def slow_person_steps(task_id: str) -> list[dict[str, Any]]:
    """A #2fa task already asking for its code: three waits, each within the client's limit."""
    wait = call("wait_for_task", task_id=task_id, timeout_seconds=30)
    return [wait, wait, wait]


def assert_the_slow_person_got_through(report: dict[str, Any], code: str) -> None:
    """The first wait ended before the client's timeout, saying the form stays open; a later
    one took the answer from that same form (asked once) and the task completed."""
    first, *later = report["steps"]
    error = tool_error(first)
    assert error["error"] == "awaiting_person" and "wait_for_task again" in error["hint"], error
    assert first["ms"] < CLIENT_TIMEOUT_MS * LONG_WAIT_SCALE - 1_000, first["ms"]
    assert [s for s in report["steps"] if "threw" in s] == []  # no -32001 from the client
    forms = [f for f in report["asked"] if "pay" not in f["requestedSchema"]["properties"]]
    assert len(forms) == 1, forms  # the person saw one form for the code, not one a call
    states = [task_of(s)["state"] for s in later if not result_of(s).get("isError")]
    assert states and states[-1] == "completed", [text_of(result_of(s)) for s in later]
    assert code not in json.dumps(report)


def test_a_person_who_takes_70_s_to_type_a_code_gets_through_asked_once(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    """The SDK's default 60 s timeout and a person who needs 70 s (both at LONG_WAIT_SCALE of
    real time): the call waiting on the person answers before the timeout with the question
    still open, and the next call waits on that same form, so the person types once."""
    task_id = submit_with_cli(cli, "Log in to my bank #2fa")
    sandbox.advance(11)  # the sandbox asks for the code 10 s after creation
    code = f"{uuid.uuid4().int % 10**8:08d}"
    person = {"code": code, "typesForSeconds": 70, "advanceAfterAnswer": 25}
    report = drive(
        cli, sandbox, svc_mcp, slow_person_steps(task_id), person=person,
        time_scale=LONG_WAIT_SCALE,
    )  # fmt: skip
    assert_the_slow_person_got_through(report, code)


def test_over_http_a_slow_person_gets_through_asked_once(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str], fork_server: ForkServer
) -> None:
    """The same slow person behind a host over `svc mcp --http` (a 2025-11-25 session): the
    open form outlives the call that showed it there too."""
    from tests.e2e.test_mcp_http import http_server, token_of

    task_id = submit_with_cli(cli, "Log in to my bank #2fa")
    sandbox.advance(11)
    code = f"{uuid.uuid4().int % 10**8:08d}"
    person = {"code": code, "typesForSeconds": 70, "advanceAfterAnswer": 25}
    scaled = Cli(cli.home, {**cli.env, TIME_SCALE_ENV: str(LONG_WAIT_SCALE)})
    with http_server(scaled, fork_server) as served:
        http = {"url": served.url, "token": served.token or token_of(cli)}
        report = drive(
            cli, sandbox, svc_mcp, slow_person_steps(task_id), person=person, http=http,
            time_scale=LONG_WAIT_SCALE,
        )  # fmt: skip
    assert_the_slow_person_got_through(report, code)


# --- 5. logging -----------------------------------------------------------------------------


def test_svc_logs_to_the_client_at_the_level_it_sets(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    """The logging capability: logging/setLevel is answered (it was -32601) and what svc says
    on stderr while a tool runs reaches the client as notifications/message at that level."""
    email = unique_email()

    def paid(rid: str) -> dict[str, Any]:
        return call("submit_task", task="Log me #complete", email=email, request_id=rid)

    rid = [f"req_{uuid.uuid4().hex}" for _ in range(2)]
    report = drive(
        cli,
        sandbox,
        svc_mcp,
        [paid(rid[0]), {"setLevel": "info"}, paid(rid[1])],
        env=PREAPPROVED,
    )
    assert report["serverCapabilities"]["logging"] == {}
    assert "threw" not in report["steps"][1], report["steps"][1]
    infos = [log for log in report["logs"] if log["level"] == "info"]
    # Before setLevel only warnings and worse are sent: the first billing note stays on stderr
    assert len([log for log in infos if "billing: charged" in str(log["data"])]) == 1
    assert all(log["logger"] == "svc" for log in report["logs"])
    assert report["stderr"].count("billing: charged") == 2


def test_a_warning_svc_gives_mid_call_reaches_the_client_as_a_log_message(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str], pg_url: str
) -> None:
    """A real warning, at the default level: on a fleet whose ledger caps the day at 6.00
    USD, this runner's own 30.00 is not used, and the paying call says so (issue 29.8)."""
    fleet = {"SVC_LEDGER_URL": pg_url, "SVC_RUNNER": "agent-1"}
    cli.ok("config", "set", "daily_cap_usd", "6", "--fleet", env=fleet)
    steps = [call("submit_task", task="Capped #complete", email=unique_email())]
    report = drive(
        cli, sandbox, svc_mcp, steps, env={**fleet, **PREAPPROVED, "SVC_DAILY_CAP": "30"}
    )
    assert task_of(report["steps"][0])["state"] == "pending"
    [warning] = [log for log in report["logs"] if log["level"] == "warning"]
    assert "the fleet's daily cap is 6.00 USD" in warning["data"], warning
    assert "daily_cap_usd 30.00 USD" in warning["data"]
    assert [log["level"] for log in report["logs"]] == ["warning"]  # no info before setLevel


# --- 4. the TypeScript client over Streamable HTTP ------------------------------------------


def test_the_typescript_client_pays_and_finishes_a_task_over_http(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str], fork_server: ForkServer
) -> None:
    """`svc mcp --http` with its bearer token: the TypeScript SDK's own HTTP transport (a
    2025-11-25 host) is asked by elicitation to pay, as over stdio, pays once and follows the
    task to its end; the first call without the token got 401."""
    from tests.e2e.test_mcp_http import http_server, token_of

    rid = f"req_{uuid.uuid4().hex}"
    steps = [
        call("submit_task", task="Over HTTP #complete", email=unique_email(), request_id=rid),
        {"advance": 30},
        call("wait_for_task", task_id="$task", timeout_seconds=20),
    ]
    with http_server(cli, fork_server) as served:
        token = served.token or token_of(cli)
        assert served.post().status_code == 401  # no token: nothing served
        report = drive(
            cli, sandbox, svc_mcp, steps, http={"url": served.url, "token": token},
            person={"pay": True},
        )  # fmt: skip
    assert report["negotiated"] == "2025-11-25" and report["stderr"] == ""  # HTTP, not stdio
    submitted, _, waited = report["steps"]
    assert "Paid 1.50 USD" in text_of(result_of(submitted)), text_of(result_of(submitted))
    assert task_of(waited)["state"] == "completed", text_of(result_of(waited))
    [form] = report["asked"]  # the person was asked, in the host's own form
    assert "Pay 1.50 USD by x402" in form["message"] and form.get("mode", "form") == "form"
    assert len(sandbox.charges_for(rid)) == 1
    assert token not in json.dumps(report)


def test_a_2fa_task_over_http_asks_the_person_for_the_code_by_elicitation(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str], fork_server: ForkServer
) -> None:
    """The same 2FA task as over stdio, over `svc mcp --http`: the person approves the
    payment and types the code in the host's forms; the code reaches the service marked
    sensitive and appears in no result, progress, log or form the host saw."""
    from tests.e2e.test_mcp_http import http_server, token_of

    code = f"{uuid.uuid4().int % 10**8:08d}"
    steps = [
        call("submit_task", task="Log in to my bank #2fa", email=unique_email()),
        {"advance": 11},  # the sandbox asks for the code 10 s after creation
        call("wait_for_task", task_id="$task", timeout_seconds=30),
    ]
    person = {"pay": True, "code": code, "advanceAfterAnswer": 25}
    with http_server(cli, fork_server) as served:
        token = served.token or token_of(cli)
        report = drive(
            cli, sandbox, svc_mcp, steps, http={"url": served.url, "token": token}, person=person
        )
    assert report["negotiated"] == "2025-11-25"
    assert_the_code_went_in_secret(report, report["steps"][2], code)
