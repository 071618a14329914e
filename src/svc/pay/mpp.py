"""MPP client side: `WWW-Authenticate: Payment` challenges, the charge credential, the receipt.

Wire summary (docs/protocols.md): a 402 carries one or more `Payment` challenges, possibly several
in one header line (split with care: quoted strings contain commas). We pay the `charge` intent
of a card method (`stripe`: a shared payment token, SPT) with
`Authorization: Payment <base64url(JSON {challenge: <echo>, payload: {spt}})>`.

The echo repeats the challenge's `request` and `opaque` as the raw strings the server sent:
re-encoding them would break the server's HMAC over the challenge. pympp's core types (`mpp`,
imported lazily: ~30 ms) parse each challenge and serialize the credential; its client transport
(async, retries payment, rewrites headers) is not used.
"""

from __future__ import annotations

import os
import re
import shlex
import stat
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from svc.api import headers
from svc.errors import PaymentFailed
from svc.money import AmountError, parse_atomic
from svc.next_step import step

SUPPORTED_METHODS = ("stripe",)  # methods we can pay with a shared payment token
CREDENTIAL_HEADERS = (headers.AUTHORIZATION, headers.MPP_CREDENTIAL_ALT)  # never any other header
USD_CENTS_TO_ATOMIC = 10_000  # 1 cent = 10,000 micro-USD (the ledger's unit)
AMOUNT_FIELD = "the MPP challenge's request.amount"
_PARAM = re.compile(r'\s*([A-Za-z_][\w-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]+))\s*')
_TOKEN = re.compile(r"\s*([A-Za-z0-9!#$%&'*+.^_`|~-]+)")


class MppError(ValueError):
    """A challenge or receipt we cannot read."""


@dataclass(frozen=True)
class MppChallenge:
    """One `Payment` challenge, with the raw strings needed for the echo."""

    id: str
    realm: str
    method: str
    intent: str
    request_b64: str  # raw, echoed verbatim
    request: dict[str, Any]
    expires: str | None
    digest: str | None
    description: str | None
    opaque_b64: str | None  # raw, echoed verbatim
    header: str | None

    @property
    def amount_cents(self) -> int:
        """The decoded request's `amount` in base units (cents), by the one amount parser:
        `isdigit()` and `int()` would take fullwidth and Arabic-Indic digits as 150."""
        try:
            return parse_atomic(self.request.get("amount"), AMOUNT_FIELD)
        except AmountError as exc:
            raise MppError(str(exc)) from None

    @property
    def amount_atomic(self) -> int:
        """The price in micro-USD, the unit the policy and the ledger use."""
        return self.amount_cents * USD_CENTS_TO_ATOMIC

    @property
    def currency(self) -> str:
        return str(self.request.get("currency", "")).lower()

    @property
    def credential_header(self) -> str:
        return self.header or headers.AUTHORIZATION

    def expired(self, now: datetime | None = None) -> bool:
        if not self.expires:
            return False
        try:
            moment = datetime.fromisoformat(self.expires.replace("Z", "+00:00"))
        except ValueError:
            return True
        if moment.tzinfo is None:
            return True
        return moment <= (now or datetime.now(UTC))


def split_challenges(values: Sequence[str]) -> list[str]:
    """Every challenge in the given `WWW-Authenticate` values, one string each.

    A comma separates either two auth-params or two challenges; it starts a new challenge when
    the next token is not followed by `=` (an auth-param always is). Commas inside quoted
    strings separate nothing.
    """
    found: list[str] = []
    for value in values:
        start = 0
        i = 0
        quoted = False
        while i < len(value):
            ch = value[i]
            if quoted:
                if ch == "\\":
                    i += 1
                elif ch == '"':
                    quoted = False
            elif ch == '"':
                quoted = True
            elif ch == "," and _starts_challenge(value, i + 1):
                found.append(value[start:i].strip())
                start = i + 1
            i += 1
        found.append(value[start:].strip())
    return [c for c in found if c]


def _starts_challenge(value: str, pos: int) -> bool:
    match = _TOKEN.match(value, pos)
    if not match:
        return False
    rest = value[match.end() :].lstrip(" \t")
    return not rest.startswith("=")


def _params(text: str) -> dict[str, str]:
    params: dict[str, str] = {}
    pos = 0
    while pos < len(text):
        match = _PARAM.match(text, pos)
        if not match:
            raise MppError("malformed auth-param list")
        key = match.group(1).lower()
        if key in params:
            raise MppError(f"duplicate parameter {key!r}")
        quoted = match.group(2)
        params[key] = re.sub(r"\\(.)", r"\1", quoted) if quoted is not None else match.group(3)
        pos = match.end()
        if pos < len(text):
            if text[pos] != ",":
                raise MppError("malformed auth-param list")
            pos += 1
    return params


def parse_challenges(values: Sequence[str]) -> list[MppChallenge]:
    """The `Payment` challenges among `WWW-Authenticate` values (others are skipped).

    A challenge that does not parse is skipped too: one bad offer must not hide a good one.
    """
    from mpp import Challenge
    from mpp._parsing import ParseError

    out: list[MppChallenge] = []
    for raw in split_challenges(values):
        scheme, _, rest = raw.partition(" ")
        if scheme.lower() != "payment":
            continue
        try:
            params = _params(rest.strip())
            parsed = Challenge.from_www_authenticate(raw)
        except (MppError, ParseError, ValueError):
            continue
        out.append(
            MppChallenge(
                id=parsed.id,
                realm=parsed.realm,
                method=parsed.method,
                intent=parsed.intent,
                request_b64=params["request"],
                request=dict(parsed.request),
                expires=parsed.expires,
                digest=parsed.digest,
                description=parsed.description,
                opaque_b64=params.get("opaque"),
                header=parsed.header,
            )
        )
    return out


def why_unusable(challenge: MppChallenge, now: datetime | None = None) -> str | None:
    """Why we would not pay this challenge, or None when we can."""
    if challenge.intent != "charge":
        return f"intent {challenge.intent!r} is not supported (only 'charge')"
    if challenge.method not in SUPPORTED_METHODS:
        return f"method {challenge.method!r} cannot be paid with a shared payment token"
    if challenge.currency != "usd":
        return f"currency {challenge.currency!r} is not USD"
    if challenge.credential_header not in CREDENTIAL_HEADERS:
        return f"it asks for the credential in {challenge.credential_header!r}"
    if challenge.expired(now):
        return "it has expired"
    try:
        challenge.amount_cents  # noqa: B018 - validates
    except MppError as exc:
        return str(exc)
    return None


def choose(challenges: Sequence[MppChallenge], preference: Sequence[str]) -> MppChallenge:
    """The payable challenge whose method comes first in `preference` (then server order)."""
    usable = [c for c in challenges if why_unusable(c) is None]
    if not usable:
        if not challenges:
            raise PaymentFailed(
                "the service asked for payment (402) but offered no MPP challenge",
                code="no_mpp_challenge",
                next=step("choose_rail", "try another rail with ", rails="x402,card"),
            )
        reasons = "; ".join(f"{c.method}: {why_unusable(c)}" for c in challenges)
        raise PaymentFailed(
            f"no MPP challenge can be paid ({reasons}); nothing was paid", code="no_mpp_challenge"
        )
    rank = {name: i for i, name in enumerate(preference)}
    return sorted(usable, key=lambda c: rank.get(c.method, len(rank)))[0]


def credential(challenge: MppChallenge, spt: str) -> str:
    """The `Payment <credential>` value for a charge paid with a shared payment token."""
    from mpp import ChallengeEcho, Credential

    echo = ChallengeEcho(
        id=challenge.id,
        realm=challenge.realm,
        method=challenge.method,
        intent=challenge.intent,
        request=challenge.request_b64,
        expires=challenge.expires,
        digest=challenge.digest,
        opaque=challenge.opaque_b64,
        header=challenge.header,
        description=challenge.description,
    )
    payload: dict[str, Any] = {"spt": spt}
    external = challenge.request.get("externalId")
    if isinstance(external, str):
        payload["externalId"] = external
    return Credential(challenge=echo, payload=payload).to_authorization()


# --- where the shared payment token comes from ---------------------------------------------


class SptSource:
    """SVC_SPT (or the profile's own "spt" entry in the secret store), else a file, else a
    command that prints one.

    Tokens are single use: a command (`spt_command`) can mint a fresh one per payment. The token
    is read only after the policy allowed the payment, and is never logged or stored apart from
    inside the journaled credential.
    """

    def __init__(
        self,
        secret: Any,
        file: str | None = None,
        command: str | None = None,
        timeout: float = 60.0,
    ) -> None:
        self.secret = secret  # a callable returning the stored token or None
        self.file = file
        self.command = command
        self.timeout = timeout

    def token(self) -> str:
        value = self.secret()
        if value:
            return _check(value, "SVC_SPT")
        if self.file:
            return _check(_read_file(Path(self.file).expanduser()), f"the file {self.file}")
        if self.command:
            return _check(self._run(self.command), "spt_command")
        raise _no_token()

    def check(self) -> None:
        """Refuse before anyone is asked to pay when no token could come: none stored, no
        file, no command named (the file is read, the command run, only for the payment)."""
        if not (self.secret() or self.file or self.command):
            raise _no_token()

    def _run(self, command: str) -> str:
        try:
            proc = subprocess.run(
                shlex.split(command),
                capture_output=True,
                text=True,
                timeout=self.timeout,
                check=False,
            )
        except (OSError, ValueError) as exc:
            raise PaymentFailed(f"spt_command could not run: {exc}", code="no_spt") from None
        except subprocess.TimeoutExpired:
            raise PaymentFailed(
                f"spt_command did not finish within {self.timeout:g} s", code="no_spt"
            ) from None
        if proc.returncode != 0:
            raise PaymentFailed(
                f"spt_command failed with exit code {proc.returncode}", code="no_spt"
            )
        return proc.stdout


def _no_token() -> PaymentFailed:
    return PaymentFailed(
        "no shared payment token to pay with", code="no_spt", next=step("give_spt")
    )


def _read_file(path: Path) -> str:
    try:
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode) or info.st_mode & 0o077:
            raise PaymentFailed(
                f"refusing to read the token file {path}: it is a symbolic link or readable by "
                f"other users; run: chmod 600 {path}",
                code="insecure_secret_file",
            )
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PaymentFailed(
            f"cannot read the token file {path}: {exc.strerror}", code="no_spt"
        ) from None


def _check(raw: str, where: str) -> str:
    token = raw.strip()
    if not token or any(c.isspace() for c in token) or len(token) > 512:
        raise PaymentFailed(f"{where} does not hold one shared payment token", code="no_spt")
    return token
