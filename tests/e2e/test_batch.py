"""`svc submit --from FILE`: many paid submissions, each once, with per-line results."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.conftest import TEST_ADDRESS, Cli, Sandbox, unique_email

pytestmark = pytest.mark.e2e


def write_lines(path: Path, lines: list[object]) -> Path:
    path.write_text(
        "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n",
        encoding="utf-8",
    )
    return path


@pytest.fixture
def funds(sandbox: Sandbox) -> Iterator[None]:
    """Restore the test wallet's balance after a test that changes it."""
    before = sandbox.admin("GET", f"/wallets/{TEST_ADDRESS}")["balance_atomic"]
    yield
    sandbox.admin("POST", f"/wallets/{TEST_ADDRESS}", json={"balance_atomic": before})


def test_batch_pays_each_line_once_reports_bad_lines_and_rerun_sends_nothing(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    email = unique_email()
    good = [{"task": f"batch task {i} #complete", "email": email} for i in range(5)]
    good.append({"task": "batch task 0 #complete", "email": email})  # a deliberate duplicate
    good.append(
        {"task": "batch with id #complete", "email": email, "request_id": f"req_{email[5:15]}x"}
    )
    source = write_lines(
        tmp_path / "tasks.jsonl",
        [
            *good,
            "# a comment",
            "",
            "{not json",
            {"task": "no e-mail"},
            {"task": "x", "email": "bad"},
        ],
    )
    refused = cli("submit", "--from", str(source), "--concurrency", "3")
    assert refused.returncode == 2, refused.stderr  # one bad line: nothing is paid (29.2)
    assert [doc["line"] for doc in refused.lines()] == [10, 11, 12]
    assert "nothing was sent or paid: 3 bad lines (10-12)" in refused.stderr
    assert len(sandbox.charges_for(good[6]["request_id"])) == 0

    result = cli("submit", "--from", str(source), "--concurrency", "3", "--skip-bad-lines")
    assert result.returncode == 0, result.stderr  # the paid lines' outcome, not the bad lines'
    lines = result.lines()
    assert len(lines) == 10
    by_line = {doc["line"]: doc for doc in lines}
    accepted = [doc for doc in lines if doc["outcome"] == "accepted"]
    assert len(accepted) == 7
    assert {doc["line"] for doc in accepted} == set(range(1, 8))
    assert all(doc["task"]["id"] == doc["task_id"] for doc in accepted)
    assert len({doc["request_id"] for doc in accepted}) == 7  # one key per line, duplicates too
    assert by_line[7]["request_id"] == good[6]["request_id"]
    for number, message in (
        (10, "line 10: not a JSON object"),
        (11, "line 11: missing email"),
        (12, "line 12: malformed e-mail address"),
    ):
        assert by_line[number]["outcome"] == "invalid"
        assert by_line[number]["exit_code"] == 2
        assert message in by_line[number]["detail"]
        assert f"svc: {message}" in result.stderr
    assert (
        "batch: 7 submitted (7 paid, 0 replayed), 0 already accepted, 0 failed, 3 bad lines"
        in result.stderr
    )
    for doc in accepted:
        charges = sandbox.charges_for(doc["request_id"])
        assert len(charges) == 1 and charges[0]["task_id"] == doc["task_id"]

    again = cli("submit", "--from", str(source), "--skip-bad-lines")
    assert again.returncode == 0
    skipped = [doc for doc in again.lines() if doc["outcome"] == "already_accepted"]
    assert {(d["line"], d["request_id"], d["task_id"]) for d in skipped} == {
        (d["line"], d["request_id"], d["task_id"]) for d in accepted
    }
    for doc in accepted:
        assert len(sandbox.charges_for(doc["request_id"])) == 1  # nothing paid twice


def test_batch_from_stdin_with_default_email_and_clean_exit(cli: Cli, sandbox: Sandbox) -> None:
    text = "\n".join(json.dumps({"task": f"stdin {i} #complete"}) for i in range(3)) + "\n"
    result = cli("submit", "--from", "-", "--email", unique_email(), input=text)
    assert result.returncode == 0, result.stderr
    assert [doc["outcome"] for doc in result.lines()] == ["accepted"] * 3


def test_batch_exit_code_is_the_worst_failure(
    cli: Cli, sandbox: Sandbox, tmp_path: Path, funds: None
) -> None:
    sandbox.admin("POST", f"/wallets/{TEST_ADDRESS}", json={"balance_atomic": 3_000_000})
    email = unique_email()
    source = write_lines(
        tmp_path / "t.jsonl",
        [{"task": f"funds {i} #complete", "email": email} for i in range(4)] + ["[1]"],
    )
    result = cli("submit", "--from", str(source), "--concurrency", "1", "--skip-bad-lines")
    # The worst line is a payment refusal (5), but two lines were paid: 5 would read as
    # "nothing was charged", so the run exits 1 and names what it paid (29.1).
    assert result.returncode == 1, result.stderr
    outcomes = sorted(doc["outcome"] for doc in result.lines())
    assert outcomes == ["accepted", "accepted", "error", "error", "invalid"]
    failed = [doc for doc in result.lines() if doc["outcome"] == "error"]
    assert all(doc["exit_code"] == 5 and doc["error"] == "settlement_failed" for doc in failed)
    assert "insufficient_funds" in result.stderr and "2 failed, 1 bad line" in result.stderr
    assert "this run paid for task" in result.stderr and "exit 1, not 5" in result.stderr

    unpaid = write_lines(
        tmp_path / "u.jsonl", [{"task": f"broke {i} #complete", "email": email} for i in range(2)]
    )
    broke = cli("submit", "--from", str(unpaid), "--concurrency", "1")
    assert broke.returncode == 5, broke.stderr  # nothing paid: the refusal's own code


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--from", "{f}", "some task"], "--from cannot be combined with TASK"),
        (["--from", "{f}", "--wait"], "--from cannot be combined with --wait"),
        (
            ["--from", "{f}", "--request-id", "req_12345678"],
            "--from cannot be combined with --request-id",
        ),
        (["--from", "{f}", "--concurrency", "0"], "--concurrency must be between 1 and 64"),
        (["--from", "{f}", "--max-price", "abc"], "--max-price must be a USD amount"),
        (["--from", "{f}", "--pay", "gold"], "--pay must be x402, mpp or card"),
        (
            ["--from", "/nonexistent/tasks.jsonl"],
            "cannot read the batch file: /nonexistent/tasks.jsonl: no such file",
        ),
    ],
)
def test_batch_bad_flags(cli: Cli, tmp_path: Path, args: list[str], message: str) -> None:
    source = write_lines(tmp_path / "t.jsonl", [{"task": "t #complete", "email": unique_email()}])
    result = cli("submit", *[a.replace("{f}", str(source)) for a in args])
    assert result.returncode == 2
    assert f"svc: {message}" in result.stderr
    assert result.json()["exit_code"] == 2


def test_a_file_of_garbage_is_refused_whole_past_the_bad_line_cap(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    """A log passed by mistake: past MAX_BAD_LINES bad lines svc stops reading and refuses the
    file, even with --skip-bad-lines (every bad line is kept to be named: a huge file would
    have held all of them in memory); the good line before them is not paid."""
    from svc.engines.batch_file import MAX_BAD_LINES

    path = tmp_path / "app.log"
    good = json.dumps({"task": "Good line #complete", "email": unique_email()})
    garbage = "".join(f"2026-11-26 12:00:{n % 60:02d} INFO request served\n" for n in range(20_000))
    path.write_text(good + "\n" + garbage)
    books = len(sandbox.books()["charges"])
    result = cli("submit", "--from", str(path), "--skip-bad-lines", "--yes", "--json")
    assert result.returncode == 2, result.stderr
    assert f"more than {MAX_BAD_LINES} bad lines" in result.stderr
    assert f"not read past line {MAX_BAD_LINES + 2}" in result.stderr
    assert "is this a batch file?" in result.stderr
    assert len(sandbox.books()["charges"]) == books


def test_the_ledger_is_asked_a_chunk_of_lines_at_a_time(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, funds: None
) -> None:
    """Whether each line was accepted already is one ledger read a chunk, not one a line (a
    round trip a line on a fleet's PostgreSQL): a re-run of 70 lines asks twice (64 + 6)."""
    from svc.engines import batch
    from svc.store.ledger.local import Ledger

    email = unique_email()
    source = write_lines(
        tmp_path / "chunks.jsonl",
        [{"task": f"chunk {i} #complete", "email": email} for i in range(70)],
    )
    cli.ok("submit", "--from", str(source), env={"SVC_DAILY_CAP": "none"})
    asked: list[int] = []
    among = Ledger.accepted_among

    def counted(self: Ledger, request_ids: list[str]) -> object:
        asked.append(len(request_ids))
        return among(self, request_ids)

    monkeypatch.setattr(Ledger, "accepted_among", counted)
    again = cli.ok("submit", "--from", str(source))
    assert {doc["outcome"] for doc in again.lines()} == {"already_accepted"}
    assert asked == [batch.LOOKUP_CHUNK, 70 - batch.LOOKUP_CHUNK]
