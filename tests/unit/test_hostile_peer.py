"""The hostile peer itself (tests/hostile_peer.py): its wire shapes are ones the client reads,
and its books record what was really sent, so the money-safety tests cannot pass vacuously.

Proofs here are built with the client's own signer and parsers (the peer itself imports no
`svc`): if the peer's challenge stopped being payable, or its books stopped seeing nonces, these
tests fail before any e2e assertion about "at most one nonce" could pass on an empty book.
"""

from __future__ import annotations

import base64
import json
import time
from typing import Any

import httpx
import pytest
from tests.conftest import TEST_ADDRESS, TEST_KEY
from tests.hostile_peer import PRICE_ATOMIC, HostilePeer

from svc.origin import configured
from svc.pay import card, mpp
from svc.pay.x402 import X402Signer, encode_proof, parse_challenge

BODY = {"task": "Attack me", "email": "peer@example.com"}


def _unpaid(peer: HostilePeer, rid: str = "req_peer_unit") -> httpx.Response:
    return httpx.post(f"{peer.url}/svc/tasks", json=BODY, headers={"svc-request-id": rid})


def _proof(response: httpx.Response, now: int | None = None) -> tuple[str, dict[str, Any]]:
    challenge = parse_challenge(response.headers, response.content)
    assert challenge is not None
    offer = challenge.accepts[0]
    payload = X402Signer(TEST_KEY).sign(offer, now=now)
    return encode_proof(challenge, offer, payload), payload


def _paid(peer: HostilePeer, proof: str, rid: str = "req_peer_unit") -> httpx.Response:
    headers = {"svc-request-id": rid, "x-payment": proof}
    return httpx.post(f"{peer.url}/svc/tasks", json=BODY, headers=headers)


@pytest.mark.parametrize("version", [2, 1])
def test_the_402_is_payable_on_every_rail(hostile_peer: HostilePeer, version: int) -> None:
    hostile_peer.config.version = version
    response = _unpaid(hostile_peer)
    assert response.status_code == 402
    challenge = parse_challenge(response.headers, response.content)
    assert challenge is not None and challenge.version == version
    assert challenge.accepts[0].amount == PRICE_ATOMIC
    assert challenge.accepts[0].network == ("base" if version == 1 else "eip155:8453")
    (offer,) = mpp.parse_challenges(response.headers.get_list("www-authenticate"))
    assert mpp.why_unusable(offer) is None and offer.amount_cents == 150
    assert offer.realm == "peer.example"
    found = _offer(hostile_peer, response.json())
    assert found is not None and found.amount_atomic == PRICE_ATOMIC
    assert str(found.pay_url).startswith(hostile_peer.url)


def _offer(peer: HostilePeer, body: Any) -> card.CardOffer | None:
    """The card offer as svc reads it: its URLs on the peer's own origin, nothing else trusted."""
    return card.parse_offer(body, configured(peer.url, "the peer"), lambda *_: False)


def test_books_decode_x402_and_recover_the_signer(hostile_peer: HostilePeer) -> None:
    proof, payload = _proof(_unpaid(hostile_peer))
    answer = _paid(hostile_peer, proof)
    assert answer.status_code == 202 and answer.json()["id"].startswith("task_")
    (auth,) = hostile_peer.authorizations("req_peer_unit")
    assert auth["nonce"] == payload["authorization"]["nonce"]
    assert auth["signer"] == TEST_ADDRESS
    assert auth["port"] == hostile_peer.port
    assert [r.proofs for r in hostile_peer.requests()] == [(), ("x-payment",)]
    # The same request id gets the same task; a re-send of one proof is still one nonce.
    assert _paid(hostile_peer, proof).json()["id"] == answer.json()["id"]
    assert hostile_peer.distinct_nonces("req_peer_unit") == {auth["nonce"]}


def test_books_count_each_fresh_signature(hostile_peer: HostilePeer) -> None:
    """What a harvesting server collects: three fresh signatures are three nonces, 4.50 live."""
    hostile_peer.config.mode = "bad_request"
    for _ in range(3):
        proof, _ = _proof(_unpaid(hostile_peer))
        assert _paid(hostile_peer, proof).json() == {"error": "invalid_request"}
    assert len(hostile_peer.distinct_nonces("req_peer_unit")) == 3
    assert hostile_peer.total_live_value() == 3 * PRICE_ATOMIC
    assert hostile_peer.total_live_value(time.time() + 3600) == 0  # validBefore = now + 60


def test_a_forged_signature_does_not_recover(hostile_peer: HostilePeer) -> None:
    proof, _ = _proof(_unpaid(hostile_peer))
    doc = json.loads(base64.b64decode(proof))
    doc["payload"]["authorization"]["value"] = "1"  # tampered after signing
    _paid(hostile_peer, base64.b64encode(json.dumps(doc).encode()).decode())
    (auth,) = hostile_peer.authorizations()
    assert auth["signer"] != TEST_ADDRESS


def test_huge_validity_window_is_offered(hostile_peer: HostilePeer) -> None:
    hostile_peer.config.max_timeout = 2**32
    response = _unpaid(hostile_peer)
    challenge = parse_challenge(response.headers, response.content)
    assert challenge is not None and challenge.accepts[0].max_timeout_seconds == 2**32
    proof, payload = _proof(response)
    _paid(hostile_peer, proof)
    recorded = hostile_peer.authorizations()[0]["validBefore"]
    assert recorded == payload["authorization"]["validBefore"]


def test_books_decode_an_mpp_credential(hostile_peer: HostilePeer) -> None:
    response = _unpaid(hostile_peer)
    (offer,) = mpp.parse_challenges(response.headers.get_list("www-authenticate"))
    value = mpp.credential(offer, "spt_test_unit")
    headers = {"svc-request-id": "req_mpp_unit", "Authorization": value}
    assert httpx.post(f"{hostile_peer.url}/svc/tasks", json=BODY, headers=headers).is_success
    assert hostile_peer.credentials("req_mpp_unit") == [value]
    (record,) = hostile_peer.proofs_received()
    assert record.proofs == ("authorization",)
    assert record.mpp is not None and record.mpp["payload"]["spt"] == "spt_test_unit"


def test_a_bearer_is_not_a_proof(hostile_peer: HostilePeer) -> None:
    headers = {"Authorization": "Bearer abc"}
    assert (
        httpx.post(f"{hostile_peer.url}/svc/tasks", json=BODY, headers=headers).status_code == 402
    )
    assert hostile_peer.proofs_received() == []


def test_modes_answer_as_described(hostile_peer: HostilePeer) -> None:
    proof, _ = _proof(_unpaid(hostile_peer))
    seen: dict[str, tuple[int, Any]] = {}
    for mode in ("redirect", "codeless_402", "settlement_failed", "payment_consumed"):
        hostile_peer.config.mode = mode
        answer = _paid(hostile_peer, proof)
        seen[mode] = (answer.status_code, answer.json() if answer.content else None)
    assert seen["redirect"] == (307, None)
    assert seen["codeless_402"][0] == 402 and "error" not in seen["codeless_402"][1]
    assert seen["settlement_failed"][1]["error"] == "settlement_failed"
    assert seen["settlement_failed"][1]["settlementReason"] == "insufficient_funds"
    assert seen["payment_consumed"] == (402, {"error": "payment_consumed"})
    hostile_peer.config.mode = "repeat_402"
    again = _paid(hostile_peer, proof)
    assert again.status_code == 402 and parse_challenge(again.headers, again.content)


def test_drop_loses_the_answer_and_nested_json_is_deep(hostile_peer: HostilePeer) -> None:
    proof, _ = _proof(_unpaid(hostile_peer))
    hostile_peer.config.mode = "drop"
    with pytest.raises(httpx.RemoteProtocolError):
        _paid(hostile_peer, proof)
    assert hostile_peer.requests()[-1].status is None
    hostile_peer.config.mode = "nested_json"
    body = _paid(hostile_peer, proof).content
    assert body.startswith(b'{"a":{"a":') and body.count(b"{") == 100_000


def test_two_peers_are_two_origins(peer_factory: Any) -> None:
    first, second = peer_factory(), peer_factory()
    assert first.port != second.port
    _unpaid(second)
    assert first.requests() == [] and len(second.requests()) == 1


def test_tasks_poll_and_card_status(hostile_peer: HostilePeer) -> None:
    proof, _ = _proof(_unpaid(hostile_peer))
    task = _paid(hostile_peer, proof).json()
    polled = httpx.get(f"{hostile_peer.url}/svc/tasks/{task['id']}").json()
    assert polled["state"] == "pending" and polled["events"] == []
    offer = _offer(hostile_peer, _unpaid(hostile_peer).json())
    assert offer is not None
    assert card.payment_state(httpx.get(str(offer.status_url)).json()) == "complete"
    hostile_peer.config.card_complete = False
    assert card.payment_state(httpx.get(str(offer.status_url)).json()) == "pending"
