"""The x402 signing key: loaded from the secret store (or SVC_WALLET_KEY) only when paying."""

from __future__ import annotations

from svc.errors import PaymentError
from svc.pay.x402 import X402Error, X402Signer
from svc.store.secrets import SecretStore

WALLET_SECRET = "wallet_key"


def load_signer(secrets: SecretStore) -> X402Signer:
    key = secrets.get(WALLET_SECRET)
    if not key:
        raise PaymentError(
            "no wallet to pay with",
            code="no_wallet",
            hint="create one with `svc wallet create`, import one with `svc wallet import`, "
            "or set SVC_WALLET_KEY",
        )
    try:
        return X402Signer(key)
    except X402Error as exc:
        raise PaymentError(
            f"the stored wallet key is unusable: {exc}", code="bad_wallet_key"
        ) from None
