"""MPP client: challenge splitting and parsing, choice, credential — checked by pympp's server."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from tests.pay_readers import read_receipt

from svc.errors import PaymentFailed
from svc.pay import mpp as M
from svc_sandbox.payments.challenges import NETWORK_ID, mpp_server, wire_request
from svc_sandbox.payments.store import PaymentStore


def _expires(minutes: int = 5) -> str:
    moment = datetime.now(UTC) + timedelta(minutes=minutes)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _challenge(
    store: PaymentStore, body: bytes, *, method: str = "stripe", minutes: int = 5
) -> str:
    from mpp import BodyDigest, Challenge

    request = wire_request(150) if method == "stripe" else {"amount": "150", "currency": "usd"}
    return Challenge.create(
        secret_key=store.hmac_secret,
        realm="svc.test",
        method=method,
        intent="charge",
        request=request,
        expires=_expires(minutes),
        digest=BodyDigest.compute(body),
        description='Task fee, 1.50 USD, "quoted", per task',
        meta={"nonce": "n1, with a comma"},
    ).to_www_authenticate("svc.test")


BODY = b'{"task":"hi","email":"a@example.com"}'


def test_our_credential_is_accepted_by_pympps_server_verifier() -> None:
    store = PaymentStore()
    header = ", ".join([_challenge(store, BODY, method="tempo"), _challenge(store, BODY)])
    challenges = M.parse_challenges([header, 'Bearer realm="x", error="invalid_token"'])
    assert [c.method for c in challenges] == ["tempo", "stripe"]
    chosen = M.choose(challenges, ["stripe"])
    assert chosen.amount_atomic == 1_500_000 and chosen.description and "," in chosen.description
    value = M.credential(chosen, "spt_test_0123456789")
    server = mpp_server(store, "svc.test")
    receipt = asyncio.run(
        server.broadcast_credential(
            value, request=wire_request(150), body=BODY, meta={"nonce": "n1, with a comma"}
        )
    )
    assert receipt.status == "success" and receipt.method == "stripe"
    assert read_receipt(receipt.to_payment_receipt())["reference"] == receipt.reference  # type: ignore[index]
    assert "spt_test_0123456789" in store.processor.used


def test_echo_keeps_the_raw_request_and_opaque_strings() -> None:
    from mpp import Credential

    store = PaymentStore()
    raw = _challenge(store, BODY)
    params = M._params(raw.partition(" ")[2])
    chosen = M.parse_challenges([raw])[0]
    echo = Credential.from_authorization(M.credential(chosen, "spt_test_abcdefgh")).challenge
    assert echo.request == params["request"] and echo.opaque == params["opaque"]


def test_a_tampered_body_or_amount_is_refused_by_the_verifier() -> None:
    from mpp.errors import InvalidChallengeError

    store = PaymentStore()
    chosen = M.parse_challenges([_challenge(store, BODY)])[0]
    value = M.credential(chosen, "spt_test_abcdefgh")
    server = mpp_server(store, "svc.test")
    with pytest.raises(InvalidChallengeError):
        asyncio.run(
            server.broadcast_credential(
                value, request=wire_request(150), body=b"{}", meta={"nonce": "n1, with a comma"}
            )
        )
    with pytest.raises(InvalidChallengeError):
        asyncio.run(
            server.broadcast_credential(
                value, request=wire_request(999), body=BODY, meta={"nonce": "n1, with a comma"}
            )
        )
    assert store.processor.used == set()


@pytest.mark.parametrize(
    ("values", "count"),
    [
        (['Payment id="a", realm="r", method="stripe", intent="charge", request="e30"'], 1),
        (
            [
                'Payment id="a, b", realm="r", method="x", intent="charge", request="e30", Payment id="c", realm="r", method="y", intent="charge", request="e30"'
            ],
            2,
        ),
        (
            [
                'Basic realm="a, b", Payment id="c", realm="r", method="y", intent="charge", request="e30"'
            ],
            2,
        ),
        (
            [
                'Payment id="a", realm="r", method="x", intent="charge", request="e30"',
                'Payment id="b", realm="r", method="y", intent="charge", request="e30"',
            ],
            2,
        ),
        ([""], 0),
    ],
)
def test_split_challenges_respects_quoted_commas(values: list[str], count: int) -> None:
    assert len(M.split_challenges(values)) == count


def test_choose_skips_expired_unsupported_and_follows_preference() -> None:
    store = PaymentStore()
    expired = _challenge(store, BODY, minutes=-1)
    challenges = M.parse_challenges([expired])
    assert M.why_unusable(challenges[0]) == "it has expired"
    with pytest.raises(PaymentFailed, match="no MPP challenge can be paid"):
        M.choose(challenges, ["stripe"])
    with pytest.raises(PaymentFailed, match="offered no MPP challenge"):
        M.choose([], ["stripe"])


def test_a_challenge_asking_for_another_header_is_not_used() -> None:
    from mpp import Challenge

    raw = Challenge.create(
        secret_key="k",
        realm="r",
        method="stripe",
        intent="charge",
        request=wire_request(150),
        expires=_expires(),
        header="X-Steal-Me",
    ).to_www_authenticate("r")
    chosen = M.parse_challenges([raw])[0]
    assert "X-Steal-Me" in (M.why_unusable(chosen) or "")


def test_spt_sources(tmp_path: Any) -> None:
    assert M.SptSource(lambda: "spt_test_env").token() == "spt_test_env"
    f = tmp_path / "t"
    f.write_text("spt_test_file\n")
    f.chmod(0o600)
    assert M.SptSource(lambda: None, file=str(f)).token() == "spt_test_file"
    assert M.SptSource(lambda: None, command="echo spt_test_cmd").token() == "spt_test_cmd"
    with pytest.raises(PaymentFailed, match="exit code"):
        M.SptSource(lambda: None, command="false").token()
    with pytest.raises(PaymentFailed, match="one shared payment token"):
        M.SptSource(lambda: "two words").token()
    assert NETWORK_ID
