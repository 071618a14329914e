"""Signers that hold the key outside svc: a program (`command:`) or a remote
signer speaking JSON-RPC (`jsonrpc:`). Each is asked for one thing, an EIP-712 signature of the
typed data svc built, and its answer is believed only once it recovers to the profile's address.

`external.py` builds and checks (ExternalSigner), `command.py` runs the program, `jsonrpc.py`
talks to the remote signer, `probe.py` is `svc doctor`'s harmless signature. The local key
(x402.X402Signer) stays where it was: the default path does no more work than before.
"""

from __future__ import annotations

import os
import shlex
from typing import Any, Protocol
from urllib.parse import urlsplit

from svc.pay.x402 import PaymentRequirements


class PaymentSigner(Protocol):
    """What a rail needs of a signer: the address it pays from, and a signed authorization."""

    @property
    def address(self) -> str: ...

    def sign(
        self,
        requirements: PaymentRequirements,
        now: int | None = None,
        nonce: bytes | None = None,
        max_window: int | None = None,
    ) -> dict[str, Any]: ...


class TypedDataSigner(Protocol):
    """An outside party that signs EIP-712 typed data (eth_signTypedData_v4's arguments)."""

    where: str  # how a person knows it: `command:PATH ...`, `jsonrpc:URL`

    def sign_typed_data(self, address: str, typed_data: dict[str, Any]) -> str: ...


def described(signer: str) -> str:
    """How a person knows a `signer` setting, in one line, and all that is ever shown of it:
    a program's name and its first word without paths (its arguments may carry a secret), a
    remote signer's origin without its path (nor a query: the setting refuses one)."""
    kind, _, target = signer.partition(":")
    if kind == "command":
        try:
            argv = shlex.split(target)
        except ValueError:
            argv = []
        return "command:" + " ".join(os.path.basename(word) for word in argv[:2])
    if kind == "jsonrpc":
        parts = urlsplit(target)
        return f"jsonrpc:{parts.scheme}://{parts.hostname or ''}" + (
            f":{parts.port}" if parts.port else ""
        )
    return kind
