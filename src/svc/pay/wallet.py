"""The x402 signing key: loaded from the secret store (or SVC_WALLET_KEY) only when paying."""

from __future__ import annotations

import os

from svc.errors import PaymentError
from svc.next_step import step
from svc.pay.x402 import X402Error, X402Signer
from svc.store.secrets import ENV_OVERRIDES, SecretStore

WALLET_SECRET = "wallet_key"


def load_signer(secrets: SecretStore, free_call: str | None = None) -> X402Signer:
    """The wallet's signer. `free_call` names a free call the service wants a zero-amount
    proof for: then the refusal says nothing would be paid (issue 22.6)."""
    key = secrets.get(WALLET_SECRET)
    if not key and free_call:
        raise PaymentError(
            f"{free_call} is free, but the service asks for a zero-amount proof signed by a "
            "wallet (nothing is paid) and there is none",
            code="no_wallet",
            next=step(
                "get_wallet",
                "get one with ",
                **({"guide": "yes"} if free_call == "the quote" else {}),
            ),
        )
    if not key:
        raise PaymentError(
            "no wallet to pay with", code="no_wallet", next=step("get_wallet", "get one with ")
        )
    try:
        return X402Signer(key)
    except X402Error as exc:
        from_env = bool(os.environ.get(ENV_OVERRIDES[WALLET_SECRET]))  # it wins over the store
        where = "SVC_WALLET_KEY" if from_env else "the stored wallet key"
        fix = (
            step("replace_wallet", "replace it: ")
            if not from_env
            else None  # the environment's key is the caller's own to fix, in every face
        )
        raise PaymentError(
            f"{where} is unusable: {exc}",
            code="bad_wallet_key",
            hint=None if fix else "fix or unset SVC_WALLET_KEY (a 0x-prefixed 32-byte hex key)",
            next=fix,
        ) from None
