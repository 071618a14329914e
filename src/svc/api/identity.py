"""The identity platform's endpoints, found through its discovery document, as plain calls.

Endpoints come from `{auth_base}/.well-known/oauth-authorization-server` (its `agent_auth`
block and `token_endpoint`), never from hard-coded paths. Each carries a credential (the
assertion, the refresh token, the claim token, the bearer), so each must be on the auth base's
own origin (svc.origin.on_origin), whatever the document says; endpoints kept with a stored
credential pass the same gate again. Where the protected-resource document (RFC 9728) is
served, its `authorization_servers` must name the auth base and its `resource` the base URL.
Every refusal becomes an `AuthError` (exit 4) carrying the spec's code and what to do next.
"""

from __future__ import annotations

from typing import Any

import httpx

from svc.api.http import Http
from svc.api.response import parse_json
from svc.api.status import error_from_response
from svc.errors import AuthError, ProtocolError, SvcError, UntrustedURLError
from svc.next_step import step
from svc.origin import TrustedURL, configured, on_origin, origin_if_valid

WELL_KNOWN = "/.well-known/oauth-authorization-server"
PROTECTED_RESOURCE = "/.well-known/oauth-protected-resource"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
ID_JAG_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id-jag"

# endpoint name in our code -> where the discovery document puts it
ENDPOINT_KEYS: dict[str, tuple[str | None, str]] = {
    "registration": ("agent_auth", "registration_endpoint"),
    "claim": ("agent_auth", "claim_endpoint"),
    "claim_complete": ("agent_auth", "claim_completion_endpoint"),
    "entitlements": ("agent_auth", "entitlements_endpoint"),
    "token": (None, "token_endpoint"),
}


def identity_error(response: httpx.Response, what: str) -> SvcError:
    """The contract's error for a refusal by the identity platform: 4xx means exit 4."""
    error = error_from_response(response.status_code, response.content, what)
    if not 400 <= response.status_code < 500 or response.status_code == 404:
        return error
    return AuthError(
        error.message,
        code=error.code,
        status=error.status,
        reason=error.reason,
        hint=error.hint,  # from the one table of codes
        body=error.body,
        next=error.next,  # each face words it (a dead credential's two ways out)
    )


class IdentityPlatform:
    def __init__(
        self,
        http: Http,
        auth_base: str,
        endpoints: dict[str, str] | None = None,
        *,
        resource: str | None = None,
    ) -> None:
        self.http = http
        self.auth_base = auth_base
        self.base: TrustedURL = configured(auth_base, "the auth base")
        self.resource = resource  # the base URL the bearer is for, checked against RFC 9728
        self._endpoints = self._kept(endpoints or {})

    def _kept(self, endpoints: dict[str, str]) -> dict[str, TrustedURL]:
        """Stored endpoints that still pass the gate; any other one is discovered again."""
        kept: dict[str, TrustedURL] = {}
        for name, value in endpoints.items():
            try:
                kept[name] = on_origin(value, self.base, f"the stored {name} endpoint")
            except UntrustedURLError:
                return {}
        return kept

    def endpoints(self) -> dict[str, str]:
        return {name: str(url) for name, url in self._trusted_endpoints().items()}

    def _trusted_endpoints(self) -> dict[str, TrustedURL]:
        if not all(name in self._endpoints for name in ENDPOINT_KEYS):
            self._endpoints = self.discover()
        return self._endpoints

    def discover(self) -> dict[str, TrustedURL]:
        what = "identity discovery"
        doc = self._document(WELL_KNOWN, what)
        found: dict[str, TrustedURL] = {}
        for name, (block, key) in ENDPOINT_KEYS.items():
            section = doc.get(block) if block and isinstance(doc, dict) else doc
            value = section.get(key) if isinstance(section, dict) else None
            if not isinstance(value, str):
                raise ProtocolError(
                    f"{what}: {self.auth_base}{WELL_KNOWN} does not list {block or ''}"
                    f"{'.' if block else ''}{key}"
                )
            found[name] = on_origin(value, self.base, f"the {key} of {what}")
        self._check_resource()
        return found

    def _document(self, path: str, what: str) -> Any:
        response = self.http.send("GET", self.base.join(path), what=what, resend_safe=True)
        if response.status_code != 200:
            raise identity_error(response, what)
        return parse_json(response, what)

    def _check_resource(self) -> None:
        """RFC 9728, where served: this auth base must be one of the resource's authorization
        servers, and the resource the base URL the bearer will be sent to."""
        what = "the protected-resource document"
        url = self.base.join(PROTECTED_RESOURCE)
        response = self.http.send("GET", url, what=what, resend_safe=True)
        if response.status_code == 404:
            return
        doc = parse_json(response, what) if response.status_code == 200 else None
        if not isinstance(doc, dict):
            raise identity_error(response, what)
        servers = doc.get("authorization_servers")
        listed = {origin_if_valid(s) for s in servers} if isinstance(servers, list) else set()
        if self.base.origin not in listed:
            raise UntrustedURLError(
                f"{what} does not name {self.base.netloc} as an authorization server; "
                "no credential was sent",
                code="foreign_origin",
            )
        resource = doc.get("resource")
        if self.resource and resource is not None:
            base = configured(self.resource, "the base URL")
            if origin_if_valid(resource) != base.origin:
                raise UntrustedURLError(
                    f"{what} names another resource than the base URL {base.netloc}; "
                    "no credential was sent",
                    code="foreign_origin",
                )

    def _post(self, name: str, what: str, body: dict[str, Any], ok: tuple[int, ...]) -> Any:
        # Not resend-safe: a lost answer to a refresh or claim completion cannot be replayed.
        response = self.http.send(
            "POST", self._trusted_endpoints()[name], what=what, json_body=body, resend_safe=False
        )
        if response.status_code not in ok:
            raise identity_error(response, what)
        doc = parse_json(response, what)
        if not isinstance(doc, dict):
            raise ProtocolError(f"{what}: the answer is not a JSON object")
        return doc

    def register(self, body: dict[str, Any]) -> dict[str, Any]:
        doc: dict[str, Any] = self._post("registration", "register", body, (200, 201))
        return doc

    def refresh(self, refresh_token: str) -> dict[str, Any]:
        body = {"type": "refresh", "refresh_token": refresh_token}
        doc: dict[str, Any] = self._post("registration", "refresh", body, (200, 201))
        return doc

    def mint_attempt(self, claim_token: str, login_hint: str) -> dict[str, Any]:
        body = {"type": "service_auth", "claim_token": claim_token, "login_hint": login_hint}
        doc: dict[str, Any] = self._post("claim", "claim", body, (200, 201))
        return doc

    def complete(self, claim_token: str, user_code: str) -> dict[str, Any]:
        body = {"claim_token": claim_token, "user_code": user_code}
        doc: dict[str, Any] = self._post("claim_complete", "claim completion", body, (200, 201))
        return doc

    def exchange(self, assertion: str) -> dict[str, Any]:
        what = "token exchange"
        response = self.http.send(
            "POST",
            self._trusted_endpoints()["token"],
            what=what,
            form={"grant_type": JWT_BEARER, "assertion": assertion},
            resend_safe=True,  # an exchange creates nothing the client could lose
        )
        if response.status_code != 200:
            error = identity_error(response, what)
            if error.code == "invalid_request":  # the spec's Exchange row: undecodable assertion
                error.next = step("replace_identity", "the stored assertion is unreadable; ")
                error.hint = error.next.neutral
            raise error
        doc = parse_json(response, what)
        if not isinstance(doc, dict) or not isinstance(doc.get("access_token"), str):
            raise ProtocolError(f"{what}: the answer carries no access_token")
        return doc

    def entitlements(self, auth: httpx.Auth) -> Any:
        what = "entitlements"
        response = self.http.send(
            "GET",
            self._trusted_endpoints()["entitlements"],
            what=what,
            auth=auth,
            resend_safe=True,
            final_statuses=(501,),  # entitlements_not_available: an answer, never an outage
        )
        if response.status_code == 501:
            raise error_from_response(501, response.content, what)
        if response.status_code != 200:
            raise identity_error(response, what)
        return parse_json(response, what)
