"""The raw JSON-RPC messages tests write to `svc mcp` without an SDK client (a malformed line,
a signal after the handshake, an attack on the HTTP guard): one copy of each."""

from __future__ import annotations

from typing import Any

INITIALIZED: dict[str, Any] = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def initialize(client: str, *, version: str = "2025-11-25", id_: int = 1) -> dict[str, Any]:
    """An `initialize` request from a client named `client`, asking for protocol `version`."""
    return {
        "jsonrpc": "2.0",
        "id": id_,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": client, "version": "1"},
        },
    }


def tools_list(id_: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "method": "tools/list", "params": {}}
