"""svc's own EIP-712 digest and secp256k1 signature against eth_account's, byte for byte.

svc.pay.eip712 and svc.pay.secp256k1 replace eth_account on the paid path; eth_account stays
installed as the reference here. For random keys and random authorizations, both of svc's
backends (coincurve, and eth-keys for an install without it) give the digest, the 65-byte
signature (r || s || v, v 27 or 28, low s) and the address eth_account gives, and recovery
finds the signer again.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from eth_account import Account
from eth_account.messages import encode_typed_data
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from svc.pay import eip712, secp256k1
from svc.pay.secp256k1 import HALF_N, SECP256K1_N, SigningKey, key_for, recover
from svc.pay.signers.external import recovered_address
from svc.pay.signers.probe import PROBE
from svc.pay.x402 import PaymentRequirements, X402Signer, typed_data

SRC = Path(__file__).resolve().parents[2] / "src"
TEST_KEY = bytes.fromhex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
TEST_ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"

BACKENDS: dict[str, Callable[[bytes], secp256k1._Backend]] = {
    "coincurve": secp256k1._Coincurve,
    "eth_keys": secp256k1._EthKeys,
}

keys = st.integers(min_value=1, max_value=SECP256K1_N - 1).map(lambda n: n.to_bytes(32, "big"))
addresses = st.binary(min_size=20, max_size=20).map(lambda b: "0x" + b.hex())
uint256 = st.integers(min_value=0, max_value=2**256 - 1)
text = st.text(max_size=40)


TRANSFER_TYPES: dict[str, list[dict[str, str]]] = {
    "EIP712Domain": [
        {"name": "name", "type": "string"},
        {"name": "version", "type": "string"},
        {"name": "chainId", "type": "uint256"},
        {"name": "verifyingContract", "type": "address"},
    ],
    "TransferWithAuthorization": [
        {"name": "from", "type": "address"},
        {"name": "to", "type": "address"},
        {"name": "value", "type": "uint256"},
        {"name": "validAfter", "type": "uint256"},
        {"name": "validBefore", "type": "uint256"},
        {"name": "nonce", "type": "bytes32"},
    ],
}


@st.composite
def transfers(draw: st.DrawFn) -> dict[str, Any]:
    """A TransferWithAuthorization typed-data message, every field drawn."""
    return {
        "types": TRANSFER_TYPES,
        "primaryType": "TransferWithAuthorization",
        "domain": {
            "name": draw(text),
            "version": draw(text),
            "chainId": draw(st.integers(min_value=1, max_value=2**63)),
            "verifyingContract": draw(addresses),
        },
        "message": {
            "from": draw(addresses),
            "to": draw(addresses),
            "value": draw(uint256),
            "validAfter": draw(uint256),
            "validBefore": draw(uint256),
            "nonce": "0x" + draw(st.binary(min_size=32, max_size=32)).hex(),
        },
    }


def reference_digest(message: dict[str, Any]) -> bytes:
    from eth_utils.crypto import keccak

    signable = encode_typed_data(full_message=message)
    return bytes(keccak(b"\x19" + signable.version + signable.header + signable.body))


def reference_signature(key: bytes, message: dict[str, Any]) -> bytes:
    return bytes(Account.sign_typed_data(key, full_message=message).signature)


def signing_key(key: bytes, backend: str) -> SigningKey:
    return SigningKey(key, BACKENDS[backend](key))


@pytest.mark.parametrize("backend", sorted(BACKENDS))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=keys, message=transfers())
def test_signature_equals_eth_accounts_byte_for_byte(
    backend: str, key: bytes, message: dict[str, Any]
) -> None:
    digest = eip712.digest(message)
    assert digest == reference_digest(message)
    signer = signing_key(key, backend)
    signature = signer.sign(digest)
    assert signature == reference_signature(key, message)
    assert signature[64] in (27, 28)
    assert int.from_bytes(signature[32:64], "big") <= HALF_N  # low s (EIP-2)
    assert signer.address == Account.from_key(key).address
    assert recover(digest, signature) == signer.address


@pytest.mark.parametrize("backend", sorted(BACKENDS))
@settings(max_examples=40, deadline=None)
@given(key=keys, digest=st.binary(min_size=32, max_size=32))
def test_any_digest_signs_as_eth_keys_and_recovers(backend: str, key: bytes, digest: bytes) -> None:
    from eth_keys.datatypes import PrivateKey

    signature = signing_key(key, backend).sign(digest)
    reference = PrivateKey(key).sign_msg_hash(digest).to_bytes()
    assert signature[:64] == reference[:64]
    assert signature[64] == reference[64] + 27
    assert int.from_bytes(signature[32:64], "big") <= HALF_N
    assert recover(digest, signature) == Account.from_key(key).address


@settings(max_examples=150, deadline=None)
@given(data=st.binary(max_size=700))
def test_keccak_is_eth_hashs(data: bytes) -> None:
    """The one hasher is pycryptodome's; eth-hash, what eth-account hashes with, agrees."""
    from eth_hash.auto import keccak as reference

    assert eip712.keccak256(data) == reference(data)


def test_without_coincurve_eth_keys_signs_and_recovers_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    digest = eip712.digest(PROBE)
    reference = reference_signature(TEST_KEY, PROBE)
    monkeypatch.setattr(secp256k1, "_has_coincurve", lambda: False)
    key = SigningKey(TEST_KEY)  # not key_for: the process's key stays coincurve's
    assert isinstance(key._backend, secp256k1._EthKeys)
    assert key.address == TEST_ADDRESS
    assert key.sign(digest) == reference
    assert recover(digest, reference) == TEST_ADDRESS
    assert recover(digest, bytes(64) + b"\x1b") is None


def test_the_probe_digest_and_signature_match_eth_account() -> None:
    digest = eip712.digest(PROBE)
    assert digest == reference_digest(PROBE)
    signature = key_for(TEST_KEY).sign(digest)
    assert signature == reference_signature(TEST_KEY, PROBE)
    assert recovered_address(PROBE, "0x" + signature.hex()) == TEST_ADDRESS


def test_a_nested_struct_type_is_encoded_as_eth_account_encodes_it() -> None:
    message = {
        "types": {
            "EIP712Domain": [{"name": "name", "type": "string"}],
            "Mail": [
                {"name": "from", "type": "Person"},
                {"name": "to", "type": "Person"},
                {"name": "contents", "type": "string"},
                {"name": "urgent", "type": "bool"},
                {"name": "blob", "type": "bytes"},
                {"name": "delta", "type": "int64"},
            ],
            "Person": [{"name": "name", "type": "string"}, {"name": "wallet", "type": "address"}],
        },
        "primaryType": "Mail",
        "domain": {"name": "Ether Mail"},
        "message": {
            "from": {"name": "Cow", "wallet": "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"},
            "to": {"name": "Bob", "wallet": "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"},
            "contents": "Hello, Bob!",
            "urgent": True,
            "blob": "0x00ff",
            "delta": -5,
        },
    }
    assert eip712.digest(message) == reference_digest(message)


@pytest.mark.parametrize(
    ("kind", "value"),
    [
        ("uint8", 256),
        ("uint256", -1),
        ("int8", 128),
        ("uint256", True),
        ("uint256", "5"),
        ("address", "0x1234"),
        ("bytes32", "0x" + "ab" * 31),
        ("bytes4", "ab"),
        ("bool", 1),
        ("string", b"x"),
        ("uint256[]", [1]),
        ("tuple", 1),
    ],
)
def test_a_value_outside_its_type_is_refused(kind: str, value: Any) -> None:
    message = {
        "types": {
            "EIP712Domain": [{"name": "name", "type": "string"}],
            "T": [{"name": "x", "type": kind}],
        },
        "primaryType": "T",
        "domain": {"name": "d"},
        "message": {"x": value},
    }
    with pytest.raises(eip712.EIP712Error):
        eip712.digest(message)


@pytest.mark.parametrize(
    "broken",
    [
        {"primaryType": "Missing"},
        {"types": {"T": [{"name": "x", "type": "string"}]}},
        {"message": {}},
        {"domain": "not an object"},
        {"types": []},
    ],
)
def test_typed_data_that_is_not_whole_is_refused(broken: dict[str, Any]) -> None:
    message = {**PROBE, **broken}
    with pytest.raises(eip712.EIP712Error):
        eip712.digest(message)


@pytest.mark.parametrize(
    "signature",
    [
        bytes(64) + b"\x1b",  # r = s = 0
        b"\xff" * 64 + b"\x1c",  # r, s >= n
        bytes(65),  # v 0: not the chain's form
        b"\x01" * 64 + b"\x1d",  # v 29
        b"\x01" * 10,  # short
    ],
)
def test_a_signature_that_recovers_nothing_is_none(signature: bytes) -> None:
    assert recover(bytes(32), signature) is None
    assert recovered_address(PROBE, "0x" + signature.hex()) is None


def test_the_key_object_is_kept_for_the_process_and_never_shown() -> None:
    key = key_for(TEST_KEY)
    assert key_for(TEST_KEY) is key  # derived once: a batch's signers share it
    signer = X402Signer("0x" + TEST_KEY.hex())
    assert signer.address == TEST_ADDRESS
    for shown in (repr(key), str(key), repr(signer), str(signer)):
        assert TEST_KEY.hex() not in shown.lower()
        assert TEST_ADDRESS in shown
    with pytest.raises(TypeError):
        pickle.dumps(key)
    with pytest.raises(ValueError, match="32 bytes") as refused:
        SigningKey(SECP256K1_N.to_bytes(32, "big"))
    assert SECP256K1_N.to_bytes(32, "big").hex() not in str(refused.value)


def test_a_high_s_answer_from_the_library_is_refused() -> None:
    class HighS:
        def public_key(self) -> bytes:
            return secp256k1._Coincurve(TEST_KEY).public_key()

        def sign(self, digest: bytes) -> bytes:
            good = secp256k1._Coincurve(TEST_KEY).sign(digest)
            s = int.from_bytes(good[32:64], "big")
            return good[:32] + (SECP256K1_N - s).to_bytes(32, "big") + bytes([good[64] ^ 1])

    with pytest.raises(ValueError, match="not canonical"):
        SigningKey(TEST_KEY, HighS()).sign(bytes(32))


def test_the_x402_signer_signs_what_eth_account_signs() -> None:
    entry = {
        "scheme": "exact",
        "network": "eip155:8453",
        "amount": "1500000",
        "asset": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
        "payTo": "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
        "maxTimeoutSeconds": 300,
        "extra": {"name": "USD Coin", "version": "2"},
    }
    req = PaymentRequirements.from_entry(entry, 2)
    payload = X402Signer("0x" + TEST_KEY.hex()).sign(req, now=1_700_000_000, nonce=b"\x07" * 32)
    message = typed_data(req, payload["authorization"])
    assert payload["signature"] == "0x" + reference_signature(TEST_KEY, message).hex()


def test_a_paid_signature_loads_no_eth_account() -> None:
    """svc signs with its own EIP-712 encoder over pycryptodome's Keccak and coincurve: the
    eth-account stack (eth_abi's grammar, eth_utils, eth_typing) stays unloaded."""
    code = (
        "import sys, svc.pay.x402 as m\n"
        "req = m.PaymentRequirements.from_entry({'scheme': 'exact', 'network': 'eip155:8453',"
        " 'amount': '1', 'asset': '0x' + '11' * 20, 'payTo': '0x' + '22' * 20,"
        " 'maxTimeoutSeconds': 60, 'extra': {'name': 'USD Coin', 'version': '2'}}, 2)\n"
        "m.X402Signer(m.generate_private_key()).sign(req)\n"
        "heavy = [n for n in ('eth_account', 'eth_utils', 'eth_abi', 'eth_typing')"
        " if n in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
    }
    result = subprocess.run(
        [sys.executable, "-c", code], check=False, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def _transfer(domain: dict[str, Any], nonce: int = 7) -> dict[str, Any]:
    """A TransferWithAuthorization for `domain` (the strategy's shape, fixed values)."""
    return {
        "types": TRANSFER_TYPES,
        "primaryType": "TransferWithAuthorization",
        "domain": domain,
        "message": {
            "from": TEST_ADDRESS,
            "to": "0x" + "33" * 20,
            "value": 1_500_000,
            "validAfter": 0,
            "validBefore": 2_000_000_000,
            "nonce": "0x" + nonce.to_bytes(32, "big").hex(),
        },
    }


def test_a_domain_is_hashed_once_and_its_separator_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch signs every task for one domain: its separator (the name's, the version's and
    the struct's hash) is computed once; each later digest hashes only the message and the
    whole. The kept separator gives eth_account's digest every time."""
    domain = {
        "name": "USDC kept",
        "version": "2",
        "chainId": 84532,
        "verifyingContract": "0x" + "11" * 20,
    }
    first, second = _transfer(domain), _transfer(dict(domain), nonce=8)
    assert eip712.digest(first) == reference_digest(first)
    hashed: list[bytes] = []
    real = eip712.keccak256
    monkeypatch.setattr(eip712, "keccak256", lambda data: hashed.append(data) or real(data))
    assert eip712.digest(second) == reference_digest(second)
    assert len(hashed) == 2  # the message's struct and the digest: not the domain's three


def test_a_kept_separator_never_answers_for_a_value_of_another_type() -> None:
    """1, 1.0 and True are equal dictionary keys; only 1 is a uint256. A domain whose chainId
    is True or 1.0 is refused as before, even once the domain with chainId 1 was kept; and a
    domain that differs in any one field gets its own separator."""
    domain = {"name": "typed", "version": "1", "chainId": 1, "verifyingContract": "0x" + "22" * 20}
    assert eip712.digest(_transfer(domain)) == reference_digest(_transfer(domain))
    for confused in (True, 1.0):
        with pytest.raises(eip712.EIP712Error):
            eip712.digest(_transfer({**domain, "chainId": confused}))
    for field, other in (("name", "typeD"), ("version", "2"), ("chainId", 2)):
        message = _transfer({**domain, field: other})
        assert eip712.digest(message) == reference_digest(message)
    without = {k: v for k, v in domain.items() if k != "version"}
    with pytest.raises(eip712.EIP712Error):
        eip712.digest(_transfer(without))
