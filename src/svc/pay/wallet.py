"""The x402 signing key: loaded from the secret store (or SVC_WALLET_KEY) only when paying."""

from __future__ import annotations

import os

from svc.errors import PaymentError
from svc.pay.x402 import X402Error, X402Signer
from svc.store.secrets import ENV_OVERRIDES, SecretStore

WALLET_SECRET = "wallet_key"


GET_A_WALLET = "`svc wallet create`, `svc wallet import`, or SVC_WALLET_KEY"


def load_signer(secrets: SecretStore, free_call: str | None = None) -> X402Signer:
    """The wallet's signer. `free_call` names a free call the service wants a zero-amount
    proof for: then the refusal says nothing would be paid (issue 22.6)."""
    key = secrets.get(WALLET_SECRET)
    if not key and free_call:
        raise PaymentError(
            f"{free_call} is free, but the service asks for a zero-amount proof signed by a "
            "wallet (nothing is paid) and there is none",
            code="no_wallet",
            hint="get one with "
            + GET_A_WALLET
            + ("; `svc guide GOAL` needs no wallet" if free_call == "the quote" else ""),
        )
    if not key:
        raise PaymentError(
            "no wallet to pay with", code="no_wallet", hint="get one with " + GET_A_WALLET
        )
    try:
        return X402Signer(key)
    except X402Error as exc:
        from_env = bool(os.environ.get(ENV_OVERRIDES[WALLET_SECRET]))  # it wins over the store
        where = "SVC_WALLET_KEY" if from_env else "the stored wallet key"
        fix = (
            "fix or unset SVC_WALLET_KEY (a 0x-prefixed 32-byte hex key)"
            if from_env
            else "replace it: svc wallet import (or svc wallet create)"
        )
        raise PaymentError(f"{where} is unusable: {exc}", code="bad_wallet_key", hint=fix) from None
