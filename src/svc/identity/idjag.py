"""A local look at an ID-JAG before it is sent: catch the obvious problems with a clear message.

Nothing here verifies a signature (only the identity platform knows the trusted providers'
keys); it reads the JWT's header and claims and refuses what the platform would certainly
refuse, so the user is told why without spending the assertion's single-use `jti`.
"""

from __future__ import annotations

import base64
import json
import time
from typing import Any

from svc.api.errors import UsageError

ID_JAG_TYP = "oauth-id-jag+jwt"


def _segment(text: str, what: str) -> dict[str, Any]:
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        doc = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise UsageError(f"the assertion is not a JWT: its {what} does not decode") from None
    if not isinstance(doc, dict):
        raise UsageError(f"the assertion is not a JWT: its {what} is not a JSON object")
    return doc


def check_id_jag(token: str, now: float | None = None) -> dict[str, Any]:
    """The claims of a plausible ID-JAG, or a UsageError saying what is wrong with it."""
    parts = token.split(".")
    if len(parts) != 3 or not all(parts):
        raise UsageError("the assertion is not a JWT (expected three dot-separated parts)")
    header = _segment(parts[0], "header")
    claims = _segment(parts[1], "claims")
    if header.get("typ") != ID_JAG_TYP:
        raise UsageError(
            f"the assertion is not an ID-JAG: header typ is {header.get('typ')!r}, "
            f"expected {ID_JAG_TYP!r}"
        )
    for name in ("iss", "aud", "jti", "exp", "email"):
        if not claims.get(name):
            raise UsageError(f"the ID-JAG has no {name!r} claim")
    if claims.get("email_verified") is not True:
        raise UsageError("the ID-JAG's e-mail is not verified (email_verified is not true)")
    if not isinstance(claims.get("auth_time"), int | float):
        raise UsageError("the ID-JAG has no auth_time: sign in again at the provider")
    exp = claims["exp"]
    current = time.time() if now is None else now
    if not isinstance(exp, int | float) or exp <= current:
        raise UsageError("the ID-JAG has expired: mint a fresh one (they live minutes)")
    return claims
