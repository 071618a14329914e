"""Just enough JOSE for the identity platform: ES256 JWTs signed and verified with `cryptography`.

Each signing party (the platform itself, and every sandbox identity provider) gets a fresh P-256
key per sandbox process, so nothing signed by one sandbox run is accepted by another.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)

_COORD = 32  # P-256 coordinate / signature half length in bytes


class JoseError(ValueError):
    """The token is not a well-formed JWS compact serialisation."""


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, TypeError) as exc:
        raise JoseError(f"bad base64url: {exc}") from None


@dataclass
class SigningKey:
    kid: str
    private: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )

    def sign(self, claims: dict[str, Any], typ: str = "JWT") -> str:
        header = {"alg": "ES256", "typ": typ, "kid": self.kid}
        signing_input = (
            b64url(json.dumps(header, separators=(",", ":")).encode())
            + "."
            + b64url(json.dumps(claims, separators=(",", ":")).encode())
        )
        der = self.private.sign(signing_input.encode("ascii"), ec.ECDSA(hashes.SHA256()))
        r, s = decode_dss_signature(der)
        raw = r.to_bytes(_COORD, "big") + s.to_bytes(_COORD, "big")
        return signing_input + "." + b64url(raw)

    def verify(self, token: str) -> bool:
        signing_input, _, signature = token.rpartition(".")
        raw = b64url_decode(signature)
        if len(raw) != 2 * _COORD:
            return False
        der = encode_dss_signature(
            int.from_bytes(raw[:_COORD], "big"), int.from_bytes(raw[_COORD:], "big")
        )
        try:
            self.private.public_key().verify(
                der, signing_input.encode("ascii"), ec.ECDSA(hashes.SHA256())
            )
        except InvalidSignature:
            return False
        return True


def peek(token: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(header, claims) without any verification; JoseError if it is not a JWS."""
    parts = token.split(".")
    if len(parts) != 3 or not all(parts):
        raise JoseError("not a compact JWS (three dot-separated parts)")
    try:
        header = json.loads(b64url_decode(parts[0]))
        claims = json.loads(b64url_decode(parts[1]))
    except (ValueError, UnicodeDecodeError) as exc:
        raise JoseError(f"undecodable JWT: {exc}") from None
    if not isinstance(header, dict) or not isinstance(claims, dict):
        raise JoseError("JWT header and claims must be JSON objects")
    return header, claims


def tamper(token: str) -> str:
    """The same token with a signature that cannot verify (for tests of invalid_signature)."""
    head, _, signature = token.rpartition(".")
    raw = bytearray(b64url_decode(signature))
    raw[-1] ^= 0x01
    return head + "." + b64url(bytes(raw))
