"""`identity`: the agent's identity on the platform, and its entitlements.

Operations of the CLI alone (or written by hand on the library): their requests and declarations.
A credential's secrets are never arguments: a request names only where one is read.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from svc.operations.declare import NOT_YET, PERSON, Operation, by_hand
from svc.operations.fields import Flag, Request


class IdentityRegisterRequest(Request):
    """Which credential to register: exactly one of `anonymous`, `email`, `assertion_file`.

    `assertion_file` names where the ID-JAG is read (a path, or '-': stdin), never the
    assertion itself: on a command line other users could read it.
    """

    anonymous: Annotated[bool, Flag("--anonymous")] = Field(
        False, description="Anonymous credential, no e-mail."
    )
    email: Annotated[str | None, Flag("--email", "EMAIL")] = Field(
        None, description="service_auth for this person (claim needed)."
    )
    assertion_file: Annotated[str | None, Flag("--assertion-file", "PATH|-")] = Field(
        None, description="ID-JAG file ('-' for stdin)."
    )
    force: Annotated[bool, Flag("--force")] = Field(
        False, description="Replace a stored credential of another kind or person."
    )


class IdentityClaimRequest(Request):
    """A person claims the stored credential: the code the page showed, who, how long to wait."""

    code: Annotated[str | None, Flag("--code", "CODE")] = Field(
        None, description="The code shown on the page ('-' reads stdin)."
    )
    email: Annotated[str | None, Flag("--email", "EMAIL")] = Field(
        None, description="Who claims (needed for an anonymous credential)."
    )
    no_browser: Annotated[bool, Flag("--no-browser")] = Field(
        False, description="Do not open a browser."
    )
    timeout: Annotated[float, Flag("--timeout")] = Field(
        600.0, ge=1.0, description="Seconds to wait for the person to confirm."
    )


class IdentityRefreshRequest(Request):
    """No arguments: the stored credential rotates with its own refresh token."""


class IdentityLogoutRequest(Request):
    """No arguments: the stored credential is forgotten."""


class IdentityStatusRequest(Request):
    """No arguments: the global options say where and how the credential is shown."""


class EntitlementsRequest(Request):
    """No arguments: the stored credential says whose plans."""


IDENTITY: tuple[Operation[Any], ...] = (
    by_hand(
        "identity register",
        PERSON,
        written_as="identity.register",
        request=IdentityRegisterRequest,
    ),
    by_hand("identity claim", PERSON, written_as="identity.claim", request=IdentityClaimRequest),
    by_hand(
        "identity refresh", PERSON, written_as="identity.refresh", request=IdentityRefreshRequest
    ),
    by_hand("identity logout", PERSON, written_as="identity.logout", request=IdentityLogoutRequest),
    by_hand(
        "identity status", NOT_YET, written_as="identity.status", request=IdentityStatusRequest
    ),
    by_hand("entitlements", NOT_YET, NOT_YET, request=EntitlementsRequest),
)
