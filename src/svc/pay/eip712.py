"""EIP-712 typed-data digests, computed here rather than by eth-account.

`import eth_account` cost a paid submit about a quarter of its time (eth_abi, parsimonious's
grammar, eth_utils, eth_typing's enum of every chain), and signing uses none of it: the digest
of an x402 authorization is a handful of Keccak-256 hashes over 32-byte words. This module
encodes the typed data svc signs or checks (TransferWithAuthorization, the signer probe): struct
types whose fields are atomic (address, bool, uintN, intN, bytesN, bytes, string) or other
struct types. Arrays are refused (svc never signs one). tests/unit/test_eip712_signing.py holds
the digests equal to eth_account's for random messages.

Keccak-256 is pycryptodome's (`Crypto.Hash.keccak`), imported at the first hash: importing this
module loads no third-party package.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any, Final

from svc.kept import Kept

__all__ = ["EIP712Error", "digest", "keccak256"]

_Types = dict[str, list[tuple[str, str]]]
_Frozen = tuple[tuple[str, tuple[tuple[str, str], ...]], ...]

_INT = re.compile(r"(u?)int([0-9]{1,3})", re.ASCII)
_BYTES_N = re.compile(r"bytes([0-9]{1,2})", re.ASCII)
_HEX = re.compile(r"0x([0-9a-fA-F]*)", re.ASCII)
_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*", re.ASCII)


class EIP712Error(ValueError):
    """Typed data that cannot be encoded (an unknown type, a value out of its type's range)."""


@cache
def _hasher() -> Callable[[bytes], bytes]:
    """pycryptodome's Keccak-256, imported once, at the first hash."""
    from Crypto.Hash import keccak

    return lambda data: keccak.new(digest_bits=256, data=data).digest()


def keccak256(data: bytes) -> bytes:
    """Keccak-256 (Ethereum's hash, not NIST SHA3-256) of `data`."""
    return _hasher()(data)


def digest(typed: Mapping[str, Any]) -> bytes:
    """The 32-byte EIP-712 digest of a full typed-data message (types, primaryType, domain,
    message): keccak256(0x19 0x01 || domainSeparator || hashStruct(message)), what an EOA signs."""
    types = _types(typed.get("types"))
    primary = typed.get("primaryType")
    if not isinstance(primary, str) or primary not in types:
        raise EIP712Error("the typed data's primaryType is not one of its types")
    if "EIP712Domain" not in types:
        raise EIP712Error("the typed data declares no EIP712Domain type")
    frozen = _frozen(types)
    domain = _domain_separator(_object(typed.get("domain"), "domain"), types, frozen)
    message = _struct_hash(primary, _object(typed.get("message"), "message"), types, frozen)
    return keccak256(b"\x19\x01" + domain + message)


# Domain separators already computed, by (types, domain's fields): a batch signs every task for
# the same domain, and its separator is three of the five hashes of a signature (the name's,
# the version's and the struct's). Bounded: a long-lived process may meet many domains.
KEPT_SEPARATORS: Final = 64
_SEPARATORS: Kept[tuple[_Frozen, tuple[tuple[str, type, Any], ...]], bytes] = Kept(KEPT_SEPARATORS)


def _domain_separator(domain: Mapping[str, Any], types: _Types, frozen: _Frozen) -> bytes:
    """hashStruct(domain), kept per domain: only its declared fields enter the key, each with
    its type beside its value (1, 1.0 and True are equal keys, but only 1 encodes as a uint);
    an unhashable value, which no real domain has, is hashed afresh."""
    fields = tuple(
        (name, type(value), value)
        for name, _ in types["EIP712Domain"]
        for value in (domain.get(name, _MISSING),)
    )
    try:
        hash(fields)
    except TypeError:  # a list or an object where a word belongs: the encoder refuses it
        return _struct_hash("EIP712Domain", domain, types, frozen)
    return _SEPARATORS.get(
        (frozen, fields), lambda _: _struct_hash("EIP712Domain", domain, types, frozen)
    )


_MISSING: Final = object()  # a declared field the domain lacks: refused, never kept


def _struct_hash(name: str, data: Mapping[str, Any], types: _Types, frozen: _Frozen) -> bytes:
    """hashStruct(data) of struct type `name`: keccak256(typeHash || encodeData(data))."""
    words = [_type_hash(_encode_type(name, frozen))]
    for field_name, field_type in types[name]:
        if field_name not in data:
            raise EIP712Error(f"the typed data's {name} lacks its field {field_name!r}")
        words.append(_encode_value(field_type, data[field_name], types, frozen))
    return keccak256(b"".join(words))


# --- types ---------------------------------------------------------------------------------


def _types(value: object) -> _Types:
    if not isinstance(value, Mapping):
        raise EIP712Error("the typed data's types are not an object")
    return {str(name): _field_list(name, fields) for name, fields in value.items()}


def _field_list(name: object, fields: object) -> list[tuple[str, str]]:
    if not isinstance(name, str) or not _IDENT.fullmatch(name) or not isinstance(fields, list):
        raise EIP712Error("the typed data has a type that is not a named list of fields")
    out = []
    for field in fields:
        if not isinstance(field, Mapping):
            raise EIP712Error(f"the typed data's type {name} has a field that is not an object")
        field_name, field_type = field.get("name"), field.get("type")
        if not isinstance(field_name, str) or not isinstance(field_type, str):
            raise EIP712Error(f"the typed data's type {name} has a field without name and type")
        out.append((field_name, field_type))
    return out


def _frozen(types: _Types) -> _Frozen:
    """The types as a hashable value, so a type's encoding is computed once per process."""
    return tuple(sorted((name, tuple(fields)) for name, fields in types.items()))


@cache
def _encode_type(name: str, frozen: _Frozen) -> str:
    """encodeType: the primary type, then the struct types it references, sorted by name."""
    types = dict(frozen)
    found: set[str] = set()
    stack = [name]
    while stack:
        current = stack.pop()
        if current in found:
            continue
        found.add(current)
        stack += [kind for _, kind in types[current] if kind in types]
    ordered = [name, *sorted(found - {name})]
    return "".join(
        f"{kind}(" + ",".join(f"{t} {n}" for n, t in types[kind]) + ")" for kind in ordered
    )


@cache
def _type_hash(encoded: str) -> bytes:
    return keccak256(encoded.encode("utf-8"))


# --- values --------------------------------------------------------------------------------


def _encode_value(kind: str, value: Any, types: _Types, frozen: _Frozen) -> bytes:
    """One field's 32-byte word (EIP-712 encodeData)."""
    if kind in types:
        return _struct_hash(kind, _object(value, kind), types, frozen)
    if kind == "string":
        if not isinstance(value, str):
            raise EIP712Error("an EIP-712 string field holds no text")
        return keccak256(value.encode("utf-8"))
    if kind == "bytes":
        return keccak256(_bytes(value, kind))
    if kind == "address":
        raw = _bytes(value, kind)
        if len(raw) != 20:
            raise EIP712Error("an EIP-712 address is not 20 bytes")
        return raw.rjust(32, b"\0")
    if kind == "bool":
        if not isinstance(value, bool):
            raise EIP712Error("an EIP-712 bool field holds no boolean")
        return int(value).to_bytes(32, "big")
    sized = _BYTES_N.fullmatch(kind)
    if sized and 1 <= int(sized.group(1)) <= 32:
        raw = _bytes(value, kind)
        if len(raw) != int(sized.group(1)):
            raise EIP712Error(f"an EIP-712 {kind} field does not hold {sized.group(1)} bytes")
        return raw.ljust(32, b"\0")
    number = _INT.fullmatch(kind)
    if number:
        return _int_word(value, unsigned=number.group(1) == "u", bits=int(number.group(2)))
    raise EIP712Error(f"the EIP-712 type {kind[:40]!r} is not supported")


def _int_word(value: Any, *, unsigned: bool, bits: int) -> bytes:
    if not 8 <= bits <= 256 or bits % 8:
        raise EIP712Error(f"the EIP-712 integer width {bits} is not valid")
    if isinstance(value, bool) or not isinstance(value, int):
        raise EIP712Error("an EIP-712 integer field holds no integer")
    low, high = (0, 2**bits) if unsigned else (-(2 ** (bits - 1)), 2 ** (bits - 1))
    if not low <= value < high:
        raise EIP712Error("an EIP-712 integer is out of its type's range")
    return value.to_bytes(32, "big", signed=True) if value < 0 else value.to_bytes(32, "big")


def _bytes(value: Any, kind: str) -> bytes:
    if isinstance(value, bytes | bytearray):
        return bytes(value)
    match = _HEX.fullmatch(value) if isinstance(value, str) else None
    if match is None or len(match.group(1)) % 2:
        raise EIP712Error(f"an EIP-712 {kind} field is not 0x-prefixed hex")
    return bytes.fromhex(match.group(1))


def _object(value: object, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise EIP712Error(f"the typed data's {what} is not an object")
    return value
