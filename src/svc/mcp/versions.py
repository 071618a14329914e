"""The protocol versions svc serves: only those whose asks it keeps its promises under.

Under 2025 versions the person is asked by elicitation over the back channel (or, where a
version or a channel has none, refused with nothing paid); under 2026-07-28 by input-required
rounds (`svc.mcp.rounds`). A version the SDK learns later is not served until svc has been
checked under it: `VersionGate` refuses requests at any other version, never counter-offers
one, and lists only these in `server/discover`.
"""

from __future__ import annotations

from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import UNSUPPORTED_PROTOCOL_VERSION

SERVED = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")


def _refused(version: object) -> MCPError:
    return MCPError(
        code=UNSUPPORTED_PROTOCOL_VERSION,
        message=f"svc does not serve protocol version {str(version)[:40]!r}",
        data={"supported": list(SERVED), "requested": str(version)[:40]},
    )


class VersionGate:
    """Server middleware: the versions in `SERVED`, and no other."""

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.method != "initialize" and ctx.protocol_version not in SERVED:
            raise _refused(ctx.protocol_version)
        result = await call_next(ctx)
        if not isinstance(result, dict):
            return result
        if ctx.method == "initialize" and result.get("protocolVersion") not in SERVED:
            raise _refused(result.get("protocolVersion"))
        if ctx.method == "server/discover" and isinstance(result.get("supportedVersions"), list):
            served = [v for v in result["supportedVersions"] if v in SERVED]
            return {**result, "supportedVersions": served}
        return result
