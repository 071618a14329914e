"""`svc receipt ID` on a narrow terminal (issue 49.7): the transaction hash and the ids are
folded onto the next line when they do not fit beside their key, never cut with `…`, so a
person sees (and can copy) every character of them."""

from __future__ import annotations

import re

import pytest
from tests.conftest import Cli, Sandbox, unique_request_id
from tests.e2e.test_payments import submit
from tests.e2e.test_tables import screen

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("no_payment_faults")]


def joined(lines: list[str]) -> str:
    """Lines as one string without whitespace: a value folded over lines reads whole."""
    return re.sub(r"\s+", "", "".join(lines))


def value_column(lines: list[str], task_id: str) -> list[str]:
    """The values' side of the key/value lines, from where the first value (the task id)
    starts: on a very narrow terminal a long key wraps beside a folded value, and a person
    copies the value from its own column."""
    start = lines[0].index(task_id[:8])
    return [line[start:] for line in lines]


@pytest.fixture
def paid(cli: Cli, sandbox: Sandbox) -> dict[str, str]:
    """A paid x402 task: its task id, request id and settlement transaction hash."""
    request_id = unique_request_id()
    task_id = submit(cli, "x402", request_id, extra=("--json",)).json()["id"]
    doc = cli.ok("receipt", task_id, "--json").json()
    reference = doc["settlement"]["reference"]
    assert re.fullmatch(r"0x[0-9a-f]{64}", reference), reference  # 66 characters: too wide
    return {"task": task_id, "request": request_id, "hash": reference}


@pytest.mark.parametrize("columns", [80, 40])
def test_the_transaction_hash_is_whole_at_any_width(
    cli: Cli, paid: dict[str, str], columns: int
) -> None:
    shown = screen(cli, "receipt", paid["task"], columns=columns)
    lines = [line for line in shown.replace("\r\n", "\n").splitlines() if line.strip()]
    assert "…" not in shown, shown  # nothing cut
    assert all(len(line) <= columns for line in lines), shown
    for value in paid.values():
        assert value in joined(value_column(lines, paid["task"])), f"{value} cut:\n{shown}"
    if columns >= 80:  # every key fits on one line: the lines themselves read whole
        assert paid["hash"] in joined(lines), shown


def test_values_that_fit_stay_on_their_line(cli: Cli, paid: dict[str, str]) -> None:
    """Wide enough, the receipt is as it was: each value on its key's line, hash included."""
    shown = screen(cli, "receipt", paid["task"], columns=120)
    assert any(line.split()[-1:] == [paid["hash"]] for line in shown.splitlines()), shown
    assert any(line.split() == ["request", paid["request"]] for line in shown.splitlines())
