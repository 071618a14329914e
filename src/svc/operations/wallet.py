"""`wallet`: the payment keys this machine holds.

Operations of the CLI alone (or written by hand on the library): their requests and declarations.
A key or a signer token is never an argument: a request names only where one is read.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from svc.operations.declare import PERSON, Operation, by_hand
from svc.operations.fields import Flag, Request


class WalletCreateRequest(Request):
    """A new key for the profile in effect; a stored one is kept unless `force`."""

    force: Annotated[bool, Flag("--force")] = Field(False, description="Replace an existing key.")


class WalletImportRequest(Request):
    """An existing key (or a jsonrpc: signer's token) for the profile in effect.

    `file` names where the secret is read (a path, or '-': stdin, a hidden prompt on a
    terminal), never the secret: on a command line other users could read it.
    """

    file: Annotated[str, Flag("--file", "PATH|-", short="-f")] = Field(
        "-", description="Where to read the key (default stdin)."
    )
    force: Annotated[bool, Flag("--force")] = Field(False, description="Replace an existing key.")
    signer_token: Annotated[bool, Flag("--signer-token")] = Field(
        False, description="Store the profile's jsonrpc: signer token, not a key."
    )


class WalletAddressRequest(Request):
    """No arguments: the profile in effect (the global --profile) says whose address."""


class WalletListRequest(Request):
    """No arguments: every profile's wallet is listed."""


WALLET: tuple[Operation[Any], ...] = (
    by_hand("wallet create", PERSON, request=WalletCreateRequest),
    by_hand("wallet import", PERSON, request=WalletImportRequest),
    by_hand("wallet address", PERSON, request=WalletAddressRequest),
    by_hand("wallet list", PERSON, request=WalletListRequest),
)
