"""The identity platform under `{base}/auth`, its verification page, and its admin helpers.

Registration (anonymous, service_auth, identity_assertion with an ID-JAG, refresh), the claim
ceremony (mint a link, a page a person opens to sign in, read a code and confirm, complete),
the jwt-bearer token exchange, entitlements and both discovery documents.
"""

from __future__ import annotations

import html
from typing import Annotated, Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse
from pydantic import BaseModel, ConfigDict, Field

from svc_sandbox.errors import SandboxError
from svc_sandbox.identity import agent_bearer
from svc_sandbox.identity.platform import IdentityPlatform
from svc_sandbox.identity.registrations import Where
from svc_sandbox.identity.store import (
    ID_JAG_TOKEN_TYPE,
    ID_JAG_TYP,
    JWT_BEARER,
    TRUSTED_ISSUERS,
    UNTRUSTED_ISSUER,
    Attempt,
    IdentityError,
)
from svc_sandbox.routes.deps import sandbox_state
from svc_sandbox.state.records import iso
from svc_sandbox.state.sandbox import SandboxState

AUTH_PREFIX = "/auth"
router = APIRouter(prefix=AUTH_PREFIX, tags=["identity"])
admin_router = APIRouter(prefix="/_sandbox/identity", tags=["sandbox"])

State = Annotated[SandboxState, Depends(sandbox_state)]


def platform(state: SandboxState) -> IdentityPlatform:
    found = getattr(state, "identity", None)
    assert isinstance(found, IdentityPlatform)
    return found


def base_url(request: Request) -> str:
    return str(request.base_url).rstrip("/")


def auth_base(request: Request) -> str:
    return base_url(request) + AUTH_PREFIX


def _config(state: SandboxState, name: str, default: Any) -> Any:
    return getattr(state.get_config(), name, default)


def _fail(exc: IdentityError) -> SandboxError:
    headers = {}
    if exc.status == 429 and "retry_after" in exc.extra:
        headers["Retry-After"] = str(exc.extra["retry_after"])
    return SandboxError(exc.status, exc.body(), headers)


async def _json_object(request: Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except ValueError:
        raise SandboxError(
            400, {"error": "invalid_request", "detail": "the body must be JSON"}
        ) from None
    if not isinstance(body, dict):
        raise SandboxError(
            400, {"error": "invalid_request", "detail": "the body must be an object"}
        )
    return body


def _string(body: dict[str, Any], name: str) -> str:
    value = body.get(name)
    if not isinstance(value, str) or not value:
        raise SandboxError(400, {"error": "invalid_request", "detail": f"{name} is required"})
    return value


# --- registration and refresh -------------------------------------------------------------


@router.post("/agent/identity")
async def register(request: Request, state: State) -> JSONResponse:
    body = await _json_object(request)
    where = Where(
        issuer=auth_base(request),
        resource=base_url(request),
        now=state.clock.now(),
        anonymous_allowed=bool(_config(state, "anonymous_registration", True)),
        service_auth_allowed=bool(_config(state, "service_auth_registration", True)),
    )
    try:
        doc, status = platform(state).registrations.handle(body, where)
    except IdentityError as exc:
        raise _fail(exc) from None
    return JSONResponse(doc, status_code=status)


# --- claim ---------------------------------------------------------------------------------


@router.post("/agent/identity/claim")
async def mint_claim_attempt(request: Request, state: State) -> JSONResponse:
    body = await _json_object(request)
    try:
        if body.get("type") != "service_auth":
            raise IdentityError(400, "invalid_request", "type must be service_auth")
        hint = body.get("login_hint")
        if not isinstance(hint, str):
            raise IdentityError(400, "invalid_login_hint", "login_hint (an e-mail) is required")
        doc = platform(state).claims.mint_attempt(
            _string(body, "claim_token"), hint, auth_base(request) + "/verify", state.clock.now()
        )
    except IdentityError as exc:
        raise _fail(exc) from None
    return JSONResponse(doc, status_code=201)


@router.post("/agent/identity/claim/complete")
async def complete_claim(request: Request, state: State) -> dict[str, Any]:
    body = await _json_object(request)
    try:
        return platform(state).claims.complete(
            _string(body, "claim_token"),
            _string(body, "user_code"),
            auth_base(request),
            state.clock.now(),
        )
    except IdentityError as exc:
        raise _fail(exc) from None


# --- the verification page ----------------------------------------------------------------

# Landmarks (main, footer) and a viewport (the link is often a QR code opened on a phone);
# checked by axe-core in a real browser (tests/e2e/test_browser_pages.py).
_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc sandbox: claim an agent</title>
<style>body{{font-family:system-ui,sans-serif;max-width:34em;margin:3em auto;padding:0 1em}}
code{{font-size:2em;letter-spacing:.1em}}</style></head>
<body><main><h1>Claim an agent credential</h1>{body}</main>
<footer><p><small>svc sandbox identity platform: no real account is involved.</small></p>
</footer></body></html>
"""


def _page(body: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(_PAGE.format(body=body), status_code=status)


def _attempt_body(attempt: Attempt, action: str) -> str:
    who = html.escape(attempt.login_hint)
    if not attempt.signed_in:
        return (
            f"<p>An agent asks to act for <strong>{who}</strong>.</p>"
            f'<form method="post" action="{action}/sign-in">'
            f'<label>E-mail <input name="email" value="{who}" readonly></label> '
            '<button type="submit">Sign in</button></form>'
        )
    code = html.escape(attempt.user_code)
    shown = f'<p>Your code: <code id="user-code">{code}</code></p>'
    if attempt.decision == "denied":
        return f"<p>Signed in as {who}.</p><p>You declined: the agent stays unclaimed.</p>"
    if attempt.decision == "approved":
        return (
            f"<p>Signed in as {who}.</p>{shown}"
            "<p>Confirmed. Type the code into the terminal where the agent asked.</p>"
        )
    return (
        f"<p>Signed in as {who}.</p>{shown}"
        "<p>Type this code into the terminal, and confirm that the agent may act for you.</p>"
        f'<form method="post" action="{action}/decision">'
        '<button type="submit" name="decision" value="approve">Confirm</button> '
        '<button type="submit" name="decision" value="deny">Deny</button></form>'
    )


@router.get("/verify/{attempt_id}", response_class=HTMLResponse)
def verification_page(attempt_id: str, request: Request, state: State) -> HTMLResponse:
    attempt = platform(state).claims.attempt(attempt_id)
    if attempt is None:
        return _page("<p>This link is not known.</p>", 404)
    if attempt.completed:
        return _page("<p>This agent is claimed. You can close this page.</p>")
    if state.clock.now() >= attempt.expires_at:
        return _page("<p>This link has expired. Ask the agent for a fresh one.</p>", 410)
    return _page(_attempt_body(attempt, f"{AUTH_PREFIX}/verify/{html.escape(attempt_id)}"))


async def _form(request: Request) -> dict[str, str]:
    raw = (await request.body()).decode("utf-8", "replace")
    return {k: v[0] for k, v in parse_qs(raw).items() if v}


@router.post("/verify/{attempt_id}/sign-in", response_model=None)
async def page_sign_in(
    attempt_id: str, request: Request, state: State
) -> RedirectResponse | HTMLResponse:
    form = await _form(request)
    try:
        platform(state).claims.sign_in(attempt_id, form.get("email", ""), state.clock.now())
    except IdentityError as exc:
        return _page(f"<p>{html.escape(exc.detail)}</p>", exc.status)
    return RedirectResponse(f"{AUTH_PREFIX}/verify/{attempt_id}", status_code=303)


@router.post("/verify/{attempt_id}/decision", response_model=None)
async def page_decision(
    attempt_id: str, request: Request, state: State
) -> RedirectResponse | HTMLResponse:
    form = await _form(request)
    try:
        approve = form.get("decision") == "approve"
        platform(state).claims.decide(attempt_id, approve, state.clock.now())
    except IdentityError as exc:
        return _page(f"<p>{html.escape(exc.detail)}</p>", exc.status)
    return RedirectResponse(f"{AUTH_PREFIX}/verify/{attempt_id}", status_code=303)


# --- tokens and entitlements --------------------------------------------------------------


@router.post("/oauth2/token")
async def token(request: Request, state: State) -> JSONResponse:
    form = await _form(request)
    ttl = int(_config(state, "access_token_ttl_seconds", 300))
    try:
        doc = platform(state).tokens.exchange(
            form.get("grant_type"), form.get("assertion"), ttl, state.clock.now()
        )
    except IdentityError as exc:
        raise _fail(exc) from None
    return JSONResponse(doc, headers={"Cache-Control": "no-store"})


@router.get("/agent/entitlements")
def entitlements(request: Request, state: State) -> dict[str, Any]:
    ident = platform(state)
    agent = agent_bearer.request_agent(ident, request, state.clock.now(), required=True)
    assert agent is not None
    return ident.tokens.entitlements(agent)


# --- discovery ------------------------------------------------------------------------------


@router.get("/.well-known/oauth-authorization-server")
def authorization_server(request: Request) -> dict[str, Any]:
    auth = auth_base(request)
    return {
        "issuer": auth,
        "token_endpoint": f"{auth}/oauth2/token",
        "grant_types_supported": [JWT_BEARER],
        "token_endpoint_auth_methods_supported": ["none"],
        "response_types_supported": [],
        "agent_auth": {
            "registration_endpoint": f"{auth}/agent/identity",
            "claim_endpoint": f"{auth}/agent/identity/claim",
            "claim_completion_endpoint": f"{auth}/agent/identity/claim/complete",
            "entitlements_endpoint": f"{auth}/agent/entitlements",
            "registration_types_supported": [
                "anonymous",
                "service_auth",
                "identity_assertion",
                "refresh",
            ],
            "assertion_types_supported": [ID_JAG_TOKEN_TYPE],
            "identity_assertion_audience": auth,
        },
    }


@router.get("/.well-known/oauth-protected-resource")
def protected_resource(request: Request) -> dict[str, Any]:
    return {
        "resource": base_url(request),
        "authorization_servers": [auth_base(request)],
        "bearer_methods_supported": ["header"],
        "resource_name": "svc task-execution service (sandbox)",
    }


# --- admin (tests and demos) ---------------------------------------------------------------


class IdJagRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    email: str = Field(min_length=3, max_length=254)
    issuer: str = TRUSTED_ISSUERS[0]
    aud: str | None = None
    email_verified: bool = True
    exp_seconds: int = Field(default=300, ge=-86_400, le=86_400)
    auth_age_seconds: int = Field(default=60, ge=0, le=10 * 365 * 86_400)
    typ: str = ID_JAG_TYP
    bad_signature: bool = False
    jti: str | None = None


class GrantRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    email: str
    plan_id: str = "credit-pack"
    units: int = Field(default=10, ge=0)


@admin_router.post("/id-jag")
def mint_id_jag(spec: IdJagRequest, request: Request, state: State) -> dict[str, Any]:
    issuer = {"a": TRUSTED_ISSUERS[0], "b": TRUSTED_ISSUERS[1], "untrusted": UNTRUSTED_ISSUER}.get(
        spec.issuer, spec.issuer
    )
    try:
        assertion = platform(state).registrations.mint_id_jag(
            email=spec.email,
            issuer=issuer,
            aud=spec.aud or auth_base(request),
            now=state.clock.now(),
            email_verified=spec.email_verified,
            exp_seconds=spec.exp_seconds,
            auth_age_seconds=spec.auth_age_seconds,
            typ=spec.typ,
            bad_signature=spec.bad_signature,
            jti=spec.jti,
        )
    except IdentityError as exc:
        raise _fail(exc) from None
    return {"assertion": assertion, "issuer": issuer, "trusted_issuers": list(TRUSTED_ISSUERS)}


@admin_router.get("/agents/{agent_id}")
def agent_internals(agent_id: str, state: State) -> dict[str, Any]:
    view = platform(state).tokens.agent_view(agent_id)
    if view is None:
        raise SandboxError(404, {"error": "not_found", "detail": f"no agent {agent_id!r}"})
    return view


@admin_router.get("/attempts/{attempt_id}")
def attempt_internals(attempt_id: str, state: State) -> dict[str, Any]:
    view = platform(state).claims.attempt_for_claim_link(attempt_id)
    if view is None:
        raise SandboxError(404, {"error": "not_found", "detail": f"no attempt {attempt_id!r}"})
    return view


@admin_router.post("/claim-code")
def claim_code(state: State, attempt_id: str | None = None) -> dict[str, Any]:
    """Sign in and approve a pending claim link as its person, and hand back its code."""
    attempt = platform(state).claims.sign_in_pending(attempt_id, state.clock.now())
    if attempt is None:
        detail = "no pending claim link; run svc identity claim first"
        raise SandboxError(404, {"error": "not_found", "detail": detail})
    return {
        "attempt_id": attempt.id,
        "login_hint": attempt.login_hint,
        "user_code": attempt.user_code,
        "expires_at": iso(attempt.expires_at),
    }


@admin_router.post("/grants")
def grant(spec: GrantRequest, state: State) -> dict[str, Any]:
    plan = {
        "plan_id": spec.plan_id,
        "service": "tasks",
        "meter": "task",
        "status": "active",
        "remaining": {"units": spec.units},
    }
    platform(state).tokens.grant(spec.email, plan)
    return {"granted": plan, "email": spec.email}
