"""The lean client's answers to a server's authentication request: a cleartext password, MD5,
and SCRAM-SHA-256 without channel binding, whose server signature is verified (a server that
cannot prove it knows the password is refused before any statement is sent)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from svc.store.ledger.pg_wire import cstring, message, operational

SCRAM = "SCRAM-SHA-256"
MAX_ITERATIONS = 1_000_000  # PostgreSQL's default is 4096: a hostile count would burn the CPU


def cleartext(password: str) -> bytes:
    return message(b"p", cstring(password))


def md5(password: str, user: str, salt: bytes) -> bytes:
    inner = hashlib.md5((password + user).encode()).hexdigest()  # noqa: S324 (the protocol's)
    outer = hashlib.md5(inner.encode() + salt).hexdigest()  # noqa: S324
    return message(b"p", cstring("md5" + outer))


def _hmac(key: bytes, text: bytes) -> bytes:
    return hmac.digest(key, text, "sha256")


class Scram:
    """One SCRAM-SHA-256 exchange (RFC 5802, RFC 7677), as libpq runs it without channel
    binding: the user is the startup message's, so the exchange names none."""

    def __init__(self, password: str) -> None:
        self.password = password
        self.nonce = base64.b64encode(secrets.token_bytes(18)).decode()
        self.first_bare = f"n=,r={self.nonce}"
        self.expected: bytes | None = None  # the server's signature, once the proof is sent
        self.verified = False

    def first(self, mechanisms: bytes) -> bytes:
        if SCRAM.encode() not in mechanisms.split(b"\0"):
            offered = mechanisms[:80]
            raise operational(f"the server offers no SASL mechanism svc speaks: {offered!r}")
        data = ("n,," + self.first_bare).encode()
        return message(b"p", cstring(SCRAM) + len(data).to_bytes(4, "big") + data)

    def final(self, server_first: bytes) -> bytes:
        text = server_first.decode(errors="replace")
        attrs = dict(part.split("=", 1) for part in text.split(",") if "=" in part)
        nonce, salt, count = attrs.get("r", ""), attrs.get("s", ""), attrs.get("i", "")
        if not nonce.startswith(self.nonce) or len(nonce) == len(self.nonce):
            raise operational("the server's SCRAM nonce is not an extension of svc's")
        if not count.isdigit() or not 0 < int(count) <= MAX_ITERATIONS:
            raise operational(f"the server's SCRAM iteration count is refused: {count[:20]!r}")
        try:
            salt_bytes = base64.b64decode(salt, validate=True)
        except ValueError:
            raise operational("the server's SCRAM salt is not base64") from None
        salted = hashlib.pbkdf2_hmac("sha256", self.password.encode(), salt_bytes, int(count))
        client_key = _hmac(salted, b"Client Key")
        without_proof = f"c=biws,r={nonce}"
        auth = f"{self.first_bare},{text},{without_proof}".encode()
        signature = _hmac(hashlib.sha256(client_key).digest(), auth)
        proof = bytes(a ^ b for a, b in zip(client_key, signature, strict=True))
        self.expected = _hmac(_hmac(salted, b"Server Key"), auth)
        return message(b"p", f"{without_proof},p={base64.b64encode(proof).decode()}".encode())

    def verify(self, server_final: bytes) -> None:
        text = server_final.decode(errors="replace")
        if self.expected is None or not text.startswith("v="):
            raise operational(f"the server's SCRAM answer is refused: {text[:80]!r}")
        try:
            signature = base64.b64decode(text[2:].split(",")[0], validate=True)
        except ValueError:
            raise operational("the server's SCRAM signature is not base64") from None
        if not hmac.compare_digest(signature, self.expected):
            raise operational("the server's SCRAM signature is wrong: it never knew the password")
        self.verified = True
