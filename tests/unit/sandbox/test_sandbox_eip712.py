"""The sandbox's own EIP-712 recovery of a TransferWithAuthorization (issue 34: eth_account was
a fifth of its CPU in a batch) answers exactly as eth_account does: the same address for every
proof it handles, and for every other form it hands the proof to eth_account (None)."""

from __future__ import annotations

import random
from typing import Any

import pytest

import svc.pay  # noqa: F401 - first: its stand-in keeps eth_account from loading py_ecc
from svc_sandbox.payments.eip712 import recover_transfer_signer
from svc_sandbox.payments.x402 import TRANSFER_WITH_AUTHORIZATION_TYPES, recover_signer

# eth_account is imported in the tests, never at collection: loaded whole, it imports py_ecc,
# which raises the recursion limit to 100000 for the whole test worker, and then json's C
# decoder overflows the C stack on test_batch_check's 150,000 nested brackets (a segfault).
TEST_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"  # TEST_KEY's
USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e"
PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"


def message(**changes: Any) -> dict[str, Any]:
    domain = {"name": "USDC", "version": "2", "chainId": 84532, "verifyingContract": USDC}
    auth = {
        "from": ADDRESS,
        "to": PAY_TO,
        "value": 1_500_000,
        "validAfter": 0,
        "validBefore": 1_900_000_000,
        "nonce": "0x" + "ab" * 32,
    }
    for key, value in changes.items():
        (domain if key in domain else auth)[key] = value
    return {
        "types": TRANSFER_WITH_AUTHORIZATION_TYPES,
        "primaryType": "TransferWithAuthorization",
        "domain": domain,
        "message": auth,
    }


def eth_account_says(msg: dict[str, Any], signature: str) -> str:
    """eth_account's answer, as recover_signer read it before: an address or ''."""
    from eth_account import Account
    from eth_account.messages import encode_typed_data

    try:
        return str(
            Account.recover_message(encode_typed_data(full_message=msg), signature=signature)
        )
    except Exception:
        return ""


def signed(msg: dict[str, Any]) -> str:
    from eth_account import Account

    account = Account.from_key(TEST_KEY)
    return "0x" + bytes(account.sign_typed_data(full_message=msg).signature).hex()


def check(msg: dict[str, Any], signature: str) -> str | None:
    """The fast path's answer, held to eth_account's wherever it gives one."""
    fast: str | None = recover_transfer_signer(msg, TRANSFER_WITH_AUTHORIZATION_TYPES, signature)
    if fast is not None:
        assert fast == eth_account_says(msg, signature)
    try:
        via_sandbox = recover_signer(msg, signature)
    except ValueError:
        via_sandbox = ""
    assert via_sandbox == eth_account_says(msg, signature)
    return fast


def test_a_proof_signed_as_the_client_signs_it_recovers_its_payer() -> None:
    msg = message()
    assert check(msg, signed(msg)) == ADDRESS


@pytest.mark.parametrize(
    "changes",
    [
        {"name": "USD Coin", "chainId": 8453},
        {"value": 0},
        {"value": 2**256 - 1},
        {"validBefore": 2**255},
        {"from": ADDRESS.lower()},
        {"to": PAY_TO.upper().replace("0X", "0x")},
        {"name": "Ünïcode ✓"},
        {"version": ""},
    ],
)
def test_every_plain_form_recovers_as_eth_account_recovers_it(changes: dict[str, Any]) -> None:
    msg = message(**changes)
    signature = signed(msg)
    assert check(msg, signature) is not None
    other = message(value=7)  # signed for another message: recovers to someone else
    assert check(other, signature) not in (None, ADDRESS)


def test_a_signature_with_v_0_or_1_recovers_as_eth_account_reads_it() -> None:
    msg = message()
    raw = bytearray(bytes.fromhex(signed(msg)[2:]))
    raw[64] -= 27
    assert check(msg, "0x" + raw.hex()) == ADDRESS


@pytest.mark.parametrize(
    ("changes", "signature"),
    [
        ({"from": "0x" + "zz" * 20}, None),
        ({"to": PAY_TO[2:]}, None),  # no 0x
        ({"value": 2**256}, None),
        ({"value": True}, None),
        ({"name": "\ud800"}, None),
        ({}, "0x" + "00" * 65),
        ({}, "0x" + "ff" * 64 + "1b"),  # r and s beyond the curve's order
        ({}, "0x" + "11" * 64 + "25"),  # v = 37: a chain id form
        ({}, "11" * 65),  # no 0x: eth_account reads it, this path leaves it
        ({}, "0x1234"),
    ],
)
def test_every_other_form_goes_to_eth_account(
    changes: dict[str, Any], signature: str | None
) -> None:
    msg = message(**changes)
    if signature is None:
        try:
            signature = signed(msg)
        except Exception:
            signature = signed(message())
    assert check(msg, signature) is None


def test_random_proofs_recover_alike() -> None:
    rng = random.Random(34)
    for _ in range(40):
        msg = message(
            value=rng.randrange(2**64),
            validAfter=rng.randrange(2**32),
            validBefore=rng.randrange(2**40),
            nonce="0x" + rng.randbytes(32).hex(),
        )
        signature = bytearray(bytes.fromhex(signed(msg)[2:]))
        if rng.random() < 0.5:  # a flipped bit: another signer, or none
            signature[rng.randrange(64)] ^= 1 << rng.randrange(8)
        check(msg, "0x" + signature.hex())
