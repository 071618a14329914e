"""What the identity, card, verification-page and discovery routes take and answer.

Those routes read their bodies by hand (a registration's fields depend on its `type`; the
token exchange is form-encoded), so FastAPI cannot describe them. This module is their
description, kept next to nothing but itself: request bodies, every status each route answers,
and each status's body schema. `document` merges it into the public document, and the
schemathesis run in the tests holds the routes to it.
"""

from __future__ import annotations

from typing import Any

from svc_sandbox.identity.store import ID_JAG_TOKEN_TYPE, JWT_BEARER

_ERROR = {"$ref": "#/components/schemas/ErrorBody"}
_TIME = {"type": "string", "format": "date-time"}
_URL = {"type": "string", "format": "uri"}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _error(description: str) -> dict[str, Any]:
    return _json(description, _ERROR)


def _page(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"text/html": {"schema": {"type": "string"}}}}


def _object(required: list[str], **properties: Any) -> dict[str, Any]:
    return {"type": "object", "required": required, "properties": properties}


def _body(schema: dict[str, Any], media: str = "application/json") -> dict[str, Any]:
    return {"required": True, "content": {media: {"schema": schema}}}


def _variant(kind: str, **fields: Any) -> dict[str, Any]:
    return _object(["type", *fields], type={"const": kind}, **fields)


_TOKEN = {"type": "string", "minLength": 1}
_EMAIL = {"type": "string", "format": "email"}

SCHEMAS: dict[str, Any] = {
    "AgentIdentity": _object(
        ["assertion", "expires_at"],
        assertion=_TOKEN,
        expires_at=_TIME,
        refresh_token=_object(["value", "expires_at"], value=_TOKEN, expires_at=_TIME),
    ),
    "ClaimAttempt": _object(
        ["verification_uri", "expires_at"], verification_uri=_URL, expires_at=_TIME
    ),
    "ClaimBlock": _object(
        ["token", "expires_at"], token=_TOKEN, expires_at=_TIME, attempt=_ref("ClaimAttempt")
    ),
    "Registration": _object(
        ["id", "type", "claimed", "identity"],
        id={"type": "string"},
        type={"enum": ["anonymous", "service_auth", "identity_assertion"]},
        claimed={"type": "boolean"},
        identity={"anyOf": [_ref("AgentIdentity"), {"type": "null"}]},
        email=_EMAIL,
        expires_at=_TIME,
        claim=_ref("ClaimBlock"),
    ),
    "IdentityError": {
        "allOf": [
            _ERROR,
            {"type": "object", "properties": {"claim": _ref("ClaimBlock")}},
        ],
        "description": "An identity error; interaction_required carries the claim to finish.",
    },
    "ClaimAttemptResponse": _object(["attempt"], attempt=_ref("ClaimAttempt")),
    "AccessToken": _object(
        ["access_token", "token_type", "expires_in"],
        access_token=_TOKEN,
        token_type={"const": "Bearer"},
        expires_in={"type": "integer", "minimum": 0},
        scope={"type": "string"},
    ),
    "Entitlements": _object(
        ["credential", "claimed", "plans"],
        credential={"type": "string"},
        claimed={"type": "boolean"},
        plans={
            "type": "array",
            "items": _object(
                ["plan_id", "status"],
                plan_id={"type": "string"},
                service={"type": "string"},
                access_mode={"type": "string"},
                status={"type": "string"},
                remaining={
                    "description": "What is left, null for pay as you go.",
                    "anyOf": [_object(["units"], units={"type": "integer"}), {"type": "null"}],
                },
            ),
        },
        credentials={"type": "array", "items": {"type": "string"}},
    ),
    "AuthorizationServerMetadata": _object(
        ["issuer", "token_endpoint", "grant_types_supported", "agent_auth"],
        issuer=_URL,
        token_endpoint=_URL,
        grant_types_supported={"type": "array", "items": {"type": "string"}},
        agent_auth=_object(
            ["registration_endpoint", "claim_endpoint", "claim_completion_endpoint"],
            registration_endpoint=_URL,
            claim_endpoint=_URL,
            claim_completion_endpoint=_URL,
            entitlements_endpoint=_URL,
        ),
    ),
    "ProtectedResourceMetadata": _object(
        ["resource", "authorization_servers"],
        resource=_URL,
        authorization_servers={"type": "array", "items": _URL},
    ),
    "CardPayment": _object(
        ["id", "status", "complete", "amountUsd", "currency", "checkoutUrl", "statusUrl"],
        id={"type": "string"},
        status={"enum": ["open", "checkout", "paid", "consumed", "failed", "released", "refunded"]},
        complete={"type": "boolean"},
        amountUsd={"type": "string", "pattern": r"^[0-9]+\.[0-9]+$"},
        currency={"const": "USD"},
        checkoutUrl=_URL,
        statusUrl=_URL,
    ),
}

SECURITY_SCHEMES: dict[str, Any] = {
    "agentBearer": {
        "type": "http",
        "scheme": "bearer",
        "description": "An access token from the token exchange (Authorization: Bearer ...).",
    }
}

_REGISTER_BODY = {
    "oneOf": [
        _variant("anonymous"),
        _variant("service_auth", login_hint=_EMAIL),
        _variant(
            "identity_assertion",
            assertion_type={"const": ID_JAG_TOKEN_TYPE},
            assertion=_TOKEN,
        ),
        _variant("refresh", refresh_token=_TOKEN),
    ]
}
# Unknown fields are ignored, as the service does: no additionalProperties: false.
_CLAIM_BODY = _object(
    ["type", "claim_token", "login_hint"],
    type={"const": "service_auth"},
    claim_token=_TOKEN,
    login_hint=_EMAIL,
)
_COMPLETE_BODY = _object(["claim_token", "user_code"], claim_token=_TOKEN, user_code=_TOKEN)
_TOKEN_FORM = _object(
    ["grant_type", "assertion"], grant_type={"const": JWT_BEARER}, assertion=_TOKEN
)
_CHECKOUT_FORM = _object([], action={"enum": ["pay", "fail"]})
_FORM = "application/x-www-form-urlencoded"

_ID_400 = "invalid_request, or the step's own code (see the spec's identity flow codes)."
_PAGE_404 = "No such claim link (an HTML page)."
_PAGE_410 = "The claim link expired (an HTML page)."
_CARD_404 = "payment_unknown: no such payment at this seller."
_CARD_400 = "invalid_request: the body is not JSON."
_FORM_POST_RESPONSES = {
    "303": {
        "description": "Done: back to the page.",
        "headers": {"Location": {"schema": {"type": "string"}}},
    },
    "403": _page("wrong_account or not_signed_in (an HTML page)."),
    "404": _page(_PAGE_404),
    "410": _page(_PAGE_410),
}

# (path, method) -> what to set on the operation. `responses` replace FastAPI's guesses.
ROUTES: dict[tuple[str, str], dict[str, Any]] = {
    ("/auth/agent/identity", "post"): {
        "operationId": "registerAgent",
        "summary": "Register an agent credential, or refresh one",
        "requestBody": _body(_REGISTER_BODY),
        "responses": {
            "201": _json("Registered.", _ref("Registration")),
            "200": _json(
                "Refreshed: a fresh assertion and a rotated refresh token.", _ref("Registration")
            ),
            "400": _json(_ID_400, _ref("IdentityError")),
            "401": _json(
                "login_required, or interaction_required with a claim block.", _ref("IdentityError")
            ),
            "403": _error("This registration type is disabled here."),
        },
    },
    ("/auth/agent/identity/claim", "post"): {
        "operationId": "mintClaimAttempt",
        "summary": "Mint a claim link for a person to open",
        "requestBody": _body(_CLAIM_BODY),
        "responses": {
            "201": _json("The attempt and its link.", _ref("ClaimAttemptResponse")),
            "400": _error("invalid_request, invalid_claim_token or invalid_login_hint."),
            "409": _error("already_claimed."),
            "429": _error("too_many_attempts: wait for the pending link to expire."),
        },
    },
    ("/auth/agent/identity/claim/complete", "post"): {
        "operationId": "completeClaim",
        "summary": "Complete a claim with the code the person read",
        "requestBody": _body(_COMPLETE_BODY),
        "responses": {
            "200": _json("The verified identity, once.", _ref("Registration")),
            "400": _error("invalid_request, or the step's own code (claim_not_confirmed, ...)."),
            "403": _error("claim_denied: the person declined."),
            "409": _error("already_claimed."),
        },
    },
    ("/auth/oauth2/token", "post"): {
        "operationId": "exchangeToken",
        "summary": "Exchange the assertion for a short-lived access token",
        "requestBody": _body(_TOKEN_FORM, _FORM),
        "responses": {
            "200": _json("The access token (Cache-Control: no-store).", _ref("AccessToken")),
            "400": _error("invalid_request, invalid_grant or unsupported_grant_type."),
        },
    },
    ("/auth/agent/entitlements", "get"): {
        "operationId": "getEntitlements",
        "summary": "Active plans for this credential and its person's others",
        "security": [{"agentBearer": []}],
        "responses": {
            "200": _json("The entitlements.", _ref("Entitlements")),
            "401": _error("bearer_required, or invalid_token with its reason."),
            "501": _error("entitlements_not_available: this storefront sells no plans."),
        },
    },
    ("/auth/.well-known/oauth-authorization-server", "get"): {
        "responses": {"200": _json("RFC 8414 metadata.", _ref("AuthorizationServerMetadata"))}
    },
    ("/auth/.well-known/oauth-protected-resource", "get"): {
        "responses": {"200": _json("RFC 9728 metadata.", _ref("ProtectedResourceMetadata"))}
    },
    ("/auth/verify/{attempt_id}", "get"): {
        "summary": "The claim page a person opens",
        "responses": {"200": _page("The page."), "404": _page(_PAGE_404), "410": _page(_PAGE_410)},
    },
    ("/auth/verify/{attempt_id}/sign-in", "post"): {
        "summary": "The page's sign-in form",
        "requestBody": _body(_object(["email"], email=_EMAIL), _FORM),
        "responses": _FORM_POST_RESPONSES,
    },
    ("/auth/verify/{attempt_id}/decision", "post"): {
        "summary": "The page's confirm and deny buttons",
        "requestBody": _body(_object(["decision"], decision={"enum": ["approve", "deny"]}), _FORM),
        "responses": _FORM_POST_RESPONSES,
    },
    ("/svc/payments/{payment_id}/pay", "post"): {
        "summary": "Start the hosted card payment page ({checkout: true})",
        "responses": {
            "200": _json("The payment.", _ref("CardPayment")),
            "400": _error(_CARD_400),
            "404": _error(_CARD_404),
        },
    },
    ("/svc/payments/{payment_id}/status", "get"): {
        "summary": "Whether a card payment is complete",
        "responses": {"200": _json("The payment.", _ref("CardPayment")), "404": _error(_CARD_404)},
    },
    ("/svc/payments/{payment_id}/checkout", "get"): {
        "summary": "The hosted card payment page",
        "responses": {"200": _page("The page."), "404": _error(_CARD_404)},
    },
    ("/svc/payments/{payment_id}/checkout", "post"): {
        "summary": "The page's pay and decline buttons (a form, or JSON {action})",
        "requestBody": {
            "required": False,
            "content": {
                _FORM: {"schema": _CHECKOUT_FORM},
                "application/json": {"schema": _CHECKOUT_FORM},
            },
        },
        "responses": {
            "200": {
                "description": "The page again (a form post), or the payment (JSON).",
                "content": {
                    "text/html": {"schema": {"type": "string"}},
                    "application/json": {"schema": _ref("CardPayment")},
                },
            },
            "400": _error(_CARD_400),
            "404": _error(_CARD_404),
        },
    },
}
