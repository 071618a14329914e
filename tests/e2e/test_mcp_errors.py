"""`svc mcp` tool errors are the contract's error object (`svc --json`'s), through the official
MCP client: an `invalid_token` carries its `reason` and that reason's own fix (issue 21.6), so
the model can tell a stale token from a header a proxy changed."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import Cli, _base_env
from tests.e2e.test_hostile_answers import REASON_FIXES
from tests.e2e.test_mcp import run, served
from tests.hostile_answers import AnswersPeer, Busy

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("reason", ["unrecognized_agent_credential", "token_expired"])
def test_an_invalid_token_tool_error_names_its_reason_and_fix(
    tmp_path: Path, answers_peer: AnswersPeer, reason: str
) -> None:
    body = f'{{"error": "invalid_token", "reason": "{reason}", "detail": "refused"}}'
    answers_peer.config.busy = [Busy(401, {"WWW-Authenticate": "Bearer"}, body)]
    home = tmp_path / "home"
    home.mkdir()
    cli = Cli(home, {**_base_env(home), "SVC_BASE_URL": answers_peer.url})
    docs: list[object] = []

    async def body_() -> None:
        async with served(cli) as (session, _):
            result = await session.call_tool("get_task", {"task_id": "task_mine"})
            assert result.is_error
            docs.append(result.structured_content)

    run(body_)
    [doc] = docs
    assert isinstance(doc, dict)
    assert (doc["error"], doc["reason"], doc["status"]) == ("invalid_token", reason, 401), doc
    assert doc["exit_code"] == 4
    assert REASON_FIXES[reason] in doc["hint"], doc
