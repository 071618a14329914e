"""The signature checks every external signer's answer passes (issue 33.2), and the secret
store's entries per profile (33.1)."""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

import pytest
from eth_account import Account

from svc.pay.signers.command import CommandSigner
from svc.pay.signers.external import SignerError, checked_signature
from svc.pay.signers.probe import PROBE
from svc.store.secrets import FileBackend, SecretStore, profile_key

KEY = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a"
ADDRESS = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"
N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141


def signature() -> bytes:
    return bytes(Account.sign_typed_data(KEY, full_message=PROBE).signature)


def test_an_honest_signature_passes_as_it_is() -> None:
    sig = "0x" + signature().hex()
    assert checked_signature(sig, PROBE, ADDRESS, "test") == sig
    assert checked_signature(sig.upper().replace("0X", "0x"), PROBE, ADDRESS.lower(), "t") == sig


def test_a_bare_recovery_id_becomes_27_or_28() -> None:
    raw = bytearray(signature())
    v = raw[64]
    raw[64] = v - 27
    assert checked_signature("0x" + raw.hex(), PROBE, ADDRESS, "t") == "0x" + signature().hex()


def test_the_malleable_twin_is_refused() -> None:
    """(r, n - s, v flipped) recovers to the same address, and USDC's ECDSA refuses it."""
    raw = signature()
    s = int.from_bytes(raw[32:64], "big")
    twin = raw[:32] + (N - s).to_bytes(32, "big") + bytes([55 - raw[64]])
    with pytest.raises(SignerError, match="not canonical"):
        checked_signature("0x" + twin.hex(), PROBE, ADDRESS, "t")


@pytest.mark.parametrize(
    "answer", [None, 42, "", "0x", "0x" + "00" * 65, "0x" + "zz" * 65, "0x" + "11" * 66]
)
def test_what_is_not_a_signature_is_refused(answer: object) -> None:
    with pytest.raises(SignerError) as caught:
        checked_signature(answer, PROBE, ADDRESS, "t")
    assert caught.value.exit_code == 5


def test_another_addresss_signature_is_refused() -> None:
    with pytest.raises(SignerError, match="not for 0x70997970") as caught:
        checked_signature(
            "0x" + signature().hex(), PROBE, "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "t"
        )
    assert caught.value.code == "signer_wrong_address"


def test_each_profile_has_its_own_entries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SVC_WALLET_KEY", raising=False)
    monkeypatch.delenv("SVC_SPT", raising=False)
    store = SecretStore(FileBackend(tmp_path / "secrets.json"))
    store.set("spt", "spt_default")  # where every earlier release kept it
    assert profile_key("spt", "default") == "spt"
    assert store.get(profile_key("spt", "default")) == "spt_default"
    assert store.get(profile_key("spt", "prod")) is None  # never the default's
    monkeypatch.setenv("SVC_SPT", "spt_env")
    assert store.get(profile_key("spt", "prod")) == "spt_env"  # CI's, for every profile
    assert store.source(profile_key("wallet_key", "prod")) == "file"


def test_a_program_that_never_reads_a_large_request_is_cut_at_the_timeout() -> None:
    """The typed data carries the server's words, so a request can outgrow the pipe's buffer;
    a program that never reads its stdin blocked svc's write for ever, before the deadline
    started counting (a hostile server and a stuck signer: a hang, not signer_timeout)."""
    signer = CommandSigner(shlex.join([sys.executable, "-c", "import time; time.sleep(60)"]), 1)
    started = time.monotonic()
    with pytest.raises(SignerError) as caught:
        signer.sign_typed_data("0x" + "11" * 20, {"name": "a" * 400_000})
    assert time.monotonic() - started < 15
    assert caught.value.code == "signer_timeout" and caught.value.exit_code == 5
    assert "gave no answer within 1 s" in caught.value.message
