"""`svc spend --format csv|beancount|ledger|json` (issues 35.5 and 49.6): books an accountant's
tools accept as they are. beancount's own `bean-check`, `hledger --strict`, `hledger check
payees` and `ledger --strict` read the files without an error or a warning; a strict reader of
the journal's few line shapes is kept here too; every total equals `svc spend`'s for the window;
test money (Base Sepolia) is never in the commodity of mainnet money; the payee is the service;
text a person or a server supplied cannot break a format or add to it."""

from __future__ import annotations

import base64
import csv
import io
import json
import re
import shutil
import sqlite3
import subprocess
import sys
from collections import defaultdict
from contextlib import closing
from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from urllib.parse import urlsplit

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
EXPENSES = "Expenses:Svc:Tasks"
# The expenses, the card and MPP accounts, and one account per x402 wallet.
ACCOUNT = r"Expenses:Svc:Tasks|Assets:Svc:(?:MPP|Card|X402:[0-9A-Z][0-9A-Za-z-]*)"
MAINNET, SEPOLIA = "eip155:8453", "eip155:84532"
SEPOLIA_PAYER = "0x" + "AB" * 20
COMMODITIES = {"USD", "USDC_TEST"}  # mainnet money, cards and MPP; test money


def noon(day: date) -> float:
    return datetime.combine(day, datetime.min.time()).timestamp() + 12 * 3600


def b64(doc: dict[str, object]) -> str:
    return base64.b64encode(json.dumps(doc).encode()).decode()


def books(home: Path) -> None:
    """Charges on three rails over three days, a refund, one outside the window, a charge in
    test money (Base Sepolia) from another wallet and profile, one to another service, and
    rows whose text (task, task id, runner) is hostile: a shared ledger holds what others
    wrote. Every x402 row `fill` writes is on Base mainnet."""
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
            Charge("req_s", noon(today) + 60, task="Test money"),
        ],
    )
    with closing(sqlite3.connect(ledger_file(home))) as db, db:
        db.execute(
            "UPDATE submissions SET network = ?, payer = ? WHERE request_id = 'req_s'",
            (SEPOLIA, SEPOLIA_PAYER),
        )
        db.execute("UPDATE authorizations SET profile = 'work' WHERE request_id = 'req_s'")
        for request_id, origin in (
            ("req_m", "https://tasks.example.com:443"),
            ("req_h", "http://(evil;x|y.example:8402"),  # a code, a comment, a note
        ):
            db.execute(
                "UPDATE submissions SET origin = ? WHERE request_id = ?", (origin, request_id)
            )


def exported(cli: Cli, fmt: str, *span: str) -> str:
    return cli.ok("spend", "--format", fmt, *span).stdout


def test_every_export_totals_what_svc_spend_says(bare_cli: Cli, tmp_path: Path) -> None:
    books(bare_cli.home)
    span = ["--since", (date.today() - timedelta(days=2)).isoformat()]
    total = Decimal(bare_cli.ok("spend", *span, "--json").json()["total_usd"])
    assert total == Decimal("8.000000")  # 1.5 x402 + 1.5 mpp + 2 card + 1.5 hostile + 1.5
    # test money (+ 1.5 and its refund)
    by_currency = {"USD": total - Decimal("1.5"), "USDC_TEST": Decimal("1.500000")}

    rows = list(csv.DictReader(io.StringIO(exported(bare_cli, "csv", *span))))
    assert len(rows) == 7  # six charges and one refund: no line the hostile text added
    assert sum(Decimal(r["amount_usd"]) for r in rows) == total
    assert [r["kind"] for r in rows if r["request_id"] == "req_r"] == ["charge", "refund"]
    refs = {r["request_id"]: r["settlement_reference"] for r in rows}
    assert refs["req_x"] == "0xabc" and refs["req_m"] == "pi_123"
    assert refs["req_c"] == "pay_req_c"  # a card is named by its payment id
    hostile = next(r for r in rows if r["request_id"] == "req_h")
    assert hostile["task"].startswith("'=HYPERLINK") and "\n" not in hostile["task"]
    assert hostile["task_id"] == 'task_"x"; =1' and hostile["runner"] == "a,b: c"
    by_id = {r["request_id"]: r for r in rows}
    assert [by_id["req_x"][c] for c in ("currency", "network")] == ["USD", MAINNET]
    test_money = by_id["req_s"]
    assert [test_money[c] for c in ("currency", "network", "profile")] == [
        "USDC_TEST",
        SEPOLIA,
        "work",
    ]
    assert by_id["req_m"]["origin"] == "https://tasks.example.com:443"
    assert all(_moment(r).date().isoformat() == r["date"] for r in rows)  # ISO, with offset

    doc = json.loads(exported(bare_cli, "json", *span))
    assert Decimal(doc["total_usd"]) == total and len(doc["entries"]) == 7
    hostile_entry = next(e for e in doc["entries"] if e["request_id"] == "req_h")
    assert hostile_entry["task"] == HOSTILE  # JSON escapes it: kept exactly as written
    everything = json.loads(exported(bare_cli, "json", "--all"))
    assert Decimal(everything["total_usd"]) == Decimal(
        bare_cli.ok("spend", "--all", "--json").json()["total_usd"]
    )

    for fmt, reader in (("beancount", beancount_totals), ("ledger", journal_totals)):
        path = tmp_path / f"books.{fmt}"
        path.write_text(exported(bare_cli, fmt, *span))
        assert reader(path, 7) == by_currency, fmt
    journal = tmp_path / "books.ledger"
    payees = set(hledger(journal, "payees").splitlines())
    assert payees == {"127.0.0.1:8402", "tasks.example.com", "evil x/y.example:8402"}
    accounts = set(hledger(journal, "accounts").split())
    assert {"Assets:Svc:X402:0xpayer", "Assets:Svc:X402:0xabab-abab"} <= accounts  # a wallet each


def _moment(row: dict[str, str]) -> datetime:
    """The CSV's time: ISO 8601 with its UTC offset (one moment, wherever it is read)."""
    moment = datetime.fromisoformat(row["time"])
    assert moment.tzinfo is not None and row["time"][-6] in "+-", row["time"]
    return moment


def beancount_totals(path: Path, count: int) -> dict[str, Decimal]:
    """bean-check accepts the file; beancount's loader reads every transaction's metadata, no
    account but ours and the service as each payee. The expenses by commodity."""
    checked = subprocess.run(
        [str(Path(sys.executable).with_name("bean-check")), str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0 and not checked.stderr, checked.stdout + checked.stderr
    from beancount import loader
    from beancount.core import data

    entries, errors, _ = loader.load_file(str(path))
    assert not errors
    txns = [e for e in entries if isinstance(e, data.Transaction)]
    assert len(txns) == count and all(t.meta.get("request_id") for t in txns)
    assert all(re.fullmatch(ACCOUNT, p.account) for t in txns for p in t.postings)
    assert all(t.payee == payee_of(t.meta["origin"]) for t in txns)
    for hostile in (t for t in txns if t.meta["request_id"] == "req_h"):
        assert hostile.narration == " ".join(HOSTILE.split()) and len(hostile.postings) == 2
    declared = {e.currency for e in entries if isinstance(e, data.Commodity)}
    totals: dict[str, Decimal] = defaultdict(Decimal)
    for p in (p for t in txns for p in t.postings if p.account == EXPENSES):
        assert p.units.currency in declared
        totals[p.units.currency] += p.units.number
    return dict(totals)


# The journal's only line shapes: its declarations, a transaction's first line (the payee
# alone), a tag comment, a posting.
DECLARATION = re.compile(
    rf"^(?:account (?:{ACCOUNT})|commodity (?:USD|USDC_TEST)  ; [^;]*"
    r"|    format 1\.000000 (?:USD|USDC_TEST)|payee [^;|]+|tag [a-z_]+)$"
)
HEAD = re.compile(r"^(\d{4}-\d{2}-\d{2}) \* ([^;|]+)$")
TAG = re.compile(r"^    ; ([a-z_]+): ([^,;]*)$")
POSTING = re.compile(rf"^    ({ACCOUNT})  (-?\d+\.\d{{6}}) (USD|USDC_TEST)$")
TAGS = {"task", "kind", "rail", "request_id", "task_id", "settlement_reference", "payment_id"}
TAGS |= {"runner", "payer", "recipient", "network", "asset", "origin", "profile"}


def journal_totals(path: Path, count: int) -> dict[str, Decimal]:
    """Read back strictly (every line one of its shapes, each transaction balanced), then by
    the tools in their strict modes, then by hledger and ledger: the same accounts, the same
    totals by commodity, the tags svc wrote. The expenses by commodity."""
    totals: dict[str, Decimal] = defaultdict(Decimal)
    txns, postings = 0, []
    for line in path.read_text().splitlines():
        if not line:
            assert len(postings) in (0, 2) and sum(postings) == 0, postings
            postings = []
        elif HEAD.match(line):
            txns += 1
        elif m := POSTING.match(line):
            postings.append(Decimal(m.group(2)))
            totals[m.group(3)] += Decimal(m.group(2)) if m.group(1) == EXPENSES else 0
        else:
            assert TAG.match(line) or DECLARATION.match(line), f"of no known shape: {line!r}"
    assert txns == count
    strictly_read(path)
    accounts = hledger(path, "accounts").split()
    assert all(re.fullmatch(ACCOUNT, a) for a in accounts) and EXPENSES in accounts
    assert hledger_totals(path) == ledger_totals(path) == totals
    tags = set(hledger(path, "tags").split())
    assert {"task", "request_id", "task_id", "settlement_reference", "runner", "origin"} <= tags
    assert tags <= TAGS, tags
    return dict(totals)


def strictly_read(path: Path) -> None:
    """What a bookkeeper runs on the journal, as they run it: every account, commodity, payee
    and tag declared, dates in order; an error fails the command, a warning prints to stderr."""
    assert shutil.which("hledger") and shutil.which("ledger"), "make tools installs them"
    for command in (
        ["hledger", "--strict", "-f", str(path), "bal"],
        ["hledger", "-f", str(path), "check", "payees", "ordereddates"],
        ["ledger", "--strict", "-f", str(path), "bal"],
        ["ledger", "--strict", "--check-payees", "--pedantic", "-f", str(path), "reg"],
    ):
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        assert done.returncode == 0 and not done.stderr.strip(), (command, done.stderr)


def hledger_totals(path: Path) -> dict[str, Decimal]:
    """hledger's expenses, one row per commodity."""
    table = hledger(path, "balance", EXPENSES, "--flat", "-N", "-O", "csv", "--layout=bare")
    rows = list(csv.DictReader(io.StringIO(table)))
    assert {r["account"] for r in rows} <= {EXPENSES}, rows
    return {r["commodity"]: Decimal(r["balance"]) for r in rows}


def ledger_totals(path: Path) -> dict[str, Decimal]:
    """ledger's expenses: one `amount commodity` line per commodity."""
    done = subprocess.run(
        ["ledger", "-f", str(path), "--flat", "--no-total", "bal", f"^{EXPENSES}$"],
        capture_output=True,
        text=True,
        check=True,
    )
    found = re.findall(r"(-?\d+\.\d{6}) (USD|USDC_TEST)\b", done.stdout)
    return {commodity: Decimal(amount) for amount, commodity in found}


def hledger(path: Path, *args: str) -> str:
    done = subprocess.run(
        ["hledger", "-f", str(path), *args], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def host(url: str) -> str:
    return urlsplit(url).netloc


def payee_of(origin: str) -> str:
    """The service as the books name it: its host, with its port unless the scheme's own."""
    parts = urlsplit(origin)
    return str(parts.hostname) if parts.port in (80, 443) else parts.netloc


@pytest.mark.usefixtures("no_payment_faults")
def test_real_payments_on_each_rail_export_with_their_references(
    cli: Cli, sandbox: Sandbox, mainnet_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Paid for real: x402 in the sandbox's test money and in a mainnet sandbox's USDC, MPP,
    a card, and an MPP delivery that failed and was refunded; every format read back."""
    paid = {rail: unique_request_id() for rail in ("x402", "mpp", "card")}
    assert submit(cli, "x402", paid["x402"]).returncode == 0
    assert submit(cli, "mpp", paid["mpp"], task='Pay; "me", now #complete').returncode == 0
    assert submit(cli, "card", paid["card"]).returncode == 6
    press_pay(card_link(cli, paid["card"]))
    cli.ok("pay", "card", paid["card"])
    mainnet, refunded = unique_request_id(), unique_request_id()
    on_mainnet = {"SVC_BASE_URL": mainnet_sandbox.url}
    assert submit(cli, "x402", mainnet, env=on_mainnet).returncode == 0
    assert submit(cli, "mpp", refunded, task="Fragile #fail-delivery").returncode == 9

    rows = list(csv.DictReader(io.StringIO(exported(cli, "csv"))))
    by_id = {r["request_id"]: r for r in rows}
    for rail, r in paid.items():
        ref = cli.ok("receipt", r, "--json").json()["settlement"]["reference"]
        assert ref and by_id[r]["settlement_reference"] == ref and by_id[r]["rail"] == rail
    total = Decimal(cli.ok("spend", "--json").json()["total_usd"])
    assert sum(Decimal(r["amount_usd"]) for r in rows) == total == Decimal("6.000000")
    currency = {r: by_id[r]["currency"] for r in (*paid.values(), mainnet)}
    assert currency == {paid["x402"]: "USDC_TEST", mainnet: "USD"} | {
        paid["mpp"]: "USD",
        paid["card"]: "USD",
    }
    assert (by_id[paid["x402"]]["network"], by_id[mainnet]["network"]) == (SEPOLIA, MAINNET)
    assert {by_id[r]["origin"] for r in paid.values()} == {f"http://{host(sandbox.url)}"}
    assert all(r["profile"] == "default" and _moment(r) for r in rows)

    expected = {"USD": Decimal("4.500000"), "USDC_TEST": Decimal("1.500000")}
    for fmt, reader in (("beancount", beancount_totals), ("ledger", journal_totals)):
        path = tmp_path / f"paid.{fmt}"
        path.write_text(exported(cli, fmt))
        assert reader(path, 6) == expected, fmt  # five charges and a refund
    payees = set(hledger(tmp_path / "paid.ledger", "payees").split())
    assert payees == {host(sandbox.url), host(mainnet_sandbox.url)}
