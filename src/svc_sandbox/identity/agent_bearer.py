"""Agent bearers on the task endpoints: where they may appear and how they verify.

- `Authorization: Bearer <token>` when `Authorization` is free;
- `svc-agent-authorization: Bearer <token>` (exactly one) beside `Authorization: Payment ...`;
- the same token in both places is tolerated; two different ones are
  `conflicting_agent_credentials`;
- `Authorization: Payment ..., Bearer ...` is `combined_authorization_unsupported`.
Every refusal is `401 {error: "invalid_token", reason, detail}`.
"""

from __future__ import annotations

import re
from datetime import datetime

from fastapi import Request

from svc_sandbox.errors import SandboxError
from svc_sandbox.identity.platform import IdentityPlatform
from svc_sandbox.identity.store import Agent, TokenRejected

AGENT_HEADER = "svc-agent-authorization"
_ONE_BEARER = re.compile(r"^Bearer ([A-Za-z0-9\-._~+/]+=*)$")


def invalid_token(reason: str, detail: str) -> SandboxError:
    return SandboxError(
        401,
        {"error": "invalid_token", "reason": reason, "detail": detail},
        {"WWW-Authenticate": f'Bearer error="invalid_token", error_description="{reason}"'},
    )


def bearer_required() -> SandboxError:
    return SandboxError(
        401,
        {
            "error": "bearer_required",
            "detail": "this operation needs an agent credential: register, then retry with a "
            "bearer",
        },
        {"WWW-Authenticate": 'Bearer realm="svc"'},
    )


def presented_token(request: Request) -> str | None:
    """The one agent token the request carries (None if none); refuses bad placements."""
    authorization = request.headers.get("authorization")
    extra = request.headers.getlist(AGENT_HEADER)
    from_authorization: str | None = None
    if authorization is not None:
        scheme = authorization.split(" ", 1)[0].lower()
        if "," in authorization and scheme in ("payment", "bearer"):
            raise invalid_token(
                "combined_authorization_unsupported",
                "send the payment in Authorization and the bearer in svc-agent-authorization",
            )
        if scheme == "bearer":
            match = _ONE_BEARER.match(authorization)
            if match is None:
                raise invalid_token("token_invalid", "Authorization: Bearer <token> is malformed")
            from_authorization = match.group(1)
    from_header: str | None = None
    if extra:
        match = _ONE_BEARER.match(extra[0]) if len(extra) == 1 else None
        if match is None:
            raise invalid_token(
                "malformed_agent_authorization",
                f"{AGENT_HEADER} must be exactly one 'Bearer <token>'",
            )
        from_header = match.group(1)
    if from_authorization and from_header and from_authorization != from_header:
        raise invalid_token("conflicting_agent_credentials", "two different agent tokens were sent")
    return from_authorization or from_header


def verify(platform: IdentityPlatform, token: str, now: datetime) -> Agent:
    try:
        return platform.tokens.verify_access(token, now)
    except TokenRejected as exc:
        raise invalid_token(exc.reason, exc.detail) from None


def request_agent(
    platform: IdentityPlatform, request: Request, now: datetime, *, required: bool = False
) -> Agent | None:
    """The verified agent behind the request's bearer; 401 when a bearer is bad or missing."""
    token = presented_token(request)
    if token is None:
        if required:
            raise bearer_required()
        return None
    return verify(platform, token, now)
