"""`svc spend --format csv|beancount|ledger|json` (issue 35.5): books an accountant's tools
accept. beancount's own `bean-check` and hledger read the files; a strict reader of the
journal's few line shapes is kept here too; every total equals `svc spend`'s for the window;
text a person or a server supplied cannot break a format or add to it."""

from __future__ import annotations

import base64
import csv
import io
import json
import re
import shutil
import subprocess
import sys
from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from tests.conftest import Cli, Sandbox, unique_request_id
from tests.e2e.test_payments import card_link, press_pay, submit
from tests.ledger_fill import Charge, fill
from tests.ledger_reads import ledger_file

pytestmark = pytest.mark.e2e

# A task text that tries each format: a CSV formula and quote, beancount's string end and a
# new directive, a journal comment, a new transaction on its own line, a posting.
HOSTILE = (
    '=HYPERLINK("http://evil") "quoted", \\"escaped\\" ; comment\n'
    '2020-01-01 * "evil" "x"\n  Assets:Evil  -100 USD\n  Expenses:Evil  100 USD\r\n| pipe, tag: value'
)
ACCOUNTS = {"Expenses:Svc:Tasks", "Assets:Svc:X402", "Assets:Svc:MPP", "Assets:Svc:Card"}


def noon(day: date) -> float:
    return datetime.combine(day, datetime.min.time()).timestamp() + 12 * 3600


def b64(doc: dict[str, object]) -> str:
    return base64.b64encode(json.dumps(doc).encode()).decode()


def books(home: Path) -> None:
    """Charges on three rails over three days, a refund, one outside the window, and rows
    whose text (task, task id, runner) is hostile: a shared ledger holds what others wrote."""
    today = date.today()
    fill(
        ledger_file(home),
        [
            Charge("req_x", noon(today), receipt=b64({"transaction": "0xabc", "success": True})),
            Charge("req_m", noon(today), rail="mpp", receipt=b64({"reference": "pi_123"})),
            Charge("req_c", noon(today - timedelta(days=1)), rail="card", amount_atomic=2_000_000),
            Charge("req_r", noon(today - timedelta(days=2)), refunded_atomic=1_500_000),
            Charge("req_old", noon(today - timedelta(days=90)), amount_atomic=9_000_000),
            Charge("req_h", noon(today), task=HOSTILE, task_id='task_"x";\n=1', runner="a,b: c"),
        ],
    )


def exported(cli: Cli, fmt: str, *span: str) -> str:
    return cli.ok("spend", "--format", fmt, *span).stdout


def test_every_export_totals_what_svc_spend_says(bare_cli: Cli, tmp_path: Path) -> None:
    books(bare_cli.home)
    span = ["--since", (date.today() - timedelta(days=2)).isoformat()]
    total = Decimal(bare_cli.ok("spend", *span, "--json").json()["total_usd"])
    assert total == Decimal("6.500000")  # 1.5 x402 + 1.5 mpp + 2 card + 1.5 hostile (+ refund)

    rows = list(csv.DictReader(io.StringIO(exported(bare_cli, "csv", *span))))
    assert len(rows) == 6  # five charges and one refund: no line the hostile text added
    assert sum(Decimal(r["amount_usd"]) for r in rows) == total
    assert [r["kind"] for r in rows if r["request_id"] == "req_r"] == ["charge", "refund"]
    refs = {r["request_id"]: r["settlement_reference"] for r in rows}
    assert refs["req_x"] == "0xabc" and refs["req_m"] == "pi_123"
    assert refs["req_c"] == "pay_req_c"  # a card is named by its payment id
    hostile = next(r for r in rows if r["request_id"] == "req_h")
    assert hostile["task"].startswith("'=HYPERLINK") and "\n" not in hostile["task"]
    assert hostile["task_id"] == 'task_"x"; =1' and hostile["runner"] == "a,b: c"

    doc = json.loads(exported(bare_cli, "json", *span))
    assert Decimal(doc["total_usd"]) == total and len(doc["entries"]) == 6
    hostile_entry = next(e for e in doc["entries"] if e["request_id"] == "req_h")
    assert hostile_entry["task"] == HOSTILE  # JSON escapes it: kept exactly as written
    everything = json.loads(exported(bare_cli, "json", "--all"))
    assert Decimal(everything["total_usd"]) == Decimal(
        bare_cli.ok("spend", "--all", "--json").json()["total_usd"]
    )

    for fmt, reader in (("beancount", beancount_total), ("ledger", journal_total)):
        path = tmp_path / f"books.{fmt}"
        path.write_text(exported(bare_cli, fmt, *span))
        assert reader(path, 6) == total, fmt


def beancount_total(path: Path, count: int) -> Decimal:
    """bean-check accepts the file; beancount's loader reads every transaction's metadata and
    no account but ours."""
    checked = subprocess.run(
        [str(Path(sys.executable).with_name("bean-check")), str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    from beancount import loader
    from beancount.core import data

    entries, errors, _ = loader.load_file(str(path))
    assert not errors
    txns = [e for e in entries if isinstance(e, data.Transaction)]
    assert len(txns) == count and all(t.meta.get("request_id") for t in txns)
    assert {p.account for t in txns for p in t.postings} <= ACCOUNTS
    for hostile in (t for t in txns if t.meta["request_id"] == "req_h"):
        assert hostile.narration == " ".join(HOSTILE.split()) and len(hostile.postings) == 2
    return sum(
        (p.units.number for t in txns for p in t.postings if p.account == "Expenses:Svc:Tasks"),
        Decimal(0),
    )


# The journal's only line shapes: a transaction's first line, a tag comment, a posting.
HEAD = re.compile(r"^(\d{4}-\d{2}-\d{2}) \* svc: ([^;]*)$")
TAG = re.compile(r"^    ; ([a-z_]+): ([^,;]*)$")
POSTING = re.compile(r"^    ([A-Z][A-Za-z0-9]*(?::[A-Z][A-Za-z0-9]*)+)  (-?\d+\.\d{6}) USD$")


def journal_total(path: Path, count: int) -> Decimal:
    """Read back strictly (every line one of three shapes, each transaction balanced), then
    by hledger: the same accounts, the same total, the tags svc wrote."""
    total, txns, postings = Decimal(0), 0, []
    for line in path.read_text().splitlines():
        if not line:
            assert len(postings) in (0, 2) and sum(postings) == 0, postings
            postings = []
        elif m := HEAD.match(line):
            txns += 1
        elif m := POSTING.match(line):
            assert m.group(1) in ACCOUNTS, line
            postings.append(Decimal(m.group(2)))
            total += Decimal(m.group(2)) if m.group(1) == "Expenses:Svc:Tasks" else 0
        else:
            assert TAG.match(line), f"a line of no known shape: {line!r}"
    assert txns == count
    assert shutil.which("hledger"), "hledger is part of the test toolchain (make tools)"
    accounts = hledger(path, "accounts").split()
    assert set(accounts) <= ACCOUNTS and "Expenses:Svc:Tasks" in accounts
    balance = hledger(path, "balance", "Expenses:Svc:Tasks", "--flat", "-N", "-O", "csv")
    assert f'"Expenses:Svc:Tasks","{total} USD"' in balance, balance
    tags = set(hledger(path, "tags").split())
    assert {"request_id", "task_id", "settlement_reference", "runner"} <= tags
    assert tags <= {"kind", "rail", "request_id", "task_id", "settlement_reference"} | {
        "payment_id",
        "runner",
        "payer",
        "recipient",
        "network",
        "asset",
    }, tags
    return total


def hledger(path: Path, *args: str) -> str:
    done = subprocess.run(
        ["hledger", "-f", str(path), *args], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.usefixtures("no_payment_faults")
def test_real_payments_on_each_rail_export_with_their_references(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    paid = {rail: unique_request_id() for rail in ("x402", "mpp", "card")}
    assert submit(cli, "x402", paid["x402"]).returncode == 0
    assert submit(cli, "mpp", paid["mpp"], task='Pay; "me", now #complete').returncode == 0
    assert submit(cli, "card", paid["card"]).returncode == 6
    press_pay(card_link(cli, paid["card"]))
    cli.ok("pay", "card", paid["card"])
    rows = {r["request_id"]: r for r in csv.DictReader(io.StringIO(exported(cli, "csv")))}
    for rail, r in paid.items():
        ref = cli.ok("receipt", r, "--json").json()["settlement"]["reference"]
        assert ref and rows[r]["settlement_reference"] == ref and rows[r]["rail"] == rail
    assert sum(Decimal(r["amount_usd"]) for r in rows.values()) == Decimal(
        cli.ok("spend", "--json").json()["total_usd"]
    )
    path = tmp_path / "paid.beancount"
    path.write_text(exported(cli, "beancount"))
    assert beancount_total(path, 3) == Decimal("4.500000")
