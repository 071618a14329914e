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
from urllib.parse import urlsplit

from svc.address import is_address
from svc.engines.export_entry import CURRENCY, TEST_CURRENCY, Entry
from svc.money import atomic_to_usd
from svc.numbers import iso
from svc.origin import host_of, origin_of
from svc.rail_table import CARD, MPP, X402
from svc.store.spend import Window

EXPENSES = "Expenses:Svc:Tasks"
RAIL_ACCOUNTS = {MPP: "Assets:Svc:MPP", CARD: "Assets:Svc:Card"}
WALLETS = "Assets:Svc:X402"  # x402 pays from a wallet: one account under it per wallet
OTHER_ACCOUNT = "Assets:Svc:Other"  # a rail svc does not know (another runner's row)
UNKNOWN = "Unknown"  # a wallet or a service a row does not name
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]")
# What each commodity is, for the books' declarations (beancount's `name`, a journal's comment).
COMMODITY_NAMES = {
    CURRENCY: "US dollars (cards, MPP, USDC on a mainnet)",
    TEST_CURRENCY: "test money, worth nothing (USDC on a test network such as Base Sepolia)",
}


def _plain(text: object) -> str:
    """One line, no control or direction characters."""
    return " ".join(_CONTROL.sub(" ", "" if text is None else str(text)).split())


def _amount(atomic: int) -> str:
    """Signed (a refund, the other side of a posting): money.py formats only amounts."""
    return ("-" if atomic < 0 else "") + str(atomic_to_usd(abs(atomic)))


def _account(e: Entry) -> str:
    if e.rail == X402:
        return f"{WALLETS}:{_wallet(e.payer)}"
    return RAIL_ACCOUNTS.get(e.rail, OTHER_ACCOUNT)


def _wallet(payer: str | None) -> str:
    """A wallet as the last part of an account name, legal in all three formats: an address's
    first and last four digits (`0xf39f-2266`, as wallets show one), letters and digits only."""
    text = _plain(payer)
    if is_address(text):
        text = text.lower()  # the checksum's case is not the address: one wallet, one account
    kept = _NOT_ALNUM.sub("", text)
    if not kept:
        return UNKNOWN
    short = kept if len(kept) <= 12 else f"{kept[:6]}-{kept[-4:]}"
    # beancount: an account's part starts with a capital letter or a digit.
    return short if short[0].isdigit() or short[0].isupper() else f"W-{short}"


def _payee(e: Entry) -> str:
    """The service paid, as people name it: its host, and its port unless the default."""
    if not e.origin or not urlsplit(e.origin).hostname:
        return f"{UNKNOWN} service"
    return host_of(origin_of(e.origin))


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
        ("origin", e.origin),
        ("profile", e.profile),
    ]
    return [(key, str(value)) for key, value in pairs if value]


def _in_order(values: list[str]) -> list[str]:
    """Each value once, where it first came."""
    return list(dict.fromkeys(values))


def _used_currencies(found: list[Entry]) -> dict[str, list[str]]:
    """The commodities each account holds, the expenses first (USD when nothing was paid)."""
    held: dict[str, list[str]] = {EXPENSES: []}
    for e in found:
        for account in (EXPENSES, _account(e)):
            held.setdefault(account, []).append(e.currency)
    order = [EXPENSES, *sorted(set(held) - {EXPENSES})]
    return {account: sorted(set(held[account])) or [CURRENCY] for account in order}


def _postings(e: Entry, indent: str) -> list[str]:
    """The expense and the account it was paid from, in the entry's commodity."""
    return [
        f"{indent}{EXPENSES}  {_amount(e.amount_atomic)} {e.currency}",
        f"{indent}{_account(e)}  {_amount(-e.amount_atomic)} {e.currency}",
    ]


# --- CSV ---------------------------------------------------------------------------------------

# New columns go at the end: scripts that read the columns by position keep working.
CSV_COLUMNS = (
    "date",
    "time",  # ISO 8601 with the UTC offset: the local time the date column's day is of
    "kind",
    "rail",
    "amount_usd",
    "currency",  # USD, or USDC_TEST for test money (export_entry.TEST_CURRENCY)
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
    "origin",
    "profile",
)


def _cell(text: object) -> str:
    """A text cell a spreadsheet shows as text: one that would start a formula gets a `'`."""
    value = _plain(text)
    return "'" + value if value[:1] in ("=", "+", "-", "@") else value


def _local_time(at: float) -> str:
    """`2026-11-26T13:20:44+01:00`: the local time with its offset, so it names one moment."""
    return datetime.fromtimestamp(at).astimezone().isoformat(timespec="seconds")


def _csv_row(e: Entry) -> list[str]:
    ours = {
        "date": e.day,
        "time": _local_time(e.at),
        "amount_usd": _amount(e.amount_atomic),
        "currency": e.currency,
    }
    texts = {**dict(_metadata(e)), "task": e.task}  # from outside: made inert
    return [ours[c] if c in ours else _cell(texts.get(c, "")) for c in CSV_COLUMNS]


def csv_(found: list[Entry], span: Window) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    writer.writerows(_csv_row(e) for e in found)
    return out.getvalue()


# --- beancount ---------------------------------------------------------------------------------


def _bean_string(text: object) -> str:
    return '"' + _plain(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _bean_declarations(found: list[Entry], first: str) -> list[str]:
    """The commodities and the accounts, opened for the commodities they hold."""
    held = _used_currencies(found)
    lines = [f'option "operating_currency" "{CURRENCY}"', ""]
    for currency in sorted({c for cs in held.values() for c in cs}):
        lines += [f"{first} commodity {currency}"]
        lines += [f"  name: {_bean_string(COMMODITY_NAMES[currency])}"]
    return lines + [f"{first} open {account} {','.join(cs)}" for account, cs in held.items()]


def _bean_transaction(e: Entry) -> list[str]:
    what = ("refund: " if e.kind == "refund" else "") + _plain(e.task)
    lines = ["", f"{e.day} * {_bean_string(_payee(e))} {_bean_string(what)}"]
    lines += [f"  {key}: {_bean_string(value)}" for key, value in _metadata(e)]
    return [*lines, *_postings(e, "  ")]


def beancount(found: list[Entry], span: Window) -> str:
    first = min((e.day for e in found), default=span.since or "1970-01-01")
    lines = _bean_declarations(found, first)
    for e in found:
        lines += _bean_transaction(e)
    return "\n".join(lines) + "\n"


# --- a ledger / hledger journal ----------------------------------------------------------------

# Written for both ledger and hledger, and declared for their strict checks: `hledger --strict`,
# `hledger check payees`, `ledger --strict --check-payees` read it without an error or a warning.
# The description is the payee alone (ledger reads no `payee | note`); the task's text is the
# `task` tag, whose value runs to the end of its line in both (after its key, no tag starts).


def _journal_text(text: object) -> str:
    """A description or tag value: `;` would open a comment, `,` end a tag, `|` split payee."""
    return " ".join(_plain(text).replace(";", " ").replace(",", " ").replace("|", "/").split())


def _journal_payee(e: Entry) -> str:
    """The payee as a transaction's description: one that began with `(` would read as a code,
    with `*` or `!` as a status (a host in a shared ledger is text another machine wrote)."""
    return _journal_text(_payee(e)).lstrip("(*! ") or f"{UNKNOWN} service"


def _journal_tags(e: Entry) -> list[tuple[str, str]]:
    pairs = [("task", _journal_text(e.task))]
    pairs += [(key, _journal_text(value)) for key, value in _metadata(e)]
    return [(key, value) for key, value in pairs if value]


def _journal_declarations(found: list[Entry]) -> list[str]:
    """`account`, `commodity` (with its display precision), `payee` and `tag` directives for
    everything the transactions use: forms both ledger and hledger read."""
    held = _used_currencies(found)
    lines = [f"account {account}" for account in held]
    for currency in sorted({c for cs in held.values() for c in cs}):
        lines += [f"commodity {currency}  ; {COMMODITY_NAMES[currency]}"]
        lines += [f"    format {_amount(1_000_000)} {currency}"]
    lines += [f"payee {p}" for p in _in_order([_journal_payee(e) for e in found])]
    tags = _in_order([key for e in found for key, _ in _journal_tags(e)])
    return lines + [f"tag {key}" for key in tags] + [""]


def _journal_transaction(e: Entry) -> list[str]:
    lines = [f"{e.day} * {_journal_payee(e)}"]
    lines += [f"    ; {key}: {value}" for key, value in _journal_tags(e)]
    return [*lines, *_postings(e, "    "), ""]


def ledger(found: list[Entry], span: Window) -> str:
    lines = _journal_declarations(found)
    for e in found:
        lines += _journal_transaction(e)
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
                "currency": e.currency,
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
