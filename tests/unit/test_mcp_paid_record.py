"""`svc mcp` keeps one paid record per tool call (issue 29.1): a call that paid and then
failed answers with a code that cannot read as "nothing was charged" and names the task; the
next call, which paid nothing, keeps its own code."""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from svc import paid_record
from svc.errors import UsageError
from svc.mcp import server as mcp_server
from svc.pay.budget import PayingSession


class _Params:
    name = "info"
    arguments: dict[str, Any] = {}  # noqa: RUF012


class _Call:
    vault = mcp_server.Vault()

    async def beating(self, work: Callable[[], Awaitable[Any]]) -> Any:
        return await work()


async def _paid_then_failed(call: object, args: dict[str, Any]) -> Any:
    paid_record.current().accepted("req_mcp_paid_1", "task_mcp_1")
    raise UsageError("a later step failed")


async def _failed(call: object, args: dict[str, Any]) -> Any:
    raise UsageError("bad argument")


def _answer(handler: Any) -> dict[str, Any]:
    server = mcp_server.SvcServer.__new__(mcp_server.SvcServer)
    server.log = mcp_server.ClientLog()
    server.paying = PayingSession("mcp_paid_record_test", time.time())
    server.call_for = lambda ctx, params=None: _Call()  # type: ignore[method-assign,assignment,return-value]
    server._dispatch = lambda call, name, args: handler(call, args)  # type: ignore[method-assign]
    result = anyio.run(server.call_tool, None, _Params())
    assert result.structured_content is None  # an error: the object is in _meta (issue 31)
    return dict((result.meta or {})["svc/error"])


def test_each_mcp_call_has_its_own_paid_record() -> None:
    before = paid_record.current().requests()
    paid = _answer(_paid_then_failed)
    unpaid = _answer(_failed)
    assert paid["exit_code"] == 1 and "task_mcp_1" in paid["hint"]
    assert unpaid["exit_code"] == 2 and "task_mcp_1" not in json.dumps(unpaid)
    assert paid_record.current().requests() == before  # nothing leaked into the process's
