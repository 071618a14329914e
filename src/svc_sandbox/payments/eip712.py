"""The signer of an EIP-3009 `TransferWithAuthorization`, recovered without eth_account.

Every paid submit's proof is checked here. `eth_account` cost the sandbox 0.5 s of CPU to import
at the first proof and 0.3 ms per proof (its generic EIP-712 encoder), a fifth of the sandbox's
CPU in a 1000-line batch (docs/performance.md). The type is fixed, so its digest is a few keccak
calls, and the recovery is the very `eth_keys` call eth_account makes.

Only the plain form is handled: addresses eth_abi accepts (`is_address`, the check it makes),
integers that fit uint256, a 65-byte hex signature with v in 0, 1, 27, 28. Anything else
(None here) goes to eth_account as before, so an odd proof meets exactly the same check.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from eth_hash.auto import keccak
from eth_keys.datatypes import Signature
from eth_utils.address import is_address

DOMAIN_TYPE = b"EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"
TRANSFER_TYPE = (
    b"TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,"
    b"uint256 validBefore,bytes32 nonce)"
)
_DOMAIN_TYPE_HASH = keccak(DOMAIN_TYPE)
_TRANSFER_TYPE_HASH = keccak(TRANSFER_TYPE)
_SIGNATURE = re.compile(r"0x[0-9a-fA-F]{130}")
_NONCE = re.compile(r"0x[0-9a-fA-F]{64}")
_V = {0: 0, 1: 1, 27: 0, 28: 1}  # eth_account's to_standard_v for the forms it reads alike
UINT256_END = 1 << 256


def recover_transfer_signer(message: dict[str, Any], types: Any, signature: str) -> str | None:
    """The checksummed address that signed `message` (eth_account's typed-data form of a
    TransferWithAuthorization with `types` its types), or None: not a form handled here."""
    if message.get("types") is not types or message.get("primaryType") != (
        "TransferWithAuthorization"
    ):
        return None
    digest = _digest(message["domain"], message["message"])
    if digest is None or not isinstance(signature, str) or not _SIGNATURE.fullmatch(signature):
        return None
    raw = bytes.fromhex(signature[2:])
    v = _V.get(raw[64])
    if v is None:
        return None
    try:
        key = Signature(signature_bytes=raw[:64] + bytes([v]))
        address: str = key.recover_public_key_from_msg_hash(digest).to_checksum_address()
    except Exception:  # an out-of-range r or s: eth_account says the same its own way
        return None
    return address


def _digest(domain: dict[str, Any], auth: dict[str, Any]) -> bytes | None:
    name, version, nonce = domain.get("name"), domain.get("version"), auth.get("nonce")
    if not (isinstance(name, str) and isinstance(version, str) and isinstance(nonce, str)):
        return None
    if not _NONCE.fullmatch(nonce):
        return None
    chain = _words((_uint, domain.get("chainId")), (_address, domain.get("verifyingContract")))
    transfer = _words(
        (_address, auth.get("from")),
        (_address, auth.get("to")),
        (_uint, auth.get("value")),
        (_uint, auth.get("validAfter")),
        (_uint, auth.get("validBefore")),
    )
    if chain is None or transfer is None:
        return None
    try:
        names = keccak(name.encode()) + keccak(version.encode())
    except UnicodeEncodeError:  # a lone surrogate: eth_account's own error, there
        return None
    separator = keccak(_DOMAIN_TYPE_HASH + names + chain)
    struct = keccak(_TRANSFER_TYPE_HASH + transfer + bytes.fromhex(nonce[2:]))
    return keccak(b"\x19\x01" + separator + struct)


def _words(*fields: tuple[Callable[[Any], bytes | None], Any]) -> bytes | None:
    """The 32-byte words of `fields` (each an encoder and its value), or None if one is not
    in the plain form."""
    words = b""
    for encode, value in fields:
        word = encode(value)
        if word is None:
            return None
        words += word
    return words


def _address(value: Any) -> bytes | None:
    if not (isinstance(value, str) and value.startswith("0x") and is_address(value)):
        return None
    return bytes(12) + bytes.fromhex(value[2:])


def _uint(value: Any) -> bytes | None:
    if type(value) is not int or not 0 <= value < UINT256_END:
        return None
    return value.to_bytes(32, "big")
