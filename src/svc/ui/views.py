"""How commands' answers look on a terminal: `engines/` and `cli/` hand over data, this draws it.

Every function takes the `Output` and plain data (dicts from the server or the ledger); all the
text it prints is cleaned by `Output`'s methods or `svc.ui.render`.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from svc.numbers import instant
from svc.origin import TrustedURL
from svc.rail_table import CARD, MPP, X402
from svc.sanitize import clean
from svc.ui import views_spend
from svc.ui.guide import show_markdown, status_words
from svc.ui.render import STATE_STYLES, event_line, server_now
from svc.ui.render import task_panel as panel
from svc.ui.tables import ID_COLUMN, REQUEST_COLUMN, Column, Stacked, Styled
from svc.words import ago, plural, usd, usd_atomic

if TYPE_CHECKING:
    from svc.ui.output import Output

RECENT_EVENTS = 10
# `svc tasks`: on a narrow terminal the task ids stay whole and the others give way (highest
# `drop` first; the request id last, and `--json` always has it).
REQUEST_LIST_COLUMN = Column("request id", whole=True, drop=1)
TASK_LIST_COLUMNS = (
    Column("created", drop=3),
    ID_COLUMN,
    Column("state", fold=True),
    Column("paid", right=True, drop=4),
    Column("rail", drop=6),
    Column("status", drop=5),
    REQUEST_LIST_COLUMN,
    Column("task", fold=True, drop=2),
)
# Narrower than this, each request id goes under its task id: side by side the two whole ids
# took 61 of 80 columns, and the task's text and time gave way.
STACK_IDS_BELOW = 140


def state_cell(state: object) -> Styled:
    text = "-" if state is None else str(state)
    return Styled(text, STATE_STYLES.get(text, "cyan") if state else "")


# --- tasks -----------------------------------------------------------------------------


def events(out: Output, task: dict[str, Any], items: list[Any], *, with_id: bool = False) -> None:
    """Event lines of `task`; `with_id` when other tasks' lines share the screen."""
    now = server_now(task)
    task_id = str(task.get("id")) if with_id else None
    for event in items:
        if isinstance(event, dict):
            out.draw(event_line(event, now, task_id))


def task_panel(out: Output, task: dict[str, Any], *, err: bool = False) -> None:
    out.draw(panel(task), err=err)


def task(out: Output, doc: dict[str, Any]) -> None:
    """The last events, then the task's panel."""
    items = doc.get("events")
    if isinstance(items, list) and items:
        events(out, doc, items[-RECENT_EVENTS:])
    task_panel(out, doc)


def watch_report(out: Output, ended: list[dict[str, Any]], many: int) -> None:
    """Panels for a few tasks; counts and the ones that did not complete for many."""
    if len(ended) <= many:
        for doc in ended:
            task_panel(out, doc)
        return
    counts: dict[str, int] = {}
    for doc in ended:
        counts[str(doc.get("state"))] = counts.get(str(doc.get("state")), 0) + 1
    summary = ", ".join(f"{n} {state}" for state, n in sorted(counts.items()))
    out.line(f"{len(ended)} tasks: {summary}")
    others = [t for t in ended if t.get("state") != "completed"]
    for doc in others[:many]:
        why = doc.get("error") or doc.get("reason") or ""
        out.line(clean(f"  {doc.get('id')} {doc.get('state')} {why}".rstrip(), 300))
    if len(others) > many:
        out.line(f"  … and {len(others) - many} more (see svc tasks)")


def gone_tasks(out: Output, task_ids: list[str], named: int) -> None:
    """One warning for many tasks the service answered 404 for, naming the first `named`: a
    line each drowned everything else the watch said."""
    more = len(task_ids) - named
    out.warn(
        f"{len(task_ids)} tasks are gone from the service (it answered 404: forgotten after "
        "their retention, or never this agent's), so they are marked gone in the ledger and "
        "not watched: {ids}"
        + (f" and {more} more" if more > 0 else "")
        + "; `svc tasks prune --gone` removes them from the ledger",
        ids=", ".join(task_ids[:named]),
    )


def task_list(out: Output, listing: Any) -> None:
    """`svc tasks`: the ledger's rows (outside text: task ids and previews are stored as they
    came), ids whole, times relative, money as people read it."""
    if not listing.rows:
        out.note(
            "no task matches" if listing.filtered else "no tasks submitted from this machine yet"
        )
        return

    stack = out.width is not None and out.width < STACK_IDS_BELOW
    cells = []
    for row in listing.rows:
        paid = usd_atomic(row.amount_atomic) if row.paid_for else "-"
        rail = (row.method or "-") if row.paid_for else "-"
        state = state_cell(row.state)
        if not row.task_id and row.status_reason:  # never `-  -`: say why there is no task
            state = Styled(row.status_reason, "yellow")
        if row.request_id in listing.errors:
            state = Styled(f"{row.state or '-'} (not refreshed)", "yellow")
        preview = clean(row.task_preview, 60, single_line=True)
        created = ago(row.created_at, listing.now)
        ids: list[object] = [row.task_id or "-", row.request_id]
        if stack:
            ids = [Stacked(tuple(ids))]
        cells.append([created, ids[0], state, paid, rail, row.status, *ids[1:], preview])
    columns: tuple[Column, ...] = TASK_LIST_COLUMNS
    if stack:
        columns = tuple(column for column in columns if column != REQUEST_LIST_COLUMN)
    out.table(columns, cells)


KEPT_NAMED = 3  # rows named in the line about kept ones; `svc tasks --json` lists them all


def forgotten(out: Output, doc: dict[str, Any]) -> None:
    """`svc tasks forget` / `prune` on a terminal: each row removed from the ledger."""
    for row in doc["forgotten"]:
        out.line("forgot {what}", what=_row_label(row))


def forgotten_note(out: Output, doc: dict[str, Any], verb: str, nothing: str) -> None:
    """On stderr, piped or not: the rows kept and why, or why nothing was `verb` (`nothing`):
    a script that read an empty list must still be told."""
    gone, kept = doc["forgotten"], doc["kept"]
    if not kept:
        if not gone:
            out.note(f"nothing {verb}: {nothing}")
        return
    more = len(kept) - KEPT_NAMED
    rows = plural(len(kept), "row")
    head = f"kept {rows} that" if gone else f"nothing {verb}: {rows} matched, each"
    out.note(
        f"{head} paid or may have; `svc spend` reads them (--force removes them too): "
        "{ids}" + (f" and {more} more" if more > 0 else ""),
        ids=", ".join(_row_label(row) for row in kept[:KEPT_NAMED]),
    )


def _row_label(row: dict[str, Any]) -> str:
    task = row.get("task_id")
    return f"task {task} (request {row['request_id']})" if task else f"request {row['request_id']}"


# --- payments --------------------------------------------------------------------------


def probe(out: Output, doc: dict[str, Any]) -> None:
    """`submit --probe`: the challenges of the 402 and what would be paid."""
    rows: list[list[object]] = []
    offers = doc["challenges"]
    for o in offers[X402]:
        rows.append([X402, o["amount_usd"], o["pay_to"], o["network"]])
    for c in offers[MPP]:
        note = c["method"] + ("" if c["usable"] else f" (unusable: {c['why_not']})")
        rows.append([MPP, c["amount_usd"], c["realm"], note])
    if offers[CARD]:
        c = offers[CARD]
        rows.append([CARD, c["amount_usd"], c["pay_url"], "hosted page"])
    columns = ("rail", Column("amount (USD)", right=True), "to", "details")
    out.table(columns, rows, title="402 challenges")
    verdict, rail = doc["would_pay"], doc["would_pay"]["rail"]
    if verdict["within_policy"]:
        out.line(
            "Would pay {amount} by {rail} to {to}. Nothing was signed or paid.",
            amount=usd(verdict["amount_usd"]),
            rail=rail,
            to=verdict["pay_to"],
        )
    else:
        out.line(
            "Would NOT pay by {rail}: {why}. Nothing was signed or paid.",
            rail=rail,
            why=verdict["refusal"],
        )


def dry_run(out: Output, doc: dict[str, Any]) -> None:
    """`submit --dry-run`: what would be sent and paid, against the person's limit."""
    out.line(
        "Would submit a {size}-character task for {email} and pay {price} by {pay} "
        "({verdict} your limit of {cap}; price from the {source}). The task was not sent.",
        size=len(doc["request"]["body"]["task"]),
        email=doc["request"]["body"]["email"],
        price=usd(doc["price_usd"]),  # `1.50 USD` for people; the JSON keeps 1.500000
        pay=doc["pay"],
        verdict="within" if doc["within_policy"] else "ABOVE",
        cap=usd(doc["max_price_usd"]),
        source=doc["price_source"],
    )


def spend(out: Output, doc: dict[str, Any]) -> None:
    """`svc spend`: the summary first, the paid tasks with `--tasks` (svc.ui.views_spend),
    then the outstanding authorizations (ledger rows are outside text: every cell is
    cleaned). Amounts as people read them; JSON keeps them exact."""
    views_spend.draw(out, doc)
    if doc.get("outstanding"):
        outstanding(out, doc)


def _relative(stamp: object, now: float) -> str:
    when = instant(stamp)
    return "-" if when is None else ago(when, now)


def outstanding(out: Output, doc: dict[str, Any]) -> None:
    """Signed authorizations not known spent, void or expired: money that may still leave."""
    now = time.time()  # JSON keeps the ISO times; a person reads them relative, as in tasks
    rows = [
        [
            _relative(item["signed_at"], now),
            item["rail"],
            usd(item["amount_usd"]),
            item["status"],
            _relative(item["valid_until"], now) if item["valid_until"] else "until spent or void",
            item["request_id"],
        ]
        for item in doc["outstanding"]
    ]
    columns = ("signed", "rail", Column("amount", right=True), "status", "valid until")
    out.table((*columns, REQUEST_COLUMN), rows, title="outstanding authorizations")
    out.line(
        "outstanding: {amount} signed and not known spent; it counts against the daily cap "
        "until spent, void or expired",
        amount=usd(doc["outstanding_usd"]),
    )


def show_qr(out: Output, link: TrustedURL, *, error: str = "l", border: int | None = None) -> None:
    """A QR code of a link that passed the origin gate, on a terminal's stderr (segno,
    optional: the link is printed anyway)."""
    _require_gate(link)
    if not out.stderr_tty:
        return
    try:
        import io

        import segno
    except ImportError:
        return
    buffer = io.StringIO()
    try:
        qr = segno.make(str(link), error=error)
        if border is None:
            qr.terminal(out=buffer, compact=True)
        else:
            qr.terminal(out=buffer, compact=True, border=border)
    except (OSError, ValueError):
        return
    out.picture(buffer.getvalue())


def _require_gate(link: object) -> None:
    if not isinstance(link, TrustedURL):  # what mypy checks, held at run time too
        raise TypeError("only a TrustedURL from svc.origin is drawn or opened")


NO_BROWSER = "no graphical session here, so no browser was opened: open the link yourself"


SSH_SESSION = ("SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY")


def graphical_session() -> bool:
    """A browser may be opened: `BROWSER` is set (the person's own choice: a remote editor sets
    it to open links on the person's machine), or else a desktop here, not over SSH: macOS,
    Windows, or an X11/Wayland display.

    Without one (a container, a console), Python's webbrowser falls back to text browsers
    such as lynx, which would take over the terminal the person is reading. Over SSH the
    desktop is the remote machine's: a browser would open on a screen nobody there looks at
    (macOS, Windows) or crawl through a forwarded display; the link and the QR code do."""
    import os
    import sys

    if os.environ.get("BROWSER"):
        return True
    if any(os.environ.get(name) for name in SSH_SESSION):
        return False
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def open_browser(url: TrustedURL) -> bool:
    """Open a link that passed the origin gate in a browser; False when there is none (the
    link is shown anyway)."""
    _require_gate(url)
    import contextlib
    import os
    import webbrowser

    if not graphical_session():
        return False
    with contextlib.suppress(Exception):
        browser = webbrowser.get()
        # A display said nothing of a browser (a container's DISPLAY): the one Python finds
        # may be lynx or w3m, which would take over the terminal. BROWSER is the person's.
        if type(browser) is webbrowser.GenericBrowser and not os.environ.get("BROWSER"):
            return False
        return bool(browser.open(str(url)))
    return False


# --- advisor ---------------------------------------------------------------------------


def quote(out: Output, doc: dict[str, Any]) -> None:
    status = clean(doc["status"], 60, single_line=True)
    out.line(f"Status: {status} — {status_words(status)}", style="bold")
    out.line("Price of this quote: {price} (no funds moved)", price=usd(doc["priceUsd"]))
    out.line()
    show_markdown(out, doc["guide"])
    if doc["guideUrl"] not in doc["guide"]:  # the guide often ends with it already: say it once
        out.line()
        out.line(f"Wallet-free guide: {clean(doc['guideUrl'], 4000, single_line=True)}")


# --- identity --------------------------------------------------------------------------


def entitlements(out: Output, doc: Any) -> None:
    plans = doc.get("plans") if isinstance(doc, dict) else None
    if not isinstance(plans, list) or not plans:
        out.line("No active plans.")
        return
    rows = []
    for plan in plans:
        if not isinstance(plan, dict):
            continue
        remaining = plan.get("remaining")
        if isinstance(remaining, dict):
            shown = ", ".join(f"{k} {v}" for k, v in remaining.items())
        else:
            shown = "pay as you go" if remaining is None else str(remaining)
        rows.append([plan.get("plan_id"), plan.get("service"), plan.get("status"), shown])
    out.table(("plan", "service", "status", "remaining"), rows, lines=True)
    if isinstance(doc, dict) and isinstance(doc.get("credentials"), list):
        out.line(f"shared by {plural(len(doc['credentials']), 'credential')}", style="dim")
