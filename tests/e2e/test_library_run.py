"""`client.price(...)`: the offer from the service's own 402 with nothing signed; and
`client.run(...)`: submit, follow, answer each ask through a callback, return the end."""

from __future__ import annotations

import uuid
from decimal import Decimal
from pathlib import Path

import pytest
from tests.conftest import Sandbox, unique_email
from tests.e2e.test_library import clock_running, home  # noqa: F401 (the fixture)
from tests.e2e.test_nothing_sent import (  # noqa: F401 (the fixtures)
    check_nothing_sent,
    peer_home,
    peer_library,
    received,
)
from tests.hostile_peer import HostilePeer

import svc
from svc import Client, HumanNeeded, Price, Secret, SecretAsk, Task, TaskFailed

pytestmark = pytest.mark.e2e


def test_price_shows_the_offer_and_the_peer_sees_no_proof(
    peer_library: HostilePeer,  # noqa: F811 (the fixture)
) -> None:
    with received(peer_library) as requests, Client() as client:
        price = client.price("Renew my library books", email="u@example.com", max_price="1.50")
    assert isinstance(price, Price)
    assert price.rail == "x402" and isinstance(price.amount_usd, Decimal)
    assert price.within_policy and price.refusal is None and price.pay_to
    assert price.max_price_usd == Decimal("1.50")
    check_nothing_sent(requests, probing=True, refused=False)


def test_price_says_why_the_policy_would_refuse(home: Path, sandbox: Sandbox) -> None:  # noqa: F811
    with Client() as client:
        price = client.price("Book a table", email=unique_email(), max_price="0.50")
    assert price.within_policy is False and price.refusal and "0.50" in price.refusal
    assert price.amount_usd == Decimal("1.50")  # the offer itself, refused by the limit


def test_run_answers_a_2fa_ask_through_its_callback(home: Path, sandbox: Sandbox) -> None:  # noqa: F811
    code = f"{uuid.uuid4().int % 10**8:08d}"
    asked: list[Task] = []

    def answer(task: Task) -> svc.Answer | None:
        asked.append(task)
        assert isinstance(task.ask, SecretAsk)
        return Secret(code)

    with Client() as client, clock_running(sandbox):
        done = client.run("Log in and pay my bill #2fa", unique_email(), answer=answer)
    assert done.state == "completed"
    assert done.submission is not None and done.submission.request_id.startswith("req_")
    assert len(asked) == 1 and code not in done.model_dump_json()


def test_run_without_an_answer_leaves_the_ask_to_the_person(home: Path, sandbox: Sandbox) -> None:  # noqa: F811
    with Client() as client, clock_running(sandbox), pytest.raises(HumanNeeded) as caught:
        client.run("Log in #2fa", unique_email())
    assert caught.value.exit_code == 6 and caught.value.data["task_id"].startswith("task_")


def test_run_raises_task_failed_for_a_task_that_fails(home: Path, sandbox: Sandbox) -> None:  # noqa: F811
    with Client() as client, clock_running(sandbox), pytest.raises(TaskFailed) as caught:
        client.run("Fail on purpose #fail", unique_email())
    assert type(caught.value) is svc.TaskFailed and caught.value.exit_code == 3
    assert caught.value.data["task"]["state"] == "failed"
