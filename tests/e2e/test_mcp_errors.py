"""`svc mcp` tool errors are the contract's error object (`svc --json`'s), through the official
MCP client: an `invalid_token` carries its `reason` and that reason's own fix (issue 21.6), so
the model can tell a stale token from a header a proxy changed."""

from __future__ import annotations

import json
import queue
import threading
from pathlib import Path

import pytest
from tests.conftest import Cli, _base_env
from tests.e2e.test_hostile_answers import REASON_FIXES
from tests.e2e.test_mcp import error_of, run, served
from tests.forkserver import ForkServer
from tests.hostile_answers import AnswersPeer, Busy
from tests.mcp_wire import INITIALIZED, initialize

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("reason", ["unrecognized_agent_credential", "token_expired"])
def test_an_invalid_token_tool_error_names_its_reason_and_fix(
    tmp_path: Path, answers_peer: AnswersPeer, reason: str, svc_mcp: list[str]
) -> None:
    body = f'{{"error": "invalid_token", "reason": "{reason}", "detail": "refused"}}'
    answers_peer.config.busy = [Busy(401, {"WWW-Authenticate": "Bearer"}, body)]
    home = tmp_path / "home"
    home.mkdir()
    cli = Cli(home, {**_base_env(home), "SVC_BASE_URL": answers_peer.url})
    docs: list[object] = []

    async def body_() -> None:
        async with served(cli, svc_mcp) as (session, _):
            result = await session.call_tool("get_task", {"task_id": "task_mine"})
            assert result.is_error
            docs.append(error_of(result))

    run(body_)
    [doc] = docs
    assert isinstance(doc, dict)
    assert (doc["error"], doc["reason"], doc["status"]) == ("invalid_token", reason, 401), doc
    assert doc["exit_code"] == 4
    assert REASON_FIXES[reason] in doc["hint"], doc


_MALFORMED = [
    ("not json at all", -32700, None),
    ('{"jsonrpc": "2.0", "id": 7, "method": ', -32700, None),  # cut mid-line
    ('{"id": 8, "method": "tools/list"}', -32600, 8),  # no "jsonrpc": "2.0"
    ('{"jsonrpc": "2.0", "id": "x-9", "result": 1, "method": 5}', -32600, "x-9"),
    ("[]", -32600, None),
    ('{"jsonrpc": "2.0", "id": 10, "method": "no/such/method"}', -32601, 10),
    ('{"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": {"name": 5}}', -32602, 11),
]


def test_a_malformed_request_gets_a_json_rpc_error_and_the_server_lives_on(
    cli: Cli, fork_server: ForkServer
) -> None:
    """JSON-RPC 2.0: a line that is not JSON is a parse error (-32700, id null), JSON that is
    not a request is an invalid request (-32600, its id when readable); nothing goes
    unanswered, so a client never waits forever (issue 25.5)."""
    hello = initialize("raw", version="2025-06-18")
    lines = [json.dumps(hello), json.dumps(INITIALIZED)]
    lines += [line for line, _, _ in _MALFORMED]
    lines.append('{"jsonrpc": "2.0", "id": 99, "method": "tools/list"}')
    server = fork_server.popen(["mcp"], env=cli.env)
    assert server.stdin and server.stdout
    replies: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=lambda: [replies.put(x) for x in server.stdout], daemon=True)
    reader.start()
    server.stdin.write("\n".join(lines) + "\n")
    server.stdin.flush()  # held open until every answer is in: EOF ends the session
    answers = [json.loads(replies.get(timeout=30)) for _ in range(len(_MALFORMED) + 2)]
    server.stdin.close()
    stderr = server.stderr.read() if server.stderr else ""
    assert server.wait(timeout=30) == 0 and "Traceback" not in stderr
    reader.join(timeout=10)
    assert replies.empty()  # one answer a request, no more
    by_id = {a["id"]: a for a in answers if a["id"] in (1, 99)}
    assert "result" in by_id[1] and by_id[99]["result"]["tools"]
    errors = [(a["error"]["code"], a["id"]) for a in answers if a["id"] not in (1, 99)]
    expected = [(code, rid) for _, code, rid in _MALFORMED]
    assert sorted(errors, key=str) == sorted(expected, key=str), answers
