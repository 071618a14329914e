"""The export writers one format at a time (the e2e test runs the real readers: bean-check,
hledger, ledger, Python's csv): the escaping of texts a person or a server supplied, and what
the books name: the payee, the commodity of test money, one account per wallet, the CSV's time."""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import replace
from datetime import datetime
from decimal import Decimal

import pytest

from svc.engines.export_entry import Entry, is_test_network
from svc.engines.export_formats import WRITERS
from svc.store.spend import Window

EVIL = 'a "b" \\c; d, e | f\n2020-01-01 * x\r\n  Assets:Evil  1 USD\x1b[2J\u202e'


MAINNET, SEPOLIA = "eip155:8453", "eip155:84532"
WALLET = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"


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
        origin="http://evil;x|y.example:8402",
        profile="work, ; home",
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
    [head] = [line for line in lines if line.startswith("20")]
    assert head == "2026-11-26 * evil x/y.example:8402"  # the payee: no `;` comment, no `|` note
    tags = [line for line in lines if line.startswith("    ;")]
    assert all(line.count(";") == 1 and "," not in line for line in tags), tags
    assert (
        tags[0].startswith('    ; task: a "b" \\c d e / f 2020')
        and "    ; profile: work home" in tags
    )
    postings = [line for line in lines if line.startswith("    ") and ";" not in line]
    postings = [p for p in postings if not p.lstrip().startswith("format ")]
    assert [p.split()[0] for p in postings] == ["Expenses:Svc:Tasks", "Assets:Svc:X402:Unknown"]


def test_the_journal_declares_what_its_transactions_use() -> None:
    found = [entry(), replace(entry(), rail="card"), paid(SEPOLIA, WALLET)]
    directives = [line for line in written("ledger", *found).splitlines() if line[:1].isalpha()]
    assert directives == [
        "account Expenses:Svc:Tasks",
        "account Assets:Svc:Card",
        "account Assets:Svc:X402:0xf39f-2266",
        "account Assets:Svc:X402:Unknown",
        "commodity USD  ; US dollars (cards, MPP, USDC on a mainnet)",
        "commodity USDC_TEST  ; test money, worth nothing (USDC on a test network such as"
        " Base Sepolia)",
        "payee evil x/y.example:8402",
        "payee 127.0.0.1:8402",
        *(f"tag {key}" for key in TAGS),
    ]


TAGS = ("task", "kind", "rail", "request_id", "task_id", "settlement_reference", "payment_id")
TAGS += ("runner", "origin", "profile", "payer", "network")  # in the order first used


def paid(network: str | None, payer: str | None = None, rail: str = "x402") -> Entry:
    return replace(
        entry(task="paid"),
        rail=rail,
        network=network,
        payer=payer,
        origin="http://127.0.0.1:8402",
        profile=None,
    )


def currencies(fmt: str, *found: Entry) -> list[str]:
    """The commodity of each transaction's expense posting, in order."""
    postings = re.findall(r"^ +Expenses:Svc:Tasks +-?[0-9.]+ (\S+)$", written(fmt, *found), re.M)
    return list(postings)


def test_test_network_money_is_never_booked_as_usd_beside_mainnet_money() -> None:
    found = [paid(MAINNET), paid(SEPOLIA), paid(SEPOLIA, rail="card"), paid("base-sepolia")]
    expected = ["USD", "USDC_TEST", "USD", "USDC_TEST"]  # a card is USD whatever it says
    assert currencies("beancount", *found) == currencies("ledger", *found) == expected
    rows = csv.DictReader(io.StringIO(written("csv", *found)))
    assert [r["currency"] for r in rows] == expected
    doc = json.loads(written("json", *found))
    assert [e["currency"] for e in doc["entries"]] == expected


@pytest.mark.parametrize(
    ("network", "test"),
    [
        (SEPOLIA, True),
        ("base-sepolia", True),
        ("eip155:11155111", True),
        ("solana-devnet", True),
        (MAINNET, False),
        ("base", False),
        (None, False),
    ],
)
def test_which_networks_hold_test_money(network: str | None, test: bool) -> None:
    assert is_test_network(network) is test


def test_each_wallet_pays_from_its_own_account() -> None:
    other = "0x" + "AB" * 20
    found = [paid(MAINNET, WALLET), paid(MAINNET, WALLET.lower()), paid(MAINNET, other)]
    found += [paid(MAINNET, "=evil;\n Assets:Evil"), paid(MAINNET, None)]
    for fmt in ("beancount", "ledger"):
        accounts = re.findall(r"^ +(Assets:\S+) +-", written(fmt, *found), re.M)
        assert accounts == [
            "Assets:Svc:X402:0xf39f-2266",
            "Assets:Svc:X402:0xf39f-2266",  # the checksum's case does not make another wallet
            "Assets:Svc:X402:0xabab-abab",
            "Assets:Svc:X402:W-evilAs-Evil",
            "Assets:Svc:X402:Unknown",
        ], fmt


@pytest.mark.parametrize(
    ("origin", "payee"),
    [
        ("https://api.example.com:443", "api.example.com"),
        ("http://127.0.0.1:8402", "127.0.0.1:8402"),
        (None, "Unknown service"),
        ("not a url", "Unknown service"),
    ],
)
def test_the_payee_is_the_service_and_the_task_is_the_narration(
    origin: str | None, payee: str
) -> None:
    one = replace(paid(MAINNET), origin=origin, task="Translate: hello")
    bean = [line for line in written("beancount", one).splitlines() if " * " in line]
    assert bean == [f'2026-11-26 * "{payee}" "Translate: hello"']
    journal = written("ledger", one).splitlines()
    assert f"2026-11-26 * {payee}" in journal and "    ; task: Translate: hello" in journal


def test_a_hosts_text_cannot_make_a_journal_code_or_status() -> None:
    one = replace(paid(MAINNET), origin="http://(*evil;x|y.example:8402")
    [head] = [line for line in written("ledger", one).splitlines() if line.startswith("20")]
    assert head == "2026-11-26 * evil x/y.example:8402"


def test_csv_time_carries_its_offset_and_new_columns_come_last() -> None:
    header, row = list(csv.reader(io.StringIO(written("csv", entry()))))
    assert header[:16] == [
        *("date", "time", "kind", "rail", "amount_usd", "currency", "task_id", "request_id"),
        *("settlement_reference", "payment_id", "runner", "payer", "recipient", "network"),
        *("asset", "task"),
    ]
    assert header[16:] == ["origin", "profile"]
    moment = datetime.fromisoformat(row[1])
    assert moment.tzinfo is not None and moment.timestamp() == entry().at
    assert row[0] == moment.date().isoformat()  # the day and the time agree
    assert row[16:] == ["http://evil;x|y.example:8402", "work, ; home"]
