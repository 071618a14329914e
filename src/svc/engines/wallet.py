"""The wallet's signing key as `svc wallet` commands keep it: made or imported into the secret
store (never over a stored one unless asked), and its address with where the key is kept.
The key itself is never returned."""

from __future__ import annotations

from dataclasses import dataclass

from svc.context import AppContext
from svc.errors import UsageError
from svc.pay.wallet import WALLET_SECRET, load_signer
from svc.pay.x402 import X402Error, address_of, generate_private_key


@dataclass(frozen=True)
class WalletKey:
    address: str
    source: str  # where the key is kept: the keyring's name, the file, or the environment


class KeyAlreadyStoredError(UsageError):
    """A wallet key is stored and replacing it was not asked for: nothing was written."""

    def __init__(self) -> None:
        super().__init__("a wallet key is already stored")


def create(app: AppContext, *, replace: bool) -> WalletKey:
    """A new signing key, stored."""
    _refuse_over_stored(app, replace)
    key = generate_private_key()
    app.secrets.set(WALLET_SECRET, key)
    return WalletKey(address_of(key), app.secrets.backend.name)


def import_key(app: AppContext, key: str, *, replace: bool) -> WalletKey:
    """An existing key (hex, with or without 0x), checked, then stored."""
    try:
        address = address_of(key)
    except X402Error as exc:
        raise UsageError(f"not a usable private key: {exc}") from None
    _refuse_over_stored(app, replace)
    app.secrets.set(WALLET_SECRET, key if key.startswith("0x") else "0x" + key)
    return WalletKey(address, app.secrets.backend.name)


def stored_key(app: AppContext) -> WalletKey:
    """The stored key's address (no key stored: the payment error that says how to get one)."""
    signer = load_signer(app.secrets)
    return WalletKey(signer.address, app.secrets.source(WALLET_SECRET))


def _refuse_over_stored(app: AppContext, replace: bool) -> None:
    # The backend itself: a key in the environment (SVC_WALLET_KEY) is not one to lose.
    if app.secrets.backend.get(WALLET_SECRET) and not replace:
        raise KeyAlreadyStoredError()
