"""`Client(timeout=, max_retries=)` and `with_options()`, as openai-python has them: against a
peer that takes the request and never answers, a call ends within its timeout (plus a second),
every retry included; leaving `async with AsyncClient` does not wait past it; wrong values are
refused before anything is sent; `repr` names the client, never a secret."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import httpx
import pytest
from tests.conftest import Cli, Sandbox
from tests.inproc import library_home
from tests.raw_peer import Listener

from svc import AsyncClient, Client, OutcomeUnknown, Unavailable, UsageError

pytestmark = pytest.mark.e2e


class Silent(Listener):
    """Takes every connection and request, and never answers one."""

    def _serve(self, conn: socket.socket, number: int) -> None:
        with conn:
            conn.settimeout(0.2)
            while not self.closing.is_set():
                try:
                    if conn.recv(65536) == b"":
                        return
                except TimeoutError:
                    continue
                except OSError:
                    return


@pytest.fixture
def silent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Silent]:
    with Silent("http") as peer:
        library_home(tmp_path, peer.url, monkeypatch)
        yield peer


def test_a_call_to_a_server_that_never_answers_ends_within_its_timeout(silent: Silent) -> None:
    with Client(timeout=2) as client:
        started = time.monotonic()
        with pytest.raises(Unavailable) as caught:
            client.get("task_silent")
        took = time.monotonic() - started
    assert 1.5 < took < 3, took
    assert caught.value.exit_code == 9
    assert "get task" in caught.value.message or "poll" in caught.value.message


def test_max_retries_counts_the_attempts(silent: Silent) -> None:
    with Client(timeout=1, max_retries=0) as client, pytest.raises(Unavailable):
        client.get("task_silent")
    assert silent.connections == 1


def test_a_paid_submit_that_gets_no_answer_ends_within_its_timeout(
    cli: Cli, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The proof is journaled before it leaves: a submit whose answer never comes ends by its
    timeout, as an outcome unknown (never "nothing charged"), and resumes with its id."""
    library_home(cli.home, sandbox.url, monkeypatch)
    delayed = {"kind": "delay", "seconds": 6, "method": "POST", "path": "/svc/tasks", "count": 1}
    with Client(timeout=2, max_retries=0) as client:
        sandbox.faults({**delayed, "count": 2})
        started = time.monotonic()
        with pytest.raises((OutcomeUnknown, Unavailable)) as caught:
            client.submit("Timed out #complete", "t@example.com", request_id="req_timeout_0001")
        took = time.monotonic() - started
    sandbox.clear_faults()
    assert took < 3, took
    assert caught.value.exit_code in (9, 10)


def test_leaving_async_with_after_a_cancelled_call_takes_no_longer_than_the_timeout(
    silent: Silent,
) -> None:
    async def body() -> float:
        started = time.monotonic()
        async with AsyncClient(timeout=2) as client:
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(client.get("task_silent"), 0.5)
        return time.monotonic() - started

    assert asyncio.run(body()) < 3


def test_with_options_is_a_configured_copy(silent: Silent) -> None:
    with Client(timeout=5, max_price="1.50") as client:
        with client.with_options(timeout=httpx.Timeout(3.0), max_retries=0) as other:
            assert isinstance(other.settings.timeout, httpx.Timeout)
            assert other.settings.max_retries == 0
            assert other.settings.max_price_usd == Decimal("1.50")  # kept from the first
        assert client.settings.timeout == 5.0 and client.settings.max_retries == 3
        shown = repr(client)
    assert shown == f"Client(base_url={silent.url!r}, profile='default', ledger='local')"

    async def body() -> str:
        async with AsyncClient(timeout=4) as client:
            copy = client.with_options(max_workers=2)
            async with copy:
                assert copy.settings.timeout == 4.0
                return repr(copy)

    assert asyncio.run(body()).startswith("AsyncClient(base_url=")


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"timeout": "2"}, TypeError),
        ({"timeout": True}, TypeError),
        ({"timeout": 0}, UsageError),
        ({"timeout": float("nan")}, UsageError),
        ({"max_retries": 1.0}, TypeError),
        ({"max_retries": False}, TypeError),
        ({"max_retries": -1}, UsageError),
        ({"max_retries": 11}, UsageError),
    ],
)
def test_a_wrong_option_is_refused_before_anything_is_sent(
    silent: Silent, options: dict[str, object], error: type[Exception]
) -> None:
    with pytest.raises(error):
        Client(**options)  # type: ignore[arg-type]
    assert silent.connections == 0


def test_every_error_has_its_public_name_and_says_its_way_on() -> None:
    import svc

    public = ("TaskFailed", "PaymentFailed", "HumanNeeded", "NotFound", "Conflict")
    for name in (*public, "Unavailable", "OutcomeUnknown", "UsageError", "AuthError"):
        cls = getattr(svc, name)
        assert cls.__name__ == name  # one name per class: the one the docs use
        text = str(cls("it went wrong"))
        assert text.startswith("it went wrong (hint: ") and text.endswith(")"), text
    named = svc.NotFound("no such task", hint="see tasks()")
    assert str(named) == "no such task (hint: see tasks())"


@pytest.mark.parametrize("task_id", [None, 7, b"task_x"])
def test_an_id_of_the_wrong_type_is_a_type_error_at_the_call(
    silent: Silent, task_id: object
) -> None:
    from svc import Message

    with Client(timeout=1) as client:
        with pytest.raises(TypeError):
            client.get(task_id)  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            client.reply(task_id, Message("hi"))  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            client.watch(task_id)  # type: ignore[arg-type]
        with pytest.raises(UsageError):
            client.get("  ")
        with pytest.raises(UsageError):
            client.receipt(task_id)  # type: ignore[arg-type]
    assert silent.connections == 0


def test_a_cancelled_async_call_ends_its_network_wait_at_once(silent: Silent) -> None:
    """The call's timeout is long (30 s): only the cancellation can end its wait, within a
    second, and leaving `async with` then waits for nothing."""

    async def body() -> tuple[float, float]:
        async with AsyncClient(timeout=30) as client:
            call = asyncio.create_task(client.get("task_silent"))
            while silent.connections == 0:  # the request is out and waiting
                await asyncio.sleep(0.05)
            started = time.monotonic()
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
            cancelled = time.monotonic() - started
        return cancelled, time.monotonic() - started

    cancelled, closed = asyncio.run(body())
    assert cancelled < 1 and closed < 2, (cancelled, closed)
    assert silent.connections == 1  # no retry went out after the cancellation
