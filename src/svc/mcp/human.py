"""The person behind the MCP client, reached through elicitation.

Two questions are ever asked: "pay this?" and "type this secret". Both go to the client's own
form for the person, never through the model. The answers stay in this process: a secret is
returned to the caller that sends it to the service and is written nowhere else.

The payment question is asked from the submit flow's worker thread (the policy's approval hook
is synchronous), so `confirm_from_thread` hops back onto the event loop to send the request.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import anyio
import anyio.from_thread
import mcp_types as types
from mcp.shared.message import ServerMessageMetadata

from svc.mcp.pending import PendingQuestions
from svc.ui.terminal import error_line

if TYPE_CHECKING:
    from mcp.server.session import ServerSession
    from mcp_types import RequestId

# The first protocol version whose elicitation requests carry `mode` (url mode came with it);
# an older client may refuse a field its schema does not have. Versions are ISO dates.
MODE_SINCE = "2025-11-25"

CONFIRM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pay": {
            "type": "boolean",
            "title": "Pay",
            "description": "Tick to pay; anything else pays nothing.",
            "default": False,
        }
    },
    "required": ["pay"],
}


def secret_schema(field: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "value": {
                "type": "string",
                "title": field[:64],
                "minLength": 1,
                "maxLength": 4000,
            }
        },
        "required": ["value"],
    }


class Human:
    def __init__(
        self,
        session: ServerSession,
        related_request_id: RequestId | None,
        pending: PendingQuestions | None = None,
        deadline: float = math.inf,
    ) -> None:
        """`pending`: the server's open questions, which outlive a call; `deadline`
        (time.monotonic()): when this call stops waiting for an answer and says so."""
        self._session = session
        self._related = related_request_id
        self._pending = pending or PendingQuestions()
        self._deadline = deadline

    @property
    def reachable(self) -> bool:
        """Whether the client declared it can show the person a form (elicitation) and this
        channel can carry the question (stateless HTTP has no way back for the answer)."""
        caps = self._session.client_capabilities
        return caps is not None and caps.elicitation is not None and self._session.can_send_request

    def resumed(self, kind: str, key: str) -> Any:
        """A value the question answered in this call was asked about (`svc.mcp.rounds`);
        elicitation asks within the call, so nothing is ever resumed here."""
        return None

    async def _ask(
        self, message: str, schema: dict[str, Any], about: dict[str, Any]
    ) -> dict[str, Any] | None:
        """The accepted form's content, or None (declined, cancelled, or the client failed).
        `about` names the question for the 2026-07-28 rounds; elicitation needs no name."""
        if not self.reachable:
            return None
        result = await self._pending.answer(
            self._session, about, lambda: self._elicit(message, schema), self._deadline
        )
        if result is None or result.action != "accept" or result.content is None:
            return None
        return dict(result.content)

    async def _elicit(self, message: str, schema: dict[str, Any]) -> types.ElicitResult | None:
        """The form's result (None: the client failed, which must read as "no", never crash
        the call)."""
        try:
            return await self._form(message, schema)
        except Exception as exc:
            error_line(f"svc mcp: the client could not ask the person ({type(exc).__name__})")
            return None

    async def _form(self, message: str, schema: dict[str, Any]) -> types.ElicitResult:
        """A form request in the words of the negotiated version: `mode` only from 2025-11-25."""
        if self._session.protocol_version >= MODE_SINCE:
            return await self._session.elicit_form(message, schema, self._related)
        # The SDK's model always sets mode="form"; a None is left out when it is sent.
        fields: dict[str, Any] = {"message": message, "requested_schema": schema, "mode": None}
        params = types.ElicitRequestFormParams.model_construct(**fields)
        return await self._session.send_request(
            types.ElicitRequest(params=params),
            types.ElicitResult,
            metadata=ServerMessageMetadata(related_request_id=self._related),
        )

    async def confirm(self, message: str, about: dict[str, Any]) -> bool:
        content = await self._ask(message, CONFIRM_SCHEMA, about)
        return content is not None and content.get("pay") is True

    def confirm_from_thread(self, message: str, about: dict[str, Any]) -> bool:
        """`confirm` from a worker thread started by `anyio.to_thread.run_sync`."""
        return anyio.from_thread.run(self.confirm, message, about)

    async def secret(self, message: str, field: str, task_id: str) -> str | None:
        """A value the person typed for `field` of the task, or None if they gave none."""
        about = {"kind": "secret", "task": task_id, "field": field}
        content = await self._ask(message, secret_schema(field), about)
        value = content.get("value") if content else None
        if not isinstance(value, str) or not value.strip() or len(value) > 4000:
            return None
        return value
