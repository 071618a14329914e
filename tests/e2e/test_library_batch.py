"""`Client.submit_many` and `AsyncClient.submit_many` over the batch engine, against the sandbox:
lines paid concurrently and each once (the sandbox's books), a bad line that holds back the
whole run, skip_bad_lines, an iterator closed early that leaves nothing paid twice and nothing
lost, approve() and trust_recipient in the batch's workers, a JSON-lines file as the input."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import Cli, Sandbox, unique_email, unique_request_id
from tests.inproc import OTHER_ADDRESS, library_home

import svc
from svc import AsyncClient, Client, PaymentOffer

pytestmark = pytest.mark.e2e


@pytest.fixture
def home(cli: Cli, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> Path:
    return library_home(cli.home, sandbox.url, monkeypatch)


def lines_of(count: int, word: str) -> list[dict[str, Any]]:
    email = unique_email()
    return [
        {"task": f"{word} {n} #complete", "email": email, "request_id": unique_request_id()}
        for n in range(count)
    ]


def charges(sandbox: Sandbox, lines: list[dict[str, Any]]) -> list[int]:
    """How many times each line was charged, from the sandbox's books (one read)."""
    books = sandbox.books()["charges"]
    return [sum(c.get("request_id") == line["request_id"] for c in books) for line in lines]


@pytest.fixture
def slow_submits(sandbox: Sandbox) -> Iterator[None]:
    """Each POST /svc/tasks waits 0.2 s in the sandbox, as a far service would: the time a
    line takes is the network's, so lines in flight at once show (the fixture clears it)."""
    sandbox.faults(
        {"kind": "delay", "seconds": 0.2, "method": "POST", "path": "/svc/tasks", "count": 10_000}
    )
    yield
    sandbox.clear_faults()


def timed(client: Client, lines: list[dict[str, Any]], concurrency: int) -> float:
    started = time.monotonic()
    results = list(client.submit_many(lines, concurrency=concurrency))
    elapsed = time.monotonic() - started
    assert sorted(r.line for r in results) == list(range(1, len(lines) + 1))
    assert {r.outcome for r in results} == {"submitted"}, [r.error for r in results]
    return elapsed


@pytest.mark.usefixtures("slow_submits")
def test_thirty_lines_at_concurrency_8_are_each_paid_once_and_faster_than_one_at_a_time(
    home: Path, sandbox: Sandbox
) -> None:
    together, one_by_one = lines_of(30, "Together"), lines_of(30, "One by one")
    with Client(daily_cap="none") as client:
        fast = timed(client, together, 8)
        slow = timed(client, one_by_one, 1)
    assert charges(sandbox, together + one_by_one) == [1] * 60
    assert fast < slow / 2, (fast, slow)  # 8 in flight: ideally ~1/8 of the time


def test_a_bad_line_refuses_the_whole_run_naming_every_bad_line(
    home: Path, sandbox: Sandbox
) -> None:
    lines: list[Any] = lines_of(5, "Held")
    lines[1] = {"task": "", "email": unique_email()}
    lines[3] = {**lines[3], "colour": "red"}
    with Client() as client:
        with pytest.raises(svc.UsageError) as refused:
            list(client.submit_many(lines))
        assert list(client.tasks()) == []  # nothing was journaled, so nothing was paid
    error = refused.value
    assert "nothing was sent or paid: 2 bad lines (2, 4)" in error.message
    assert "line 2: missing task" in error.message and "line 4: unknown key" in error.message
    assert [bad["line"] for bad in error.data["bad_lines"]] == [2, 4]
    assert "skip_bad_lines=True" in (error.hint or "")
    assert charges(sandbox, [lines[0], lines[2], lines[4]]) == [0, 0, 0]


def test_skip_bad_lines_pays_the_good_ones_and_reports_the_bad(
    home: Path, sandbox: Sandbox
) -> None:
    lines: list[Any] = lines_of(5, "Skipping")
    lines[1] = {"task": "", "email": unique_email()}
    lines[3] = {"task": "x" * 3, "email": "not an address"}
    with Client() as client:
        results = list(client.submit_many(lines, skip_bad_lines=True, concurrency=3))
    by_line = {r.line: r for r in results}
    assert {n: r.outcome for n, r in by_line.items()} == {
        1: "submitted",
        2: "invalid",
        3: "submitted",
        4: "invalid",
        5: "submitted",
    }
    assert isinstance(by_line[2].error, svc.UsageError) and by_line[2].request_id is None
    assert "line 4" in str(by_line[4].error)
    assert charges(sandbox, [lines[0], lines[2], lines[4]]) == [1, 1, 1]
    for n in (1, 3, 5):
        task = by_line[n].task
        assert task is not None and task.submission is not None
        assert task.submission.request_id == lines[n - 1]["request_id"] == by_line[n].request_id


@pytest.mark.usefixtures("slow_submits")
def test_closing_the_iterator_early_pays_no_line_twice_and_loses_none(
    home: Path, sandbox: Sandbox
) -> None:
    lines = lines_of(24, "Closed early")
    with Client(daily_cap="none") as client:
        results = client.submit_many(lines, concurrency=4)
        seen = [next(results) for _ in range(3)]
        results.close()  # returns once the lines in flight have finished
        after_close = charges(sandbox, lines)
        time.sleep(0.5)
        assert charges(sandbox, lines) == after_close  # nothing went on in the background
        assert len(seen) == 3 and max(after_close) == 1
        assert 3 <= sum(after_close) < len(lines)  # stopped: the rest were never sent
        again = list(client.submit_many(lines, concurrency=4))  # the same request ids
    outcomes = {r.line: r.outcome for r in again}
    assert sorted(outcomes) == list(range(1, 25))
    for line, paid in enumerate(after_close, 1):
        assert outcomes[line] == ("already_accepted" if paid else "submitted"), line
    assert charges(sandbox, lines) == [1] * len(lines)


@pytest.mark.usefixtures("slow_submits")
def test_closing_the_client_stops_a_running_batch_first(home: Path, sandbox: Sandbox) -> None:
    """close() (the `with` block's end) while another thread reads a batch: no new line is
    sent, the ones in flight finish journaled, the reader's loop ends, and the client refuses
    new work; a new client with the same lines pays only the rest."""
    lines = lines_of(24, "Client closed")
    client = Client(daily_cap="none")
    seen: list[svc.BatchResult] = []
    first = threading.Event()

    def read() -> None:
        for result in client.submit_many(lines, concurrency=4):
            seen.append(result)
            first.set()

    reader = threading.Thread(target=read)
    reader.start()
    assert first.wait(30)
    client.close()  # returns once the lines in flight have finished
    after_close = charges(sandbox, lines)
    reader.join(10)
    assert not reader.is_alive()  # the reader's loop ended with the run
    assert {r.outcome for r in seen} == {"submitted"}, [r.error for r in seen]  # none broken
    assert len(seen) == sum(after_close)  # every line paid was reported
    time.sleep(0.5)
    assert charges(sandbox, lines) == after_close and max(after_close) == 1
    assert 1 <= sum(after_close) < len(lines)
    with pytest.raises(RuntimeError, match="closed"):
        list(client.submit_many(lines))
    with Client(daily_cap="none") as again:
        outcomes = {r.line: r.outcome for r in again.submit_many(lines, concurrency=4)}
    for line, paid in enumerate(after_close, 1):
        assert outcomes[line] == ("already_accepted" if paid else "submitted"), line
    assert charges(sandbox, lines) == [1] * len(lines)


def test_the_approve_callback_and_trust_apply_to_every_line(home: Path, sandbox: Sandbox) -> None:
    with Client() as client:
        client.submit("Pin the recipient #complete", unique_email())  # pins it for the origin
    sandbox.configure(pay_to=OTHER_ADDRESS)
    asked: list[PaymentOffer] = []

    def careful(offer: PaymentOffer) -> bool:
        asked.append(offer)  # called from the batch's worker threads
        return offer.previous_pay_to is None  # a price, yes; a new recipient, no

    lines = lines_of(3, "New recipient")
    with Client(approve=careful) as client:
        refused = list(client.submit_many(lines, concurrency=3))
    assert [r.outcome for r in refused] == ["failed"] * 3
    assert all(isinstance(r.error, svc.PolicyRefused) for r in refused)
    assert {r.error.code for r in refused if r.error} == {"recipient_changed"}
    assert len(asked) >= 3 and all(o.pay_to == OTHER_ADDRESS for o in asked)
    assert charges(sandbox, lines) == [0, 0, 0]
    with Client(trust_recipient=True) as client:
        paid = list(client.submit_many(lines, concurrency=3))
    assert [r.outcome for r in paid] == ["submitted"] * 3
    assert charges(sandbox, lines) == [1, 1, 1]


def test_a_json_lines_file_is_read_as_svc_submit_from_reads_it(
    home: Path, sandbox: Sandbox, tmp_path: Path
) -> None:
    email = unique_email()
    source = tmp_path / "batch.jsonl"
    source.write_text(
        "# the week's errands\n"
        '{"task": "From a file one #complete"}\n'
        "\n"
        '{"task": "From a file two #complete"}\n'
    )
    with Client() as client:
        results = list(client.submit_many(source, email=email))
        again = list(client.submit_many(str(source), email=email))
    assert sorted((r.line, r.outcome) for r in results) == [(2, "submitted"), (4, "submitted")]
    assert sorted((r.line, r.outcome) for r in again) == [
        (2, "already_accepted"),
        (4, "already_accepted"),
    ]
    assert {r.task_id for r in results} == {r.task_id for r in again}
    for result in results:
        assert result.request_id and len(sandbox.charges_for(result.request_id)) == 1


@pytest.mark.usefixtures("slow_submits")
def test_the_async_client_runs_the_same_batch(home: Path, sandbox: Sandbox) -> None:
    lines = lines_of(16, "Async batch")
    bad = [lines[0], {"task": "", "email": unique_email()}]

    async def run() -> tuple[list[svc.BatchResult], list[int], list[svc.BatchResult]]:
        async with AsyncClient(daily_cap="none") as client:
            with pytest.raises(svc.UsageError, match="line 2"):
                _ = [r async for r in client.submit_many(bad)]
            seen: list[svc.BatchResult] = []
            async with contextlib.aclosing(client.submit_many(lines, concurrency=4)) as results:
                async for result in results:
                    seen.append(result)
                    if len(seen) == 3:
                        break
            after_close = charges(sandbox, lines)
            again = [r async for r in client.submit_many(lines, concurrency=8)]
            return seen, after_close, again

    seen, after_close, again = asyncio.run(run())
    assert len(seen) == 3 and max(after_close) == 1 and sum(after_close) < len(lines)
    assert sorted(r.line for r in again) == list(range(1, 17))
    assert charges(sandbox, lines) == [1] * len(lines)
