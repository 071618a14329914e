"""svc.pay.x402: challenge parsing, EIP-3009 signing, proof encoding, cross-checked with the SDK.

The official ``x402`` SDK is a test-only dependency here. Its ``x402.mechanisms.evm`` package
imports web3 in ``__init__`` (for its RPC signers); the hashing/verification submodules used here
do not, so when web3 is absent they are loaded under a bare stand-in package (see ``sdk_evm``).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import subprocess
import sys
import time
import types
from collections.abc import Iterator
from decimal import Context, Decimal
from pathlib import Path
from typing import Any

import pytest
from eth_utils import to_checksum_address
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.x402_sdk import sdk_evm_helpers

SRC = Path(__file__).resolve().parents[2] / "src"
if str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))

from tests.pay_readers import decode_receipt, recover_payer  # noqa: E402

from svc.money import AmountError, atomic_to_usd, usd_to_atomic  # noqa: E402
from svc.pay import x402  # noqa: E402
from svc.pay.x402 import (  # noqa: E402
    PaymentRequirements,
    X402Challenge,
    X402Error,
    X402Signer,
    address_of,
    build_authorization,
    chain_id,
    encode_proof,
    generate_private_key,
    parse_challenge,
    typed_data,
)

# Public test vector (docs/protocols.md): the well-known Hardhat/Anvil account #0.
TEST_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
TEST_ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
VECTOR_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"
VECTOR_DIGEST = "0x199a12d5f09b11dc32a4feb1873f93dfc2f69d4036cafdad1cb1b71895bb7652"
VECTOR_SIGNATURE = (
    "0x370c1c44c786b248ab9c8c0642d278fb46f9b64939b1b2ae9162771775b559876"
    "4d084cf4e9798db2b672d0d90f72a8f5cd8f448b06fe6a9f1e685c889dc2d601b"
)
BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"


def b64(obj: Any) -> str:
    return base64.b64encode(json.dumps(obj, separators=(",", ":")).encode()).decode()


def unb64(value: str) -> Any:
    return json.loads(base64.b64decode(value, validate=True))


def v2_entry(**over: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "scheme": "exact",
        "network": "eip155:8453",
        "amount": "1500000",
        "asset": BASE_USDC,
        "payTo": PAY_TO,
        "maxTimeoutSeconds": 300,
        "extra": {"name": "USD Coin", "version": "2"},
    }
    entry.update(over)
    return entry


def v2_challenge_obj(**over: Any) -> dict[str, Any]:
    """What the sandbox sends in PAYMENT-REQUIRED (docs/sandbox-wire.md)."""
    obj: dict[str, Any] = {
        "x402Version": 2,
        "error": "payment_required",
        "resource": {
            "url": "http://127.0.0.1:8000/svc/tasks",
            "description": "Run a task",
            "mimeType": "application/json",
        },
        "accepts": [v2_entry()],
    }
    obj.update(over)
    return obj


def v1_entry(**over: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "scheme": "exact",
        "network": "base",
        "maxAmountRequired": "1500000",
        "resource": "http://127.0.0.1:8000/svc/tasks",
        "description": "Run a task",
        "mimeType": "application/json",
        "payTo": PAY_TO,
        "maxTimeoutSeconds": 300,
        "asset": BASE_USDC,
        "extra": {"name": "USD Coin", "version": "2"},
    }
    entry.update(over)
    return entry


def v1_body(**over: Any) -> bytes:
    obj: dict[str, Any] = {
        "error": "payment_required",
        "detail": "pay first",
        "payment": {"id": "pay_1", "amountUsd": "1.500000", "currency": "USD"},
        "x402Version": 1,
        "accepts": [v1_entry()],
    }
    obj.update(over)
    return json.dumps(obj).encode()


def v2_challenge() -> X402Challenge:
    challenge = parse_challenge({"PAYMENT-REQUIRED": b64(v2_challenge_obj())}, b"{}")
    assert challenge is not None
    return challenge


def vector_requirements() -> PaymentRequirements:
    return PaymentRequirements.from_entry(v2_entry(amount="10000"), 2)


VECTOR_NONCE = bytes.fromhex("ab" * 32)
VECTOR_NOW = 1740671489 + 600  # validAfter = now - 600 = 1740671489
VECTOR_TIMEOUT = 1740672154 - VECTOR_NOW  # validBefore = now + maxTimeoutSeconds


# --------------------------------------------------------------------------- SDK access


@pytest.fixture(scope="module")
def sdk_evm() -> Iterator[types.SimpleNamespace]:
    """The SDK's EVM helpers, without requiring web3 (only its RPC signers need it)."""
    with sdk_evm_helpers() as helpers:
        yield helpers


def sdk_authorization(sdk: types.SimpleNamespace, auth: dict[str, str]) -> Any:
    return sdk.Authorization(
        from_address=auth["from"],
        to=auth["to"],
        value=auth["value"],
        valid_after=auth["validAfter"],
        valid_before=auth["validBefore"],
        nonce=auth["nonce"],
    )


class FakeChain:
    """The two RPC reads the SDK's facilitator makes before simulation: eth_getCode."""

    def __init__(self, contracts: set[str]) -> None:
        self.contracts = {c.lower() for c in contracts}

    def get_addresses(self) -> list[str]:
        return []

    def get_code(self, address: str) -> bytes:
        return b"\x60\x80" if address.lower() in self.contracts else b""


class SdkClientSigner:
    """The SDK's ClientEvmSigner protocol over eth_account directly (not over our module)."""

    def __init__(self, key: str) -> None:
        from eth_account import Account

        self._account = Account.from_key(key)

    @property
    def address(self) -> str:
        return str(self._account.address)

    def sign_typed_data(
        self, domain: Any, types_: dict[str, list[Any]], primary_type: str, message: dict[str, Any]
    ) -> bytes:
        signed = self._account.sign_typed_data(
            domain_data={
                "name": domain.name,
                "version": domain.version,
                "chainId": domain.chain_id,
                "verifyingContract": domain.verifying_contract,
            },
            message_types={
                name: [{"name": f.name, "type": f.type} for f in fields]
                for name, fields in types_.items()
            },
            message_data=message,
        )
        return bytes(signed.signature)


# --------------------------------------------------------------------------- test vector


def test_public_vector_digest_and_signature() -> None:
    from eth_account.messages import encode_typed_data

    req = PaymentRequirements.from_entry(
        v2_entry(amount="10000", maxTimeoutSeconds=VECTOR_TIMEOUT), 2
    )
    signer = X402Signer(TEST_KEY)
    assert signer.address == TEST_ADDRESS
    payload = signer.sign(req, now=VECTOR_NOW, nonce=VECTOR_NONCE)
    assert payload["authorization"] == {
        "from": TEST_ADDRESS,
        "to": VECTOR_TO,
        "value": "10000",
        "validAfter": "1740671489",
        "validBefore": "1740672154",
        "nonce": "0x" + "ab" * 32,
    }
    assert payload["signature"] == VECTOR_SIGNATURE
    message = typed_data(req, payload["authorization"])
    assert message["domain"] == {
        "name": "USD Coin",
        "version": "2",
        "chainId": 8453,
        "verifyingContract": BASE_USDC,
    }
    assert message["primaryType"] == "TransferWithAuthorization"
    signable = encode_typed_data(full_message=message)
    from eth_utils import keccak

    digest = keccak(b"\x19" + signable.version + signable.header + signable.body)
    assert "0x" + digest.hex() == VECTOR_DIGEST
    assert recover_payer(req, payload) == TEST_ADDRESS


def test_wrong_domain_name_recovers_to_another_address() -> None:
    base = PaymentRequirements.from_entry(v2_entry(), 2)
    sepolia_name = PaymentRequirements.from_entry(
        v2_entry(extra={"name": "USDC", "version": "2"}), 2
    )
    payload = X402Signer(TEST_KEY).sign(sepolia_name, now=1_700_000_000)
    assert recover_payer(sepolia_name, payload) == TEST_ADDRESS
    other = recover_payer(base, payload)
    assert other != TEST_ADDRESS
    assert other.startswith("0x") and len(other) == 42


def test_domain_comes_from_challenge_extra_and_network() -> None:
    req = PaymentRequirements.from_entry(
        v2_entry(network="eip155:84532", extra={"name": "USDC", "version": "2"}), 2
    )
    auth = build_authorization(req, TEST_ADDRESS, now=1_700_000_000, nonce=bytes(32))
    domain = typed_data(req, auth)["domain"]
    assert domain == {
        "name": "USDC",
        "version": "2",
        "chainId": 84532,
        "verifyingContract": BASE_USDC,
    }


# --------------------------------------------------------------------------- SDK cross-checks


def test_sdk_hash_and_eoa_verification_match(sdk_evm: types.SimpleNamespace) -> None:
    from eth_account.messages import encode_typed_data
    from eth_utils import keccak

    for entry in (
        v2_entry(),
        v2_entry(network="eip155:84532", extra={"name": "USDC", "version": "2"}),
    ):
        req = PaymentRequirements.from_entry(entry, 2)
        payload = X402Signer(TEST_KEY).sign(req)
        auth = payload["authorization"]
        signable = encode_typed_data(full_message=typed_data(req, auth))
        ours = keccak(b"\x19" + signable.version + signable.header + signable.body)
        sdk_hash = sdk_evm.hash_eip3009_authorization(
            sdk_authorization(sdk_evm, auth),
            chain_id(req.network),
            req.asset,
            req.extra["name"],
            req.extra["version"],
        )
        assert sdk_hash == ours
        signature = bytes.fromhex(payload["signature"][2:])
        assert sdk_evm.verify_eoa_signature(sdk_hash, signature, TEST_ADDRESS)
        assert not sdk_evm.verify_eoa_signature(sdk_hash, signature, PAY_TO)


def test_sdk_hash_matches_public_vector(sdk_evm: types.SimpleNamespace) -> None:
    auth = {
        "from": TEST_ADDRESS,
        "to": VECTOR_TO,
        "value": "10000",
        "validAfter": "1740671489",
        "validBefore": "1740672154",
        "nonce": "0x" + "ab" * 32,
    }
    digest = sdk_evm.hash_eip3009_authorization(
        sdk_authorization(sdk_evm, auth), 8453, BASE_USDC, "USD Coin", "2"
    )
    assert "0x" + digest.hex() == VECTOR_DIGEST
    assert sdk_evm.verify_eoa_signature(digest, bytes.fromhex(VECTOR_SIGNATURE[2:]), TEST_ADDRESS)


def test_v2_proof_parses_and_verifies_with_sdk_facilitator(
    sdk_evm: types.SimpleNamespace,
) -> None:
    from x402.http.utils import decode_payment_required_header, decode_payment_signature_header
    from x402.schemas import PaymentPayload

    header = b64(v2_challenge_obj())
    challenge = parse_challenge({"payment-required": header}, b"")
    assert challenge is not None
    req = challenge.accepts[0]
    payload = X402Signer(TEST_KEY).sign(req)
    proof = encode_proof(challenge, req, payload)

    decoded = decode_payment_signature_header(proof)
    assert isinstance(decoded, PaymentPayload)
    assert decoded.x402_version == 2
    assert decoded.payload == payload
    assert decoded.resource is not None
    assert decoded.resource.url == "http://127.0.0.1:8000/svc/tasks"
    server_required = decode_payment_required_header(header)
    assert decoded.accepted == server_required.accepts[0]

    facilitator = sdk_evm.Facilitator(FakeChain({BASE_USDC}))
    result, _ = facilitator._verify(decoded, server_required.accepts[0], simulate=False)
    assert result.is_valid, result
    assert result.payer == TEST_ADDRESS

    # The same proof against a wrong domain name is rejected by the SDK.
    wrong = server_required.accepts[0].model_copy(
        update={"extra": {"name": "USDC", "version": "2"}}
    )
    bad, _ = facilitator._verify(decoded, wrong, simulate=False)
    assert not bad.is_valid


def test_v1_proof_parses_and_verifies_with_sdk_facilitator(
    sdk_evm: types.SimpleNamespace,
) -> None:
    from x402.http.utils import decode_payment_signature_header
    from x402.schemas.v1 import PaymentPayloadV1, PaymentRequiredV1

    body = v1_body()
    challenge = parse_challenge({}, body)
    assert challenge is not None and challenge.version == 1
    req = challenge.accepts[0]
    payload = X402Signer(TEST_KEY).sign(req)
    proof = encode_proof(challenge, req, payload)
    assert unb64(proof) == {
        "x402Version": 1,
        "scheme": "exact",
        "network": "base",
        "payload": payload,
    }
    decoded = decode_payment_signature_header(proof)
    assert isinstance(decoded, PaymentPayloadV1)
    server_required = PaymentRequiredV1.model_validate(json.loads(body))
    result = sdk_evm.FacilitatorV1(FakeChain({BASE_USDC}))._verify(
        decoded, server_required.accepts[0], simulate=False
    )
    assert result.is_valid, result
    assert result.payer == TEST_ADDRESS


def test_sdk_client_proof_has_our_shape_and_recovers_with_us(
    sdk_evm: types.SimpleNamespace,
) -> None:
    """The SDK's own client builds the same proof structure, and our recovery accepts it."""
    from x402 import x402ClientSync
    from x402.http.utils import decode_payment_required_header, encode_payment_signature_header

    header = b64(v2_challenge_obj())
    sdk_client = x402ClientSync().set_spend_controls(False)  # our price is above its $1 default
    client = sdk_evm.register_exact_evm_client(sdk_client, SdkClientSigner(TEST_KEY))
    required = decode_payment_required_header(header)
    sdk_proof = unb64(
        encode_payment_signature_header(
            client.create_payment_payload(required, resource=required.resource)
        )
    )

    challenge = parse_challenge({"PAYMENT-REQUIRED": header}, b"")
    assert challenge is not None
    req = challenge.accepts[0]
    ours = unb64(encode_proof(challenge, req, X402Signer(TEST_KEY).sign(req)))

    assert set(sdk_proof) == set(ours)
    assert sdk_proof["accepted"] == ours["accepted"]
    assert sdk_proof["resource"] == ours["resource"]
    assert set(sdk_proof["payload"]) == set(ours["payload"]) == {"signature", "authorization"}
    assert set(sdk_proof["payload"]["authorization"]) == set(ours["payload"]["authorization"])
    assert recover_payer(req, sdk_proof["payload"]) == TEST_ADDRESS


# --------------------------------------------------------------------------- parsing


def test_parse_v2_header_sandbox_shape() -> None:
    challenge = parse_challenge(
        {"PAYMENT-REQUIRED": b64(v2_challenge_obj())}, b'{"error":"payment_required"}'
    )
    assert challenge == X402Challenge(
        version=2,
        accepts=[
            PaymentRequirements(
                scheme="exact",
                network="eip155:8453",
                amount=1_500_000,
                asset=BASE_USDC,
                pay_to=PAY_TO,
                max_timeout_seconds=300,
                extra={"name": "USD Coin", "version": "2"},
                raw=v2_entry(),
            )
        ],
        resource=v2_challenge_obj()["resource"],
        error="payment_required",
    )


def test_header_lookup_is_case_insensitive_and_wins_over_body() -> None:
    for name in ("payment-required", "Payment-Required", "PAYMENT-REQUIRED"):
        challenge = parse_challenge({name: " " + b64(v2_challenge_obj()) + " "}, v1_body())
        assert challenge is not None and challenge.version == 2


def test_header_lookup_with_httpx_headers() -> None:
    import httpx

    headers = httpx.Headers({"payment-required": b64(v2_challenge_obj())})
    challenge = parse_challenge(headers, b"")
    assert challenge is not None and challenge.accepts[0].amount == 1_500_000


def test_unpadded_base64_is_accepted() -> None:
    value = b64(v2_challenge_obj()).rstrip("=")
    assert parse_challenge({"PAYMENT-REQUIRED": value}, b"") is not None


def test_parse_v1_body() -> None:
    challenge = parse_challenge({"content-type": "application/json"}, v1_body())
    assert challenge is not None
    assert challenge.version == 1
    assert challenge.error == "payment_required"
    assert challenge.resource is None
    (req,) = challenge.accepts
    assert req.amount == 1_500_000
    assert req.network == "base"
    assert req.pay_to == PAY_TO
    assert req.raw == v1_entry()


def test_v1_extra_as_json_string() -> None:
    body = v1_body(accepts=[v1_entry(extra=json.dumps({"name": "USD Coin", "version": "2"}))])
    challenge = parse_challenge({}, body)
    assert challenge is not None
    assert challenge.accepts[0].extra == {"name": "USD Coin", "version": "2"}


def test_missing_extra_is_empty_but_cannot_sign() -> None:
    entry = v2_entry()
    del entry["extra"]
    req = PaymentRequirements.from_entry(entry, 2)
    assert req.extra == {}
    with pytest.raises(X402Error, match="EIP-712"):
        X402Signer(TEST_KEY).sign(req)


@pytest.mark.parametrize(
    "body",
    [b"", b"   ", b"<html>402</html>", b"Payment Required", b'{"error":"payment_required"}', b"[]"],
)
def test_no_challenge_is_none(body: bytes) -> None:
    assert parse_challenge({"content-type": "text/html"}, body) is None


def test_multiple_accepts_and_other_schemes_are_kept() -> None:
    other = {
        "scheme": "exact",
        "network": "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
        "amount": "1500000",
        "asset": "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
        "payTo": "SomeSolanaAddress",
        "maxTimeoutSeconds": 60,
    }
    challenge = parse_challenge(
        {"PAYMENT-REQUIRED": b64(v2_challenge_obj(accepts=[other, v2_entry()]))}, b""
    )
    assert challenge is not None
    assert [a.network for a in challenge.accepts] == [other["network"], "eip155:8453"]
    with pytest.raises(X402Error):
        X402Signer(TEST_KEY).sign(challenge.accepts[0])


MALFORMED_V2: list[tuple[str, Any]] = [
    ("version 3", v2_challenge_obj(x402Version=3)),
    ("version true", v2_challenge_obj(x402Version=True)),
    ("version string", v2_challenge_obj(x402Version="2")),
    ("no accepts", {k: v for k, v in v2_challenge_obj().items() if k != "accepts"}),
    ("accepts not list", v2_challenge_obj(accepts={"a": 1})),
    ("empty accepts", v2_challenge_obj(accepts=[])),
    ("entry not object", v2_challenge_obj(accepts=["exact"])),
    ("negative amount", v2_challenge_obj(accepts=[v2_entry(amount="-1")])),
    ("decimal amount", v2_challenge_obj(accepts=[v2_entry(amount="1.5")])),
    ("float amount", v2_challenge_obj(accepts=[v2_entry(amount=1.5)])),
    ("bool amount", v2_challenge_obj(accepts=[v2_entry(amount=True)])),
    ("amount with space", v2_challenge_obj(accepts=[v2_entry(amount=" 15")])),
    ("amount underscore", v2_challenge_obj(accepts=[v2_entry(amount="1_000")])),
    ("unicode digits", v2_challenge_obj(accepts=[v2_entry(amount="١٥")])),
    ("amount > uint256", v2_challenge_obj(accepts=[v2_entry(amount=str(2**256))])),
    ("v1 amount key in v2", v2_challenge_obj(accepts=[v1_entry(network="eip155:8453")])),
    ("missing payTo", v2_challenge_obj(accepts=[{**v2_entry(), "payTo": None}])),
    ("empty scheme", v2_challenge_obj(accepts=[v2_entry(scheme="")])),
    ("network number", v2_challenge_obj(accepts=[v2_entry(network=8453)])),
    ("timeout string", v2_challenge_obj(accepts=[v2_entry(maxTimeoutSeconds="300")])),
    ("timeout zero", v2_challenge_obj(accepts=[v2_entry(maxTimeoutSeconds=0)])),
    ("timeout negative", v2_challenge_obj(accepts=[v2_entry(maxTimeoutSeconds=-5)])),
    ("extra list", v2_challenge_obj(accepts=[v2_entry(extra=["USD Coin"])])),
    ("extra bad json string", v2_challenge_obj(accepts=[v2_entry(extra="{nope")])),
    ("resource string", v2_challenge_obj(resource="http://x")),
    ("error number", v2_challenge_obj(error=402)),
    ("too many accepts", v2_challenge_obj(accepts=[v2_entry()] * 65)),
    ("top level list", [v2_challenge_obj()]),
    ("top level string", "x402"),
]


@pytest.mark.parametrize(("label", "obj"), MALFORMED_V2, ids=[m[0] for m in MALFORMED_V2])
def test_malformed_header_challenges_raise(label: str, obj: Any) -> None:
    with pytest.raises(X402Error) as info:
        parse_challenge({"PAYMENT-REQUIRED": b64(obj)}, b"")
    message = str(info.value)
    assert message.endswith(".") and "\n" not in message and len(message) < 200


@pytest.mark.parametrize(
    "value",
    [
        "",
        "   ",
        "!!!!",
        "abc",  # length 3 (mod 4 == 3 pads fine) but garbage JSON
        "a",
        base64.urlsafe_b64encode(b'{"x402Version":2,"accepts":[]}>?>?').decode(),
        base64.b64encode(b"\xff\xfe\x00garbage").decode(),
        base64.b64encode(b'{"x402Version": 2, "accepts": [NaN]}').decode(),
        base64.b64encode(b"[" * 100_000 + b"]" * 100_000).decode()[:60_000],
        "A" * (70 * 1024),
        "é" * 8,
    ],
)
def test_malformed_header_encodings_raise(value: str) -> None:
    with pytest.raises(X402Error):
        parse_challenge({"PAYMENT-REQUIRED": value}, b"")


def test_deeply_nested_json_raises_x402error() -> None:
    deep = b"[" * 50_000 + b"]" * 50_000
    with pytest.raises(X402Error):
        parse_challenge({"PAYMENT-REQUIRED": base64.b64encode(deep).decode()}, b"")
    with pytest.raises(X402Error):
        parse_challenge({}, b'{"x402Version":1,"accepts":' + deep + b"}")


def test_malformed_v1_bodies_raise() -> None:
    for body in (
        b'{"x402Version":1,"accepts":[',  # truncated
        b'{"x402Version":1}',
        v1_body(accepts=[v1_entry(maxAmountRequired="-5")]),
        v1_body(accepts=[v2_entry(network="base")]),  # v2 key in a v1 challenge
        v1_body(x402Version=7),
        b"{" + b" " * (1024 * 1024 + 1) + b"}",
    ):
        with pytest.raises(X402Error):
            parse_challenge({}, body)


def test_error_messages_are_one_sentence() -> None:
    with pytest.raises(X402Error) as info:
        parse_challenge({"PAYMENT-REQUIRED": "%%%"}, b"")
    assert str(info.value) == "the PAYMENT-REQUIRED header is not standard base64."
    assert isinstance(info.value, ValueError)


# --------------------------------------------------------------------------- property tests

JSON_LEAVES = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=12,
)
ENTRY_KEYS = list(v2_entry()) + list(v1_entry())
TOP_KEYS = ["x402Version", "accepts", "resource", "error"]


@st.composite
def mutated_challenges(draw: st.DrawFn) -> Any:
    """A valid v1/v2 challenge with some fields replaced by arbitrary JSON (or removed)."""
    version = draw(st.sampled_from([1, 2]))
    obj: dict[str, Any] = json.loads(v1_body()) if version == 1 else v2_challenge_obj()
    entry = obj["accepts"][0]
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.booleans()):
            key = draw(st.sampled_from(ENTRY_KEYS))
            target = entry
        else:
            key = draw(st.sampled_from(TOP_KEYS))
            target = obj
        if draw(st.booleans()):
            target.pop(key, None)
        else:
            target[key] = draw(JSON_VALUES)
    return obj


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(header=st.one_of(st.none(), st.text(max_size=200)), body=st.binary(max_size=300))
def test_property_arbitrary_bytes_only_raise_x402error(header: str | None, body: bytes) -> None:
    headers = {} if header is None else {"Payment-Required": header}
    try:
        result = parse_challenge(headers, body)
    except X402Error:
        return
    assert result is None or isinstance(result, X402Challenge)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(raw=st.binary(max_size=300))
def test_property_base64_of_arbitrary_bytes_only_raise_x402error(raw: bytes) -> None:
    value = base64.b64encode(raw).decode()
    for call in (
        lambda: parse_challenge({"PAYMENT-REQUIRED": value}, b""),
        lambda: decode_receipt(value),
    ):
        with contextlib.suppress(X402Error):
            call()


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(obj=mutated_challenges(), in_body=st.booleans())
def test_property_mutated_challenges_only_raise_x402error(obj: Any, in_body: bool) -> None:
    try:
        if in_body:
            result = parse_challenge({}, json.dumps(obj).encode())
        else:
            result = parse_challenge({"PAYMENT-REQUIRED": b64(obj)}, b"")
    except X402Error:
        return
    if result is None:
        return
    # Whatever parses is well-typed.
    assert result.version in (1, 2)
    for req in result.accepts:
        assert isinstance(req.amount, int) and req.amount >= 0
        assert isinstance(req.max_timeout_seconds, int) and req.max_timeout_seconds > 0
        assert isinstance(req.extra, dict)
        assert all(isinstance(s, str) for s in (req.scheme, req.network, req.asset, req.pay_to))


@settings(max_examples=400, deadline=None)
@given(value=st.text(max_size=300))
def test_property_decode_receipt_only_raises_x402error(value: str) -> None:
    with contextlib.suppress(X402Error):
        assert isinstance(decode_receipt(value), dict)


@settings(max_examples=300, deadline=None)
@given(usd=st.decimals(min_value=Decimal(0), max_value=Decimal(10**12), places=6, allow_nan=False))
def test_property_usd_atomic_round_trip(usd: Decimal) -> None:
    atomic = usd_to_atomic(usd)
    assert atomic_to_usd(atomic) == usd
    assert usd_to_atomic(str(usd)) == atomic


# --------------------------------------------------------------------------- receipts


def test_decode_receipt_sandbox_shapes() -> None:
    ok = {
        "success": True,
        "transaction": "0x" + "12" * 32,
        "network": "eip155:8453",
        "payer": TEST_ADDRESS,
    }
    assert decode_receipt(b64(ok)) == ok
    failed = {
        "success": False,
        "errorReason": "insufficient_funds",
        "network": "eip155:8453",
        "payer": TEST_ADDRESS,
    }
    assert decode_receipt(" " + b64(failed)) == failed


@pytest.mark.parametrize(
    "value",
    [
        "",
        "not base64!",
        b64([1, 2]),
        b64("ok"),
        b64({"success": "yes"}),
        base64.b64encode(b"\x80abc").decode(),
    ],
)
def test_decode_receipt_garbage(value: str) -> None:
    with pytest.raises(X402Error):
        decode_receipt(value)


# --------------------------------------------------------------------------- networks, amounts


def test_chain_id() -> None:
    assert chain_id("eip155:8453") == 8453
    assert chain_id("eip155:84532") == 84532
    assert chain_id("base") == 8453
    assert chain_id("base-sepolia") == 84532
    assert chain_id("polygon") == 137  # every x402 v1 name is its CAIP-2 chain (issue 12)
    for bad in (
        "eip155:",
        "eip155:0",
        "eip155:-1",
        "eip155:08453",
        "eip155:8453 ",
        "solana:x",
        "Base",
        "",
        "eip155:1e3",
        "eip155:१२",
    ):
        with pytest.raises(X402Error):
            chain_id(bad)


def test_usd_to_atomic() -> None:
    assert usd_to_atomic("1.5") == 1_500_000
    assert usd_to_atomic("1.500000") == 1_500_000
    assert usd_to_atomic(Decimal("0.000001")) == 1
    assert usd_to_atomic("0") == 0
    assert usd_to_atomic(Decimal("1E+2")) == 100_000_000
    assert usd_to_atomic(Decimal("1.5000000000")) == 1_500_000
    assert usd_to_atomic("12.34", decimals=2) == 1234
    for bad in (
        " 2 ",  # issue 29.6: ASCII digits and one dot, nothing around them
        "1.",
        ".5",
        "0.0000001",
        "-1",
        "-0.5",
        "abc",
        "",
        "1,5",
        "$1",
        "NaN",
        "Infinity",
        "1e999",
        "١٫٥",
        "1_000",
    ):
        with pytest.raises(AmountError):
            usd_to_atomic(bad)
    with pytest.raises(AmountError):
        usd_to_atomic(1.5)  # type: ignore[arg-type]
    with pytest.raises(AmountError):
        usd_to_atomic(Decimal("sNaN"))


def test_atomic_to_usd() -> None:
    assert atomic_to_usd(1_500_000) == Decimal("1.5")
    assert str(atomic_to_usd(1_500_000)) == "1.500000"
    assert str(atomic_to_usd(0)) == "0.000000"
    assert int(atomic_to_usd(2**256 - 1).scaleb(6, Context(prec=100))) == 2**256 - 1
    for bad in (-1, True, 1.5):
        with pytest.raises(AmountError):
            atomic_to_usd(bad)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- authorization


def test_build_authorization_window_and_nonce() -> None:
    req = PaymentRequirements.from_entry(v2_entry(), 2)
    auth = build_authorization(req, TEST_ADDRESS, now=1_700_000_000)
    assert auth["from"] == TEST_ADDRESS
    assert auth["to"] == PAY_TO
    assert auth["value"] == "1500000"
    assert auth["validAfter"] == str(1_700_000_000 - 600)
    assert auth["validBefore"] == str(1_700_000_000 + 300)
    assert auth["nonce"].startswith("0x") and len(auth["nonce"]) == 66
    assert all(isinstance(v, str) for v in auth.values())
    again = build_authorization(req, TEST_ADDRESS, now=1_700_000_000)
    assert again["nonce"] != auth["nonce"]  # fresh per payment
    fixed = build_authorization(req, TEST_ADDRESS, now=100, nonce=b"\x01" * 32)
    assert fixed["nonce"] == "0x" + "01" * 32
    assert fixed["validAfter"] == "0"  # never negative


def test_build_authorization_rejects_bad_input() -> None:
    req = PaymentRequirements.from_entry(v2_entry(), 2)
    with pytest.raises(X402Error):
        build_authorization(req, TEST_ADDRESS, now=1, nonce=b"\x01" * 31)
    with pytest.raises(X402Error):
        build_authorization(req, "0x1234", now=1)
    with pytest.raises(X402Error):
        build_authorization(req, TEST_ADDRESS, now=-1)
    with pytest.raises(X402Error):
        build_authorization(
            PaymentRequirements.from_entry(v2_entry(scheme="upto"), 2), TEST_ADDRESS, now=1
        )
    permit2 = v2_entry(extra={"name": "USD Coin", "version": "2", "assetTransferMethod": "permit2"})
    with pytest.raises(X402Error, match="EIP-3009"):
        build_authorization(PaymentRequirements.from_entry(permit2, 2), TEST_ADDRESS, now=1)


def test_sign_uses_current_time_by_default() -> None:
    req = PaymentRequirements.from_entry(v2_entry(), 2)
    before = int(time.time())
    auth = X402Signer(TEST_KEY).sign(req)["authorization"]
    after = int(time.time())
    assert before - 600 <= int(auth["validAfter"]) <= after - 600
    assert before + 300 <= int(auth["validBefore"]) <= after + 300


def test_typed_data_shape() -> None:
    req = vector_requirements()
    auth = build_authorization(req, TEST_ADDRESS, now=VECTOR_NOW, nonce=VECTOR_NONCE)
    message = typed_data(req, auth)
    assert message["types"]["EIP712Domain"] == [
        {"name": "name", "type": "string"},
        {"name": "version", "type": "string"},
        {"name": "chainId", "type": "uint256"},
        {"name": "verifyingContract", "type": "address"},
    ]
    assert [f["name"] for f in message["types"]["TransferWithAuthorization"]] == [
        "from",
        "to",
        "value",
        "validAfter",
        "validBefore",
        "nonce",
    ]
    assert message["message"]["value"] == 10000
    json.dumps(message)  # plain data


# --------------------------------------------------------------------------- proofs


def test_v2_proof_round_trip() -> None:
    challenge = v2_challenge()
    req = challenge.accepts[0]
    payload = X402Signer(TEST_KEY).sign(req, now=1_700_000_000, nonce=b"\x07" * 32)
    proof = encode_proof(challenge, req, payload)
    assert all(c.isalnum() or c in "+/=" for c in proof)
    raw = base64.b64decode(proof, validate=True)
    obj = json.loads(raw)
    assert raw == json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()  # compact
    assert list(obj) == ["x402Version", "resource", "accepted", "payload"]
    assert obj["x402Version"] == 2
    assert obj["resource"] == v2_challenge_obj()["resource"]
    assert obj["accepted"] == v2_entry()  # verbatim
    assert obj["payload"] == payload
    assert recover_payer(req, obj["payload"]) == TEST_ADDRESS


def test_v2_proof_without_resource_and_accepted_is_verbatim() -> None:
    entry = v2_entry(
        extra={"name": "USD Coin", "version": "2", "vendor": {"z": [1, "ü"]}},
        description="not in our dataclass",
    )
    obj = v2_challenge_obj(accepts=[entry])
    del obj["resource"]
    challenge = parse_challenge({"PAYMENT-REQUIRED": b64(obj)}, b"")
    assert challenge is not None and challenge.resource is None
    req = challenge.accepts[0]
    proof = unb64(encode_proof(challenge, req, X402Signer(TEST_KEY).sign(req)))
    assert "resource" not in proof
    assert proof["accepted"] == entry


def test_encode_proof_rejects_foreign_requirements() -> None:
    challenge = v2_challenge()
    other = PaymentRequirements.from_entry(v2_entry(amount="1"), 2)
    with pytest.raises(X402Error):
        encode_proof(challenge, other, X402Signer(TEST_KEY).sign(other))


def test_zero_amount_proof_for_advisor() -> None:
    challenge = parse_challenge(
        {"PAYMENT-REQUIRED": b64(v2_challenge_obj(accepts=[v2_entry(amount="0")]))}, b""
    )
    assert challenge is not None
    req = challenge.accepts[0]
    payload = X402Signer(TEST_KEY).sign(req)
    assert payload["authorization"]["value"] == "0"
    proof = unb64(encode_proof(challenge, req, payload))
    assert recover_payer(req, proof["payload"]) == TEST_ADDRESS


def test_recover_payer_rejects_garbage() -> None:
    req = vector_requirements()
    good = X402Signer(TEST_KEY).sign(req, now=VECTOR_NOW, nonce=VECTOR_NONCE)
    cases: list[Any] = [
        None,
        {},
        {**good, "signature": "0x1234"},
        {**good, "signature": "0x" + "00" * 65},
        {**good, "authorization": {**good["authorization"], "value": "-1"}},
        {**good, "authorization": {**good["authorization"], "nonce": "0x12"}},
        {**good, "authorization": {k: v for k, v in good["authorization"].items() if k != "to"}},
    ]
    for payload in cases:
        with pytest.raises(X402Error):
            recover_payer(req, payload)
    tampered = {**good, "authorization": {**good["authorization"], "value": "10001"}}
    assert recover_payer(req, tampered) != TEST_ADDRESS


# --------------------------------------------------------------------------- keys


def test_signer_never_shows_the_key() -> None:
    signer = X402Signer(TEST_KEY)
    hex_key = TEST_KEY[2:]
    for text in (repr(signer), str(signer), f"{signer}", f"{signer!r}"):
        assert hex_key not in text.lower()
    _ = signer.address
    assert TEST_ADDRESS in repr(signer)
    assert hex_key not in repr(signer).lower()
    assert not hasattr(signer, "__dict__")
    import pickle

    with pytest.raises(TypeError):
        pickle.dumps(signer)


@pytest.mark.parametrize(
    "bad",
    [
        TEST_KEY[:-2],  # 31 bytes
        TEST_KEY + "00",  # 33 bytes
        TEST_KEY[:-1] + "g",  # not hex
        "0x" + "00" * 32,  # zero
        "0x" + "ff" * 32,  # above the curve order
        "",
        "0x",
    ],
)
def test_bad_key_is_rejected_without_echo(bad: str) -> None:
    with pytest.raises(X402Error) as info:
        X402Signer(bad)
    message = str(info.value)
    assert bad[2:12] not in message or not bad[2:12]
    assert TEST_KEY[2:12] not in message
    assert info.value.__cause__ is None


def test_bad_key_type_is_rejected() -> None:
    with pytest.raises(X402Error):
        X402Signer(12345)  # type: ignore[arg-type]


def test_key_without_prefix_and_uppercase() -> None:
    assert X402Signer(TEST_KEY[2:].upper()).address == TEST_ADDRESS


def test_generate_private_key_and_address_of() -> None:
    key = generate_private_key()
    assert key.startswith("0x") and len(key) == 66
    assert key != generate_private_key()
    address = address_of(key)
    assert address.startswith("0x") and len(address) == 42
    # EIP-55 as eth-utils writes it (a random address with no upper-case letter happened: a
    # "mixed case" check failed about once in 30,000 keys)
    assert address == to_checksum_address(address)
    assert address_of(TEST_KEY) == TEST_ADDRESS
    req = PaymentRequirements.from_entry(v2_entry(), 2)
    assert recover_payer(req, X402Signer(key).sign(req)) == address


# --------------------------------------------------------------------------- start-up cost


def test_import_does_not_load_eth_account() -> None:
    code = (
        "import sys, svc.pay.x402 as m\n"
        "m.parse_challenge({}, b'')\n"
        "m.X402Signer(m.generate_private_key())\n"
        "heavy = [n for n in ('eth_account', 'eth_keys', 'eth_utils', 'x402', 'web3', 'httpx',"
        " 'pydantic') if n in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
    }
    result = subprocess.run(
        [sys.executable, "-c", code],
        check=False,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr


def test_module_public_names() -> None:
    for name in x402.__all__:
        assert hasattr(x402, name)


def test_requirements_are_hashable_and_frozen() -> None:
    challenge = v2_challenge()
    req = challenge.accepts[0]
    assert req in {req}
    assert hash(req) == hash(v2_challenge().accepts[0])
    with pytest.raises(AttributeError):
        req.amount = 1  # type: ignore[misc]


def test_sdk_stand_in_is_removed_after_module(sdk_evm: types.SimpleNamespace) -> None:
    assert callable(sdk_evm.hash_eip3009_authorization)
