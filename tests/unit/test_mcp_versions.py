"""svc serves exactly the protocol versions it was checked under (issue 31.2)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import UNSUPPORTED_PROTOCOL_VERSION
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS

from svc.mcp.versions import SERVED, VersionGate


class Ctx:
    def __init__(self, method: str, version: str) -> None:
        self.method = method
        self.protocol_version = version


def gate(method: str, version: str, result: dict[str, Any]) -> Any:
    async def call_next(ctx: Any) -> dict[str, Any]:
        return result

    return anyio.run(VersionGate().__call__, Ctx(method, version), call_next)  # type: ignore[arg-type]


def test_every_version_the_sdk_knows_was_checked() -> None:
    """An SDK that learns a new version fails here: serve it only once asks are checked
    under it (tests/e2e/test_mcp_rounds.py for the stateless kind)."""
    assert set(KNOWN_PROTOCOL_VERSIONS) == set(SERVED)


def test_a_version_svc_was_not_checked_under_is_refused_never_offered() -> None:
    with pytest.raises(MCPError) as caught:
        gate("tools/call", "2099-01-01", {})
    assert caught.value.error.code == UNSUPPORTED_PROTOCOL_VERSION
    with pytest.raises(MCPError):
        gate("initialize", "2025-11-25", {"protocolVersion": "2099-01-01"})
    found = gate("server/discover", "2026-07-28", {"supportedVersions": ["2026-07-28", "2099"]})
    assert found["supportedVersions"] == ["2026-07-28"]
    assert gate("tools/list", "2025-06-18", {"tools": []}) == {"tools": []}
