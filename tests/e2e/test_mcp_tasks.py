"""MCP Tasks (`io.modelcontextprotocol/tasks`, 2026-07-28) in `svc mcp`, driven by a Tasks
client nobody here wrote: mcpdo, the MCP Inspector's CLI (@modelcontextprotocol/inspector,
pinned in tests/ts/package.json), built on @modelcontextprotocol/ext-tasks, against the
sandbox, over stdio and over `svc mcp --http`.

mcpdo keeps connections in a daemon: each test gives it a home of its own and a private
daemon (`mcpdo private`), stopped at the end. Its `tools/call` drives a task (polls
`tasks/get`, surfaces an `input_required` form as `elicitationPending`) and its
`elicitation/respond` answers it through `tasks/update`; the sandbox's clock is moved on
while they run, so the ask comes and the task ends within seconds.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import time
import uuid
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any, Literal

import pytest
from tests.conftest import Cli, Sandbox, unique_email
from tests.e2e.test_mcp_typescript import TS, node
from tests.forkserver import ForkServer

pytestmark = pytest.mark.e2e

MCPDO = TS / "node_modules/@modelcontextprotocol/inspector/clients/mcpdo/build/mcp-bin.js"
PREAPPROVED = {"SVC_MCP_PREAPPROVED_USD": "1.50"}  # the payment passes without a form
STEP_TIMEOUT = 45.0  # one mcpdo command, the sandbox's clock moved on meanwhile


class Mcpdo:
    """mcpdo with a home and a private daemon of its own; every byte it printed is kept."""

    def __init__(self, home: Path, servers: dict[str, Any]) -> None:
        home.mkdir(parents=True)
        self.home = home
        base = {
            "PATH": os.environ["PATH"],
            "HOME": str(home),
            "MCP_INSPECTOR_SECRET_STORE": "memory",  # nothing written to a keyring or file
        }
        private = subprocess.run(
            [node(), str(MCPDO), "private"], env=base, capture_output=True, text=True, check=True
        ).stdout
        exports = dict(
            line.removeprefix("export ").split("=", 1) for line in private.splitlines() if line
        )
        self.env = base | {key: value.strip("'") for key, value in exports.items()}
        self.config = home / "servers.json"
        self.servers = dict(servers)
        self.serve()
        self.printed: list[str] = []

    def serve(self, **servers: dict[str, Any]) -> None:
        """The config file naming the servers (read by every command)."""
        self.servers |= servers
        self.config.write_text(json.dumps({"mcpServers": self.servers}))

    @property
    def daemon_dir(self) -> Path:
        return Path(self.env["MCP_INSPECTOR_DAEMON_DIR"])

    def _args(self, *args: str) -> list[str]:
        return [node(), str(MCPDO), "--format", "json", "--config", str(self.config), *args]

    def run(self, *args: str, ok: bool = True) -> Any:
        proc = subprocess.run(
            self._args(*args),
            env=self.env,
            capture_output=True,
            text=True,
            timeout=STEP_TIMEOUT,
            check=False,
        )
        return self._read(args, proc.returncode, proc.stdout, proc.stderr, ok)

    def start(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            self._args(*args), env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip

    def finish(self, proc: subprocess.Popen[str], sandbox: Sandbox | None, ok: bool = True) -> Any:
        """The command's output once it ends, the sandbox's clock moved on meanwhile."""
        deadline = time.monotonic() + STEP_TIMEOUT
        while proc.poll() is None:
            if time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"mcpdo did not finish: {proc.communicate()}")
            if sandbox is not None:
                sandbox.advance(5)
            time.sleep(0.5)
        out, err = proc.communicate()
        return self._read(proc.args, proc.returncode, out, err, ok)

    def _read(self, args: Any, code: int, out: str, err: str, ok: bool) -> Any:
        self.printed += [out, err]
        if ok:
            assert code == 0, (args, out, err)
        try:
            return json.loads(out)
        except ValueError:
            return out or err  # a failed command says why on stderr

    def stop(self) -> None:
        subprocess.run(
            [node(), str(MCPDO), "daemon", "stop"],
            env=self.env,
            capture_output=True,
            timeout=30,
            check=False,
        )
        shutil.rmtree(self.daemon_dir, ignore_errors=True)  # its log, left in /tmp otherwise


@pytest.fixture
def mcpdos() -> Iterator[list[Mcpdo]]:
    """The mcpdo instances a test makes; their daemons stopped after it."""
    made: list[Mcpdo] = []
    yield made
    for each in made:
        each.stop()


def stdio_server(cli: Cli, svc_mcp: list[str], **extra: str) -> dict[str, Any]:
    """A config entry that starts `svc mcp` on stdio as a 2026-07-28 client with forms."""
    return {
        "command": svc_mcp[0],
        "args": svc_mcp[1:],
        "env": {**cli.env, **PREAPPROVED},
        "protocolEra": "modern",
        "elicitCapability": "form",
        **extra,
    }


def submit_2fa(client: Mcpdo, sandbox: Sandbox, connection: str) -> dict[str, Any]:
    """A `#2fa` task submitted as a task: mcpdo polls it until it asks; the pending form."""
    args = ["--connection", connection, "tools/call", "submit_task"]
    task = f"task:=Log in to my bank #2fa {uuid.uuid4().hex[:6]}"
    pending = client.finish(client.start(*args, task, f"email:={unique_email()}"), sandbox)
    assert "elicitationPending" in pending, pending
    form: dict[str, Any] = pending["elicitationPending"]
    return form


def answer_and_complete(
    client: Mcpdo, sandbox: Sandbox, connection: str, form: dict[str, Any], code: str
) -> dict[str, Any]:
    """The person's code through `tasks/update`; the task's final result."""
    answer = json.dumps({"value": code})
    respond = ["--connection", connection, "elicitation/respond", form["elicitationId"], answer]
    result: dict[str, Any] = client.finish(client.start(*respond), sandbox)
    return result


def assert_asked_for_the_code(form: dict[str, Any]) -> None:
    assert form["origin"] == "task-input-required", form
    assert "sms_code" in json.dumps(form) and "AI agent never sees it" in form["message"]


def assert_completed_with_the_code(result: dict[str, Any]) -> str:
    """The task's final tool result, today's: completed on the code, sent as sensitive."""
    assert not result.get("isError"), result
    task = result["structuredContent"]["task"]
    assert task["state"] == "completed", result
    received = [e for e in task["events"] if e["type"] == "reply_received"]
    assert received and received[0]["payload"]["sensitive"] is True
    assert {"request_id", "rail", "billing"} <= set(result["structuredContent"])
    task_id: str = result["_meta"]["io.modelcontextprotocol/related-task"]["taskId"]
    return task_id


def task_of(client: Mcpdo, connection: str, task_id: str) -> dict[str, Any]:
    shown = client.run("--connection", connection, "tasks/get", task_id)
    task: dict[str, Any] = shown["task"]["raw"]
    return task


def assert_nowhere(code: str, client: Mcpdo, *folders: Path) -> None:
    """The code in no output mcpdo printed and no file it or svc wrote (the ledger too)."""
    assert code not in "\n".join(client.printed)
    for folder in (client.home, client.daemon_dir, *folders):
        for path in folder.rglob("*"):
            if path.is_file() and not path.is_symlink():
                assert code.encode() not in path.read_bytes(), path


def handles(cli: Cli) -> list[dict[str, Any]]:
    """The MCP task handles in the ledger, newest first (none while svc mcp, which made the
    file a moment ago, has not written its tables yet: a test that waits reads again)."""
    with closing(sqlite3.connect(cli.home / "data" / "ledger.sqlite3")) as db:
        db.row_factory = sqlite3.Row
        try:
            rows = db.execute("SELECT * FROM mcp_tasks ORDER BY created_at DESC").fetchall()
        except sqlite3.OperationalError as exc:
            if "no such table" not in str(exc):
                raise
            return []
    return [dict(row) for row in rows]


def test_over_stdio_a_2fa_task_asks_gets_the_code_completes_and_outlives_a_restart(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str], mcpdos: list[Mcpdo], tmp_path: Path
) -> None:
    code = f"{uuid.uuid4().int % 10**8:08d}"
    client = Mcpdo(tmp_path / "mcpdo", {"svc": stdio_server(cli, svc_mcp)})
    mcpdos.append(client)
    client.run("connect", "svc")
    shown = client.run("connections/show", "--connection", "svc")
    assert shown["protocolVersion"] == "2026-07-28", shown
    assert shown["capabilities"]["extensions"] == {"io.modelcontextprotocol/tasks": {}}
    form = submit_2fa(client, sandbox, "svc")
    assert_asked_for_the_code(form)
    task_id = assert_completed_with_the_code(
        answer_and_complete(client, sandbox, "svc", form, code)
    )
    [row] = handles(cli)
    assert (row["task_id"], row["status"], row["tool"]) == (task_id, "completed", "submit_task")
    client.run("disconnect", "svc")  # svc mcp ends with the connection
    client.run("connect", "svc")  # a new svc mcp process, on the same ledger
    task = task_of(client, "svc", task_id)
    assert task["status"] == "completed" and task["taskId"] == task_id, task
    assert task["ttlMs"] is None
    assert task["result"]["structuredContent"]["task"]["state"] == "completed"
    # An answer under a key already answered is ignored, as the extension asks.
    stale = json.dumps({"svc-ask-1": {"action": "accept", "content": {"value": "000000"}}})
    client.run("--connection", "svc", "tasks/update", task_id, "--input-responses", stale)
    assert task_of(client, "svc", task_id)["result"] == task["result"]
    assert_nowhere(code, client, cli.home)


def test_over_http_a_2fa_task_completes_and_answers_after_the_server_restarts(
    cli: Cli, sandbox: Sandbox, fork_server: ForkServer, mcpdos: list[Mcpdo], tmp_path: Path
) -> None:
    from tests.e2e.test_mcp_http import http_server, token_of

    code = f"{uuid.uuid4().int % 10**8:08d}"
    client = Mcpdo(tmp_path / "mcpdo", {})
    mcpdos.append(client)
    cli.env.update(PREAPPROVED)
    token = token_of(cli)

    def connect(url: str) -> None:
        headers = {"Authorization": f"Bearer {token}"}
        entry = {"type": "http", "url": url, "headers": headers}
        client.serve(svc={**entry, "protocolEra": "modern", "elicitCapability": "form"})
        client.run("connect", "svc")

    with http_server(cli, fork_server) as served:
        connect(served.url)
        form = submit_2fa(client, sandbox, "svc")
        assert_asked_for_the_code(form)
        result = answer_and_complete(client, sandbox, "svc", form, code)
        task_id = assert_completed_with_the_code(result)
        client.run("disconnect", "svc")
    with http_server(cli, fork_server) as again:  # svc mcp --http restarted
        connect(again.url)
        shown = client.run("connections/show", "--connection", "svc")
        task = task_of(client, "svc", task_id)
        client.run("disconnect", "svc")
    assert shown["protocolVersion"] == "2026-07-28", shown
    assert task["status"] == "completed" and task["taskId"] == task_id, task
    assert token not in "\n".join(client.printed)
    assert_nowhere(code, client, cli.home)


def test_a_cancel_from_another_connection_stops_following_and_the_service_task_goes_on(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str], mcpdos: list[Mcpdo], tmp_path: Path
) -> None:
    servers = {name: stdio_server(cli, svc_mcp) for name in ("first", "second")}
    client = Mcpdo(tmp_path / "mcpdo", servers)
    mcpdos.append(client)
    client.run("connect", "first")
    client.run("connect", "second")  # another svc mcp process, on the same ledger
    call = ["--connection", "first", "tools/call", "submit_task", "task:=A long one #slow"]
    driving = client.start(*call, f"email:={unique_email()}")
    deadline = time.monotonic() + STEP_TIMEOUT
    while not ((cli.home / "data" / "ledger.sqlite3").exists() and handles(cli)):
        assert time.monotonic() < deadline and driving.poll() is None, driving.communicate()
        time.sleep(0.5)
    [row] = handles(cli)
    assert task_of(client, "second", row["task_id"])["status"] == "working"
    client.run("--connection", "second", "tasks/cancel", row["task_id"])
    ended = client.finish(driving, None, ok=False)  # the driving call sees it cancelled
    assert "cancelled" in json.dumps(ended), ended
    task = task_of(client, "second", row["task_id"])
    assert task["status"] == "cancelled", task
    assert "the service task itself goes on" in task["statusMessage"], task
    service = cli.ok("poll", row["service_task_id"], "--json").json()
    assert service["state"] not in ("cancelled", "completed"), service


def test_a_client_without_the_extension_or_without_forms_gets_todays_results(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str], mcpdos: list[Mcpdo], tmp_path: Path
) -> None:
    servers = {
        "older": stdio_server(cli, svc_mcp, protocolEra="legacy"),
        "formless": stdio_server(cli, svc_mcp, elicitCapability="off"),
    }
    client = Mcpdo(tmp_path / "mcpdo", servers)
    mcpdos.append(client)
    client.run("connect", "older")
    submitted = client.run(
        "--connection", "older", "tools/call", "submit_task", "task:=Plain #complete",
        f"email:={unique_email()}",
    )  # fmt: skip
    assert "Follow it with wait_for_task" in submitted["content"][0]["text"], submitted
    assert (
        "_meta" not in submitted or "io.modelcontextprotocol/related-task" not in submitted["_meta"]
    )
    assert not (cli.home / "data" / "ledger.sqlite3").exists() or not handles(cli)
    client.run("connect", "formless")
    call = ["--connection", "formless", "tools/call", "submit_task", "task:=Codes #2fa"]
    result = client.finish(client.start(*call, f"email:={unique_email()}"), sandbox)
    assert "elicitationPending" not in result, result
    text = result["content"][0]["text"]
    assert "is blocked_on_user" in text and "svc reply" in text, text
    assert handles(cli)[0]["status"] == "completed"


def test_the_payment_is_approved_before_the_task_and_a_declined_code_ends_it(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str], mcpdos: list[Mcpdo], tmp_path: Path
) -> None:
    """No pre-approval: the person approves the payment in a round of the call itself (the
    extension asks that it be resolved before the task exists), then the task asks for the
    code; a declined form ends the task in today's words, and the service task still waits."""
    entry = stdio_server(cli, svc_mcp)
    entry["env"] = dict(cli.env)  # no SVC_MCP_PREAPPROVED_USD: the person is asked to pay
    client = Mcpdo(tmp_path / "mcpdo", {"svc": entry})
    mcpdos.append(client)
    client.run("connect", "svc")
    call = ["--connection", "svc", "tools/call", "submit_task", "task:=Log in #2fa"]
    asked = client.run(*call, f"email:={unique_email()}")["elicitationPending"]
    assert asked["origin"] != "task-input-required" and "Pay 1.50 USD" in asked["message"]
    assert not (cli.home / "data" / "ledger.sqlite3").exists() or not handles(cli)  # no task yet
    paying = ["--connection", "svc", "elicitation/respond", asked["elicitationId"], "pay:=true"]
    form = client.finish(client.start(*paying), sandbox)["elicitationPending"]
    assert_asked_for_the_code(form)
    declined = ["--connection", "svc", "elicitation/respond", form["elicitationId"], "--decline"]
    result = client.finish(client.start(*declined), None)
    text = result["content"][0]["text"]
    assert "The person gave no sms_code when asked." in text, result
    assert result["structuredContent"]["task"]["state"] == "blocked_on_user"
    assert handles(cli)[0]["status"] == "completed"


# --- the protocol's refusals, seen by the SDK's own client ----------------------------------


def test_tasks_methods_refuse_a_client_without_the_extension_an_older_one_and_unknown_ids(
    cli: Cli, svc_mcp: list[str]
) -> None:
    """Without the opt-in: -32021 naming the extension; at an older protocol the methods do
    not exist (-32601); an id no handle has: -32602 (the extension's "task not found")."""
    import anyio
    import mcp_types as types
    from mcp import Client, StdioServerParameters
    from mcp.client.extension import ClientExtension, ResultClaim
    from mcp.shared.exceptions import MCPError
    from pydantic import ConfigDict, Field

    class Created(types.Result):
        model_config = ConfigDict(populate_by_name=True, extra="allow")
        result_type: Literal["task"] = Field(alias="resultType")

    class TaskIdParams(types.RequestParams):
        task_id: str

    class GetTask(types.Request[TaskIdParams, Literal["tasks/get"]]):
        method: Literal["tasks/get"] = "tasks/get"

    class Tasks(ClientExtension):
        identifier = "io.modelcontextprotocol/tasks"

        def claims(self) -> Any:
            async def resolve(created: Created, ctx: Any) -> types.CallToolResult:
                raise AssertionError("no task is made here")

            return (ResultClaim(result_type="task", model=Created, resolve=resolve),)

    params = StdioServerParameters(command=svc_mcp[0], args=svc_mcp[1:], env=cli.env)
    get = GetTask(params=TaskIdParams(task_id="no-such-task"))

    async def code_of(mode: str, extensions: list[ClientExtension]) -> int:
        async with Client(params, mode=mode, extensions=extensions) as client:
            with pytest.raises(MCPError) as refused:
                await client.session.send_request(get, types.Result)
            return refused.value.error.code

    async def body() -> None:
        assert await code_of("2026-07-28", []) == -32021
        assert await code_of("2026-07-28", [Tasks()]) == types.INVALID_PARAMS
        assert await code_of("legacy", [Tasks()]) == types.METHOD_NOT_FOUND

    anyio.run(body)
