"""A local look at an ID-JAG before it is sent: catch the obvious problems with a clear message.

Nothing here verifies a signature (only the identity platform knows the trusted providers'
keys); it reads the JWT's header and claims and refuses what the platform would certainly
refuse, so the user is told why without spending the assertion's single-use `jti`. Refusals
are identity failures (exit 4) carrying the code the platform would have answered.
"""

from __future__ import annotations

import base64
import time
from typing import Any

from svc.api.jsonsafe import load_json
from svc.errors import CODES, AuthError

ID_JAG_TYP = "oauth-id-jag+jwt"


def _refuse(code: str, message: str) -> AuthError:
    """The platform's own code for what it would refuse, with the one table's hint."""
    known = CODES.get(code)
    hint = known.hint if known else None
    if code == "invalid_request":  # locally: the file is not an ID-JAG at all
        hint = "pass the ID-JAG your identity provider issued, unchanged"
    return AuthError(f"{message} ({code}; checked before sending)", code=code, hint=hint)


def _segment(text: str, what: str) -> dict[str, Any]:
    try:
        doc = load_json(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
    except (ValueError, UnicodeDecodeError):
        raise _refuse("invalid_request", f"the assertion is not a JWT: bad {what}") from None
    if not isinstance(doc, dict):
        raise _refuse("invalid_request", f"the assertion is not a JWT: its {what} is no object")
    return doc


def check_id_jag(token: str, now: float | None = None) -> dict[str, Any]:
    """The claims of a plausible ID-JAG, or an AuthError saying what is wrong with it."""
    parts = token.split(".")
    if len(parts) != 3 or not all(parts):
        raise _refuse("invalid_request", "the assertion is not a JWT (three dot-separated parts)")
    header = _segment(parts[0], "header")
    claims = _segment(parts[1], "claims")
    if header.get("typ") != ID_JAG_TYP:
        raise _refuse(
            "invalid_request",
            f"the assertion is not an ID-JAG: header typ is {header.get('typ')!r}, "
            f"expected {ID_JAG_TYP!r}",
        )
    for name in ("iss", "aud", "jti", "exp", "email"):
        if not claims.get(name):
            raise _refuse("invalid_request", f"the ID-JAG has no {name!r} claim")
    if claims.get("email_verified") is not True:
        raise _refuse("missing_verified_email", "the ID-JAG's e-mail is not verified")
    if not isinstance(claims.get("auth_time"), int | float):
        raise _refuse("login_required", "the ID-JAG has no auth_time")
    exp = claims["exp"]
    current = time.time() if now is None else now
    if not isinstance(exp, int | float) or exp <= current:
        raise _refuse("expired", "the ID-JAG has expired")
    return claims
