"""The profile's x402 signer, made only when paying: its key from the secret store (or
SVC_WALLET_KEY), or an external signer that holds the key itself (signers/).

Each profile has its own key (secrets.profile_key): a profile without one has no wallet, and
never borrows another profile's."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from svc.errors import PaymentFailed, UsageError
from svc.next_step import step
from svc.pay.signers import described
from svc.pay.signers.command import CommandSigner
from svc.pay.signers.external import ExternalSigner
from svc.pay.signers.jsonrpc import JsonRpcSigner
from svc.pay.x402 import X402Error, X402Signer
from svc.settings import DEFAULT_PROFILE
from svc.store.secrets import ENV_OVERRIDES, SecretStore, profile_key

if TYPE_CHECKING:
    from svc.pay.signers import PaymentSigner
    from svc.settings import Settings

WALLET_SECRET = "wallet_key"
SIGNER_TOKEN_SECRET = "signer_token"  # a jsonrpc: signer's bearer token, per profile
WALLET_ENV = ENV_OVERRIDES[WALLET_SECRET]


def is_external(settings: Settings) -> bool:
    """Does this profile sign with a program or a remote signer (svc holds no key)?"""
    return settings.signer.startswith(("command:", "jsonrpc:"))


def wallet_key(secrets: SecretStore, settings: Settings) -> str | None:
    """The profile's own key as its signer setting says: `env` only SVC_WALLET_KEY, `store`
    SVC_WALLET_KEY first (CI, as always), then the profile's entry."""
    if settings.signer == "env":
        return os.environ.get(WALLET_ENV, "").strip() or None
    return secrets.get(profile_key(WALLET_SECRET, settings.profile))


def key_source(secrets: SecretStore, settings: Settings) -> str:
    """Where the profile's key lives, for a person: the store's name, the environment, a signer."""
    if is_external(settings):
        return f"signer {described(settings.signer)}"
    if settings.signer == "env":
        return f"environment ({WALLET_ENV})"
    return secrets.source(profile_key(WALLET_SECRET, settings.profile))


def load_signer(
    secrets: SecretStore, settings: Settings, free_call: str | None = None
) -> PaymentSigner:
    """The profile's signer. `free_call` names a free call the service wants a zero-amount
    proof for: then the refusal says nothing would be paid."""
    if is_external(settings):
        return external_signer(secrets, settings)
    key = wallet_key(secrets, settings)
    if not key:
        raise _no_wallet(settings, free_call)
    try:
        return X402Signer(key)
    except X402Error as exc:
        raise _unusable(secrets, settings, exc) from None


def external_signer(secrets: SecretStore, settings: Settings) -> PaymentSigner:
    """A `command:` or `jsonrpc:` signer for the profile's signer_address (for jsonrpc:, the
    signer's only account when none is named)."""
    kind, _, target = settings.signer.partition(":")
    address = settings.signer_address
    if kind == "command":
        if not address:
            raise UsageError(
                f"profile {settings.profile!r} signs with {described(settings.signer)} but "
                "names no signer_address",
                code="signer_address_needed",
                hint="set signer_address to the address whose key the program holds",
            )
        return ExternalSigner(address, CommandSigner(target, settings.signer_timeout))
    token = secrets.get(profile_key(SIGNER_TOKEN_SECRET, settings.profile))
    remote = JsonRpcSigner(target, token, settings.signer_timeout)
    return ExternalSigner(address or remote.only_account(), remote)


def _no_wallet(settings: Settings, free_call: str | None) -> PaymentFailed:
    other = settings.profile != DEFAULT_PROFILE
    whose = f" for profile {settings.profile!r}" if other else ""
    facts = {"profile": settings.profile} if other else {}  # the face names it in its words
    if settings.signer == "env":
        return PaymentFailed(
            f"the signer is env{whose}, and {WALLET_ENV} is not set",
            code="no_wallet",
            hint=f"set {WALLET_ENV} (a 0x-prefixed 32-byte hex key)",
        )
    if free_call:
        return PaymentFailed(
            f"{free_call} is free, but the service asks for a zero-amount proof signed by a "
            f"wallet (nothing is paid) and there is none{whose}",
            code="no_wallet",
            next=step(
                "get_wallet",
                "get one with ",
                **facts,
                **({"guide": "yes"} if free_call == "the quote" else {}),
            ),
        )
    return PaymentFailed(
        f"no wallet to pay with{whose}",
        code="no_wallet",
        next=step("get_wallet", "get one with ", **facts),
    )


def _unusable(secrets: SecretStore, settings: Settings, exc: X402Error) -> PaymentFailed:
    from_env = settings.signer == "env" or bool(os.environ.get(WALLET_ENV))  # it wins
    where = WALLET_ENV if from_env else "the stored wallet key"
    fix = (
        step("replace_wallet", "replace it: ")
        if not from_env
        else None  # the environment's key is the caller's own to fix, in every face
    )
    return PaymentFailed(
        f"{where} is unusable: {exc}",
        code="bad_wallet_key",
        hint=None if fix else f"fix or unset {WALLET_ENV} (a 0x-prefixed 32-byte hex key)",
        next=fix,
    )


def has_wallet(secrets: SecretStore, settings: Settings) -> bool:
    """Could this profile sign an x402 proof without asking anyone (a key, or a signer)?"""
    return is_external(settings) or bool(wallet_key(secrets, settings))
