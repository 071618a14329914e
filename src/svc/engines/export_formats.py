"""The writers of `svc spend --format`: CSV, beancount, a ledger/hledger journal and JSON.

Every text in an entry may come from outside (a task's text a person or agent typed, ids a
server sent, a runner name another machine wrote into a shared ledger), so each writer makes
it inert in its own syntax: no control character survives, CSV cells cannot start a formula,
beancount strings escape quote and backslash, and a journal's descriptions and tags lose the
characters that would open a comment or end a tag. Amounts are exact (svc/money.py).
"""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import datetime

from svc.engines.export_entry import Entry
from svc.money import atomic_to_usd
from svc.numbers import iso
from svc.rail_table import CARD, MPP, X402
from svc.store.spend import Window

CURRENCY = "USD"
EXPENSES = "Expenses:Svc:Tasks"
RAIL_ACCOUNTS = {X402: "Assets:Svc:X402", MPP: "Assets:Svc:MPP", CARD: "Assets:Svc:Card"}
OTHER_ACCOUNT = "Assets:Svc:Other"  # a rail svc does not know (another runner's row)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _plain(text: object) -> str:
    """One line, no control or direction characters."""
    return " ".join(_CONTROL.sub(" ", "" if text is None else str(text)).split())


def _amount(atomic: int) -> str:
    """Signed (a refund, the other side of a posting): money.py formats only amounts."""
    return ("-" if atomic < 0 else "") + str(atomic_to_usd(abs(atomic)))


def _account(rail: str) -> str:
    return RAIL_ACCOUNTS.get(rail, OTHER_ACCOUNT)


def _metadata(e: Entry) -> list[tuple[str, str]]:
    pairs = [
        ("kind", e.kind),
        ("rail", e.rail),
        ("request_id", e.request_id),
        ("task_id", e.task_id),
        ("settlement_reference", e.reference),
        ("payment_id", e.payment_id),
        ("runner", e.runner),
        ("payer", e.payer),
        ("recipient", e.recipient),
        ("network", e.network),
        ("asset", e.asset),
    ]
    return [(key, str(value)) for key, value in pairs if value]


# --- CSV ---------------------------------------------------------------------------------------

CSV_COLUMNS = (
    "date",
    "time",
    "kind",
    "rail",
    "amount_usd",
    "currency",
    "task_id",
    "request_id",
    "settlement_reference",
    "payment_id",
    "runner",
    "payer",
    "recipient",
    "network",
    "asset",
    "task",
)


def _cell(text: object) -> str:
    """A text cell a spreadsheet shows as text: one that would start a formula gets a `'`."""
    value = _plain(text)
    return "'" + value if value[:1] in ("=", "+", "-", "@") else value


def csv_(found: list[Entry], span: Window) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for e in found:
        time_of_day = datetime.fromtimestamp(e.at).strftime("%H:%M:%S")
        meta = dict(_metadata(e))
        texts = [meta.get(name, "") for name in CSV_COLUMNS[6:15]]
        amount = _amount(e.amount_atomic)
        row = [e.day, time_of_day, _cell(e.kind), _cell(e.rail), amount, CURRENCY]
        writer.writerow([*row, *map(_cell, texts), _cell(e.task)])
    return out.getvalue()


# --- beancount ---------------------------------------------------------------------------------


def _bean_string(text: object) -> str:
    return '"' + _plain(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def beancount(found: list[Entry], span: Window) -> str:
    first = min((e.day for e in found), default=span.since or "1970-01-01")
    accounts = [EXPENSES, *sorted({_account(e.rail) for e in found})]
    lines = [f'option "operating_currency" "{CURRENCY}"', ""]
    lines += [f"{first} open {account} {CURRENCY}" for account in accounts]
    for e in found:
        what = ("refund: " if e.kind == "refund" else "") + _plain(e.task)
        lines += ["", f'{e.day} * "svc" {_bean_string(what)}']
        lines += [f"  {key}: {_bean_string(value)}" for key, value in _metadata(e)]
        lines += [
            f"  {EXPENSES}  {_amount(e.amount_atomic)} {CURRENCY}",
            f"  {_account(e.rail)}  {_amount(-e.amount_atomic)} {CURRENCY}",
        ]
    return "\n".join(lines) + "\n"


# --- a ledger / hledger journal ----------------------------------------------------------------


def _journal_text(text: object) -> str:
    """A description or tag value: `;` would open a comment, `,` end a tag, `|` split payee."""
    return " ".join(_plain(text).replace(";", " ").replace(",", " ").replace("|", "/").split())


def ledger(found: list[Entry], span: Window) -> str:
    lines: list[str] = []
    for e in found:
        what = ("refund: " if e.kind == "refund" else "") + _journal_text(e.task)
        lines += [f"{e.day} * svc: {what}".rstrip()]
        lines += [f"    ; {key}: {_journal_text(value)}" for key, value in _metadata(e)]
        lines += [
            f"    {EXPENSES}  {_amount(e.amount_atomic)} {CURRENCY}",
            f"    {_account(e.rail)}  {_amount(-e.amount_atomic)} {CURRENCY}",
            "",
        ]
    return "\n".join(lines)


# --- JSON --------------------------------------------------------------------------------------


def json_(found: list[Entry], span: Window) -> str:
    doc = {
        "window": span.public(),
        "currency": CURRENCY,
        "total_usd": _amount(sum(e.amount_atomic for e in found)),
        "entries": [
            {
                "date": e.day,
                "at": iso(e.at),
                "amount_usd": _amount(e.amount_atomic),
                "task": e.task,
                **dict(_metadata(e)),
                "task_id": e.task_id,
                "request_id": e.request_id,
                "settlement_reference": e.reference,
            }
            for e in found
        ],
    }
    return json.dumps(doc, indent=2) + "\n"


WRITERS = {"csv": csv_, "beancount": beancount, "ledger": ledger, "json": json_}
