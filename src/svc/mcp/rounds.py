"""Asks under the 2026-07-28 protocol: input-required rounds with sealed request state.

That protocol has no back channel: a server cannot send `elicitation/create` in the middle of a
call. The call ends instead with an `input_required` result carrying the question (the very
form elicitation would show) and a `requestState`; the client shows the form to the person and
calls the tool again with the answer and the state.

The state is sealed by the SDK's `RequestStateBoundary`: AES-256-GCM under a key made at start
and held only by this process, with an expiry, bound to the tool and its exact arguments, so a
client can neither read it nor change it nor move it to another call. What the boundary cannot
know is whether a state was used already: each carries a nonce, spent on first use, so a
replayed round is refused exactly like a tampered one (and a replayed payment round would find
its request id paid in the ledger anyway).

A state names what was asked ("pay 1.50 USD by x402 to 0x.. for request R", "sms_code of task
T"): an answer counts only for the very question its state names. One call may need several
answers (a structured ask with two secret keys): they come one round after another, and the
answers of the earlier rounds ride in the next state, sealed, until all are in and the call
goes through. A kept answer is readable by this process alone, only for the tool and the
exact arguments it was asked for, and only until the state expires; nothing else is kept
between rounds (the 2026-07-28 server holds no session).
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from svc.errors import SvcError
from svc.mcp.human import Human
from svc.mcp.pending import ANSWER_TIMEOUT, PendingQuestions

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext
    from mcp.server.lowlevel import Server
    from mcp.server.session import ServerSession
    from mcp_types import RequestId

# (what was asked, the accepted form's content): an answer of an earlier round of one call.
Kept = tuple[dict[str, Any], dict[str, Any]]

ANSWER_KEY = "person"  # the one input request of a round: what the person answers
STATE_VERSION = 1
AUDIENCE = "svc-mcp"  # a state minted by another server under the same key is not ours
SPENT_LIMIT = 100_000  # live nonces remembered at most; past it new states are refused


class InputNeeded(SvcError):
    """The person must answer first: the call ends in an input-required round.

    A `SvcError` so that the paid flow treats it as any refusal before a signature: the
    journal marks the request rejected (nothing held, nothing signed) and the next round
    resumes the same request id.
    """

    default_code = "input_required"

    def __init__(
        self,
        question: str,
        schema: dict[str, Any],
        about: dict[str, Any],
        kept: list[Kept] | None = None,
    ) -> None:
        super().__init__(
            "the person has to answer first", hint="nothing was signed, paid or sent yet"
        )
        self.question = question
        self.schema = schema
        self.about = about
        # the earlier rounds' answers of this call, for the next state
        self.kept: list[Kept] = kept or []


def refused_state() -> MCPError:
    """The SDK boundary's own answer to a bad state: a replay reads like a forgery."""
    return MCPError(
        code=INVALID_PARAMS,
        message="Invalid or expired requestState",
        data={"reason": "invalid_request_state"},
    )


class SpentNonces:
    """Nonces of states already used, until they could no longer be unsealed anyway."""

    def __init__(self, ttl: float, limit: int = SPENT_LIMIT) -> None:
        self._ttl = ttl + 60.0  # the boundary's clock skew allowance
        self._limit = limit
        self._seen: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

    def spend(self, nonce: str) -> bool:
        """True the first time a nonce is seen, False for every later time. Only expired
        nonces are forgotten: with `limit` live ones remembered (a flood), a new state is
        refused rather than a live nonce evicted, which would make its state replayable."""
        now = time.monotonic()
        with self._lock:
            while self._seen and next(iter(self._seen.values())) < now - self._ttl:
                self._seen.popitem(last=False)
            if nonce in self._seen or len(self._seen) >= self._limit:
                return False
            self._seen[nonce] = now
            return True


class RoundHuman(Human):
    """The person behind a 2026-07-28 client: asked by ending the call with the question."""

    def __init__(
        self,
        session: ServerSession,
        related_request_id: RequestId | None,
        asked: dict[str, Any] | None,
        answer: types.ElicitResult | None,
        kept: list[Kept] | None = None,
    ) -> None:
        super().__init__(session, related_request_id)
        self._asked = asked
        self._answer = answer
        self._kept = list(kept or [])

    @property
    def reachable(self) -> bool:
        """Whether the client declared a form it can show (a bare `elicitation: {}` is one)."""
        caps = self._session.client_capabilities
        found = caps.elicitation if caps is not None else None
        return found is not None and (found.form is not None or found.url is None)

    def resumed(self, kind: str, key: str) -> Any:
        asked = self._asked or {}
        return asked.get(key) if asked.get("kind") == kind else None

    async def _ask(
        self, message: str, schema: dict[str, Any], about: dict[str, Any]
    ) -> dict[str, Any] | None:
        if not self.reachable:
            return None
        for kept_about, content in self._kept:  # answered in an earlier round of this call
            if kept_about == about:
                return dict(content)
        if self._asked != about or self._answer is None:
            raise InputNeeded(message, schema, about, self._kept)
        answer, self._answer = self._answer, None  # one answer answers one question
        if answer.action != "accept" or answer.content is None:
            return None
        content = dict(answer.content)
        self._kept.append((about, content))  # a later question of this call ends a round too
        return content


class Rounds:
    """The server's sealing policy and spent nonces: one per process."""

    def __init__(self) -> None:
        self.security: RequestStateSecurity = RequestStateSecurity.ephemeral(
            ttl=ANSWER_TIMEOUT, audience=AUDIENCE
        )
        self.spent: SpentNonces = SpentNonces(ANSWER_TIMEOUT)

    def install(self, server: Server[Any]) -> None:
        """Seal every outgoing state and check every incoming one before a handler runs."""
        server.middleware.append(RequestStateBoundary(self.security, default_audience=AUDIENCE))

    def human_for(
        self,
        ctx: ServerRequestContext[Any],
        params: types.CallToolRequestParams | None,
        pending: PendingQuestions,
        deadline: float,
    ) -> Human:
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:  # a back channel: elicitation
            return Human(ctx.session, ctx.request_id, pending, deadline)
        asked, kept = self._asked(params.request_state if params is not None else None)
        responses = (params.input_responses if params is not None else None) or {}
        answer = responses.get(ANSWER_KEY)
        found = answer if isinstance(answer, types.ElicitResult) else None
        return RoundHuman(ctx.session, ctx.request_id, asked, found, kept)

    def _asked(self, state: str | None) -> tuple[dict[str, Any] | None, list[Kept]]:
        """What the last round asked and the answers kept from the rounds before it; the
        boundary has verified the seal, this the nonce and the shape."""
        if state is None:
            return None, []
        try:
            doc = json.loads(state)
            about, nonce = doc["about"], doc["nonce"]
            kept = [(dict(a), dict(c)) for a, c in doc.get("kept", [])]
        except (ValueError, KeyError, TypeError):
            raise refused_state() from None
        if doc.get("v") != STATE_VERSION or not isinstance(about, dict):
            raise refused_state()
        if not isinstance(nonce, str) or not self.spent.spend(nonce):
            raise refused_state()
        return about, kept


def input_required(need: InputNeeded) -> types.InputRequiredResult:
    """The round that asks: the form for the person and the state naming the question."""
    state: dict[str, Any] = {
        "v": STATE_VERSION,
        "about": need.about,
        "nonce": secrets.token_urlsafe(18),
    }
    if need.kept:  # sealed by the boundary on the way out, like the rest of the state
        state["kept"] = [[about, content] for about, content in need.kept]
    question = types.ElicitRequest(
        params=types.ElicitRequestFormParams(message=need.question, requested_schema=need.schema)
    )
    return types.InputRequiredResult(
        input_requests={ANSWER_KEY: question},
        request_state=json.dumps(state, separators=(",", ":")),
    )
