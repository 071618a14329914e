"""The wallet of each profile as `svc wallet` commands keep it: a signing key made or imported
into the secret store under the profile's own entry (never over a stored one unless asked),
its address with where the key lives, and every profile's at once. The key is never returned.
A profile whose signer is external has no key for svc to make or import."""

from __future__ import annotations

from dataclasses import dataclass, replace

from svc.context import AppContext
from svc.errors import SvcError, UsageError
from svc.pay.signers import described
from svc.pay.wallet import (
    SIGNER_TOKEN_SECRET,
    WALLET_SECRET,
    is_external,
    key_source,
    load_signer,
    wallet_key,
)
from svc.pay.x402 import X402Error, address_of, generate_private_key
from svc.settings import DEFAULT_PROFILE, Settings, signer_address, signer_setting
from svc.store.secrets import profile_key


@dataclass(frozen=True)
class WalletKey:
    address: str
    source: str  # where the key lives: the keyring's name, the file, the environment, a signer
    profile: str = DEFAULT_PROFILE


@dataclass(frozen=True)
class ProfileWallet:
    """One profile's line of `svc wallet list`: its address (None: no wallet), where its key
    lives, and why there is none when there is none."""

    profile: str
    address: str | None
    source: str
    problem: str | None = None


class KeyAlreadyStoredError(UsageError):
    """A wallet key is stored and replacing it was not asked for: nothing was written."""

    def __init__(self, profile: str = DEFAULT_PROFILE, what: str = "a wallet key") -> None:
        whose = "" if profile == DEFAULT_PROFILE else f" for profile {profile!r}"
        super().__init__(f"{what} is already stored{whose}")


def create(app: AppContext, *, replace: bool) -> WalletKey:
    """A new signing key, stored as the profile's own."""
    _refuse_external(app.settings)
    _refuse_over_stored(app, replace)
    key = generate_private_key()
    app.secrets.set(_entry(app.settings), key)
    return WalletKey(address_of(key), app.secrets.backend.name, app.settings.profile)


def import_key(app: AppContext, key: str, *, replace: bool) -> WalletKey:
    """An existing key (hex, with or without 0x), checked, then stored as the profile's own."""
    _refuse_external(app.settings)
    try:
        address = address_of(key)
    except X402Error as exc:
        raise UsageError(f"not a usable private key: {exc}") from None
    _refuse_over_stored(app, replace)
    app.secrets.set(_entry(app.settings), key if key.startswith("0x") else "0x" + key)
    return WalletKey(address, app.secrets.backend.name, app.settings.profile)


def import_signer_token(app: AppContext, token: str, *, replace: bool) -> str:
    """A jsonrpc: signer's bearer token, stored as the profile's own; where it is kept."""
    if not token or len(token) > 4096 or any(c.isspace() or not c.isprintable() for c in token):
        raise UsageError("not a usable signer token: one line of printable text, no spaces")
    entry = profile_key(SIGNER_TOKEN_SECRET, app.settings.profile)
    if app.secrets.backend.get(entry) and not replace:
        raise KeyAlreadyStoredError(app.settings.profile, "a signer token")
    app.secrets.set(entry, token)
    return app.secrets.backend.name


def stored_key(app: AppContext) -> WalletKey:
    """The profile's address (no wallet: the payment error that says how to get one)."""
    signer = load_signer(app.secrets, app.settings)
    return WalletKey(signer.address, key_source(app.secrets, app.settings), app.settings.profile)


def every_profile(app: AppContext) -> list[ProfileWallet]:
    """Each profile of the config file (and the default one) with its own wallet, read
    offline: a jsonrpc: signer without signer_address is listed, not asked."""
    names = sorted({DEFAULT_PROFILE, *app.config.profiles()})
    return [_profile_wallet(app, name) for name in names]


def _profile_wallet(app: AppContext, name: str) -> ProfileWallet:
    try:
        settings = _signer_settings(app, name)
        if is_external(settings):
            return ProfileWallet(name, settings.signer_address, key_source(app.secrets, settings))
        key = wallet_key(app.secrets, settings)
        source = key_source(app.secrets, settings)
        return ProfileWallet(name, address_of(key) if key else None, source)
    except (SvcError, X402Error) as exc:
        message = exc.message if isinstance(exc, SvcError) else str(exc)
        return ProfileWallet(name, None, "-", message)


def _signer_settings(app: AppContext, name: str) -> Settings:
    """Another profile's signer settings, from the config file (flags and the environment
    name the profile in effect only)."""
    values = app.config.profile(name, must_exist=False)
    settings = replace(app.settings, profile=name, signer="store", signer_address=None)
    if "signer" in values:
        settings.signer = signer_setting(f"[profiles.{name}] signer", values["signer"])
    if "signer_address" in values:
        settings.signer_address = signer_address(
            f"[profiles.{name}] signer_address", values["signer_address"]
        )
    return settings


def _entry(settings: Settings) -> str:
    return profile_key(WALLET_SECRET, settings.profile)


def _refuse_external(settings: Settings) -> None:
    if is_external(settings):
        raise UsageError(
            f"profile {settings.profile!r} signs with {described(settings.signer)}: its key "
            "lives with that signer, not in svc",
            code="external_signer",
            hint="unset the profile's signer setting to keep a key in the secret store",
        )


def _refuse_over_stored(app: AppContext, replace: bool) -> None:
    # The backend itself: a key in the environment (SVC_WALLET_KEY) is not one to lose.
    if app.secrets.backend.get(_entry(app.settings)) and not replace:
        raise KeyAlreadyStoredError(app.settings.profile)
