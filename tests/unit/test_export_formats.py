"""The export writers' escaping, one format at a time (the e2e test runs the real readers:
bean-check, hledger, Python's csv). Each case is a text a person or a server supplied."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

from svc.engines.export_entry import Entry
from svc.engines.export_formats import WRITERS
from svc.store.spend import Window

EVIL = 'a "b" \\c; d, e | f\n2020-01-01 * x\r\n  Assets:Evil  1 USD\x1b[2J\u202e'


def entry(amount: int = 1_500_000, kind: str = "charge", task: str = EVIL) -> Entry:
    return Entry(
        kind=kind,
        at=1_795_680_000.0,
        rail="x402",
        amount_atomic=amount,
        request_id="req_1",
        task_id='task_"1";',
        reference="0xabc",
        payment_id="pay_1",
        runner="=cmd|' /C calc'!A0",
        payer=None,
        recipient=None,
        network=None,
        asset=None,
        task=task,
    )


def written(fmt: str, *entries: Entry) -> str:
    return WRITERS[fmt](list(entries), Window("2026-11-01"))


def test_csv_cells_are_one_line_and_never_a_formula() -> None:
    rows = list(csv.DictReader(io.StringIO(written("csv", entry(), entry(-500_000, "refund")))))
    assert len(rows) == 2 and [r["amount_usd"] for r in rows] == ["1.500000", "-0.500000"]
    assert rows[0]["runner"].startswith("'=") and "\n" not in rows[0]["task"]
    assert "\x1b" not in rows[0]["task"] and "\u202e" not in rows[0]["task"]
    assert sum(Decimal(r["amount_usd"]) for r in rows) == Decimal("1.000000")


def test_beancount_strings_escape_quote_and_backslash_on_one_line() -> None:
    text = written("beancount", entry())
    narration = next(line for line in text.splitlines() if line.endswith('"') and " * " in line)
    assert narration.count('"') - narration.count('\\"') == 4  # "svc" and the narration
    assert "\\\\c" in narration  # the backslash doubled inside the string
    lines = text.splitlines()
    assert not [line for line in lines if line.strip().startswith(("2020", "Assets:Evil"))]


def test_a_journal_line_cannot_open_a_comment_or_a_tag() -> None:
    lines = written("ledger", entry()).splitlines()
    head = lines[0]
    assert head.startswith("20") and " * svc: " in head and ";" not in head and "|" not in head
    tags = [line for line in lines if line.startswith("    ;")]
    assert all(line.count(";") == 1 and "," not in line for line in tags), tags
    postings = [line for line in lines if line.startswith("    ") and ";" not in line]
    assert [p.split()[0] for p in postings] == ["Expenses:Svc:Tasks", "Assets:Svc:X402"]
