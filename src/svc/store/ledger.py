"""The local ledger: every submission, its idempotency key, payment proof and outcome.

The row for a submission is committed before the request leaves the machine, and the proof is
committed before it is sent, so a crash at any point can be resumed with the same request id
and the same proof: the service then returns the original task and never charges twice.

SQLite in WAL mode with a busy timeout: several `svc` processes may write at once.

Durability is chosen per write. The writes that hold money, a signed proof and a card payment
id, are durable commits (`synchronous = FULL`: the WAL is fsynced, and with it every commit
before it, so the journaled row and a recipient pin are on disk before any proof exists). Every
other commit is NORMAL: it survives a crash of the process, and at worst a power cut forgets it,
which leaves the row at an earlier state whose resume re-sends the same journaled proof (the
service answers a repeated request id with the original task); a row forgotten before its
proof was signed cost nothing. An fsync is what a paid request costs the client most.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, fields
from enum import StrEnum
from pathlib import Path
from typing import Any, NamedTuple

from svc.origin import origin_of
from svc.store.paths import data_dir, ensure_private_dir

SCHEMA = """
CREATE TABLE IF NOT EXISTS submissions (
    request_id   TEXT PRIMARY KEY,
    base_url     TEXT NOT NULL,
    email        TEXT NOT NULL,
    task_preview TEXT NOT NULL,
    body         TEXT NOT NULL,
    method       TEXT,
    status       TEXT NOT NULL,
    proof        TEXT,
    amount_atomic INTEGER,
    pay_to       TEXT,
    payer        TEXT,
    network      TEXT,
    asset        TEXT,
    task_id      TEXT,
    state        TEXT,
    http_status  INTEGER,
    billing      TEXT,
    error        TEXT,
    created_at   REAL NOT NULL,
    updated_at   REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS submissions_task ON submissions(task_id);
CREATE TABLE IF NOT EXISTS recipients (
    base_url   TEXT NOT NULL,
    network    TEXT NOT NULL,
    asset      TEXT NOT NULL,
    pay_to     TEXT NOT NULL,
    pinned_at  REAL NOT NULL,
    PRIMARY KEY (base_url, network, asset)
);
CREATE TABLE IF NOT EXISTS link_hosts (
    origin       TEXT NOT NULL,
    host         TEXT NOT NULL,
    confirmed_at REAL NOT NULL,
    PRIMARY KEY (origin, host)
);
CREATE TABLE IF NOT EXISTS card_payments (
    request_id   TEXT PRIMARY KEY,
    payment_id   TEXT NOT NULL,
    pay_url      TEXT NOT NULL,
    status_url   TEXT NOT NULL,
    checkout_url TEXT,
    amount_atomic INTEGER NOT NULL,
    status       TEXT NOT NULL,
    created_at   REAL NOT NULL,
    updated_at   REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS authorizations (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    request_id    TEXT NOT NULL,
    rail          TEXT NOT NULL,
    amount_atomic INTEGER NOT NULL,
    origin        TEXT NOT NULL,
    signed_at     REAL NOT NULL,
    valid_before  REAL,
    fingerprint   TEXT,
    pay_to        TEXT,
    network       TEXT,
    status        TEXT NOT NULL,
    refunded_atomic INTEGER NOT NULL DEFAULT 0,
    updated_at    REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS authorizations_request ON authorizations(request_id);
CREATE INDEX IF NOT EXISTS authorizations_signed ON authorizations(signed_at);
"""

# Columns added after the first release; added to older ledgers on open (ALTER is guarded).
MIGRATIONS: dict[str, str] = {
    "receipt": "TEXT",  # the rail's receipt header (Payment-Receipt, PAYMENT-RESPONSE)
    "usage_error": "TEXT",  # svc-usage-error: served but not billed
    "refunded_atomic": "INTEGER",  # µUSD refunded (svc-billing status=refunded)
    "origin": "TEXT",  # the normalised origin the request (and its proof) is bound to
    "proof_fp": "TEXT",  # fingerprint of the live proof (an MPP credential itself is a secret)
}


class PayState(StrEnum):
    """Where a paid request is in its life. Only the named Ledger transitions set these."""

    JOURNALED = "journaled"  # row written, nothing sent yet
    CHALLENGED = "challenged"  # sent without proof (a 402 expected)
    SIGNED = "signed"  # a proof is signed (or a card paid) and journaled, not yet sent
    SENT = "sent"  # the proof left; waiting for the answer
    ACCEPTED = "accepted"  # the service answered 202 with a task
    REJECTED = "rejected"  # refused before any proof was sent; nothing charged
    REFUSED = "refused"  # a proof was refused in a way that does not void it: it is kept
    UNKNOWN = "unknown"  # a proof was sent and no readable answer came back
    VOID = "void"  # the proof is proven void by the spec's codes; a new one may be signed
    AWAITING_CARD = "awaiting_card"  # a card payment waits for a person
    REFUNDED = "refunded"  # charged, then refunded in full (the service could not deliver)


class CardState(StrEnum):
    PENDING = "pending"  # the hosted page is started; a person has to pay
    COMPLETE = "complete"  # paid; its id is the proof
    USED = "used"  # the request it paid was accepted
    DEAD = "dead"  # failed, cancelled or refunded: can never be spent


class AuthState(StrEnum):
    """One signed authorization's standing against the daily cap (exposure)."""

    RESERVED = "reserved"  # the cap was checked and the amount held; signing follows
    LIVE = "live"  # signed; may still be settled by whoever holds it
    SPENT = "spent"  # accounted as paid (a 202 to the request that carried it)
    REFUSED = "refused"  # the server refused it; an x402 one can still be settled until expiry
    VOID = "void"  # proven void (MPP, card: the spec's codes); no longer counts


# Statuses of ledgers written before the lifecycle had names of its own.
LEGACY_STATUS = {"prepared": "journaled", "paying": "sent", "reserving": "journaled"}

# Kept as module names for callers that read rows (svc tasks, spend, watch).
ACCEPTED = PayState.ACCEPTED
UNKNOWN = PayState.UNKNOWN
AWAITING_CARD = PayState.AWAITING_CARD
REFUNDED = PayState.REFUNDED
# Authorizations that count against the cap while unexpired (SPENT counts for the day).
EXPOSED = (AuthState.RESERVED, AuthState.LIVE, AuthState.REFUSED)


@dataclass
class Submission:
    request_id: str
    base_url: str
    email: str
    task_preview: str
    body: str
    method: str | None
    status: str
    proof: str | None
    amount_atomic: int | None
    pay_to: str | None
    payer: str | None
    network: str | None
    asset: str | None
    task_id: str | None
    state: str | None
    http_status: int | None
    billing: str | None
    error: str | None
    created_at: float
    updated_at: float
    receipt: str | None = None
    usage_error: str | None = None
    refunded_atomic: int | None = None
    origin: str | None = None
    proof_fp: str | None = None

    @property
    def has_proof(self) -> bool:
        """A live proof is journaled (in the row, or for MPP in the secret store)."""
        return bool(self.proof or self.proof_fp)

    @property
    def paid(self) -> bool:
        return self.status == PayState.ACCEPTED and self.has_proof

    @property
    def paid_for(self) -> bool:
        """An amount was signed for it and the proof is kept (what `svc tasks` shows as paid)."""
        return bool(self.amount_atomic) and self.has_proof

    def public_dict(self) -> dict[str, Any]:
        """The row as shown to users: everything but the proof and the body."""
        hidden = ("proof", "body", "receipt", "proof_fp")
        doc = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in hidden}
        doc["has_proof"] = self.has_proof
        return doc


@dataclass
class Authorization:
    """One signed payment (or a reservation for one) and its standing against the cap."""

    id: int
    request_id: str
    rail: str
    amount_atomic: int
    origin: str
    signed_at: float
    valid_before: float | None
    fingerprint: str | None
    pay_to: str | None
    network: str | None
    status: str
    refunded_atomic: int
    updated_at: float

    def exposed(self, now: float) -> bool:
        """Still counts as money that may leave: not known spent, not void, not expired."""
        unexpired = self.valid_before is None or self.valid_before > now
        return self.status in EXPOSED and unexpired


def ledger_path() -> Path:
    return data_dir() / "ledger.sqlite3"


WAL_SWITCH_SECONDS = 30.0  # as busy_timeout: how long an open waits for another to finish


class Ledger:
    """The rows of every submission; every status change is one of the named transitions."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or ledger_path()
        ensure_private_dir(self.path.parent)
        fresh = not self.path.exists()
        self._db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        if fresh:
            self.path.chmod(0o600)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA busy_timeout = 30000")
        self._enable_wal()
        self._db.execute("PRAGMA synchronous = NORMAL")
        self._db.executescript(SCHEMA)
        self._migrate()

    def _enable_wal(self) -> None:
        """WAL mode (set once per file, then a no-op). Switching a fresh file needs an
        exclusive lock and SQLite gives up at once instead of calling the busy handler, so
        threads or processes opening a new ledger together (a batch's workers) retry here."""
        deadline = time.monotonic() + WAL_SWITCH_SECONDS
        delay = 0.005
        while True:
            try:
                self._db.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
            time.sleep(delay)
            delay = min(delay * 2, 0.2)

    def _migrate(self) -> None:
        have = {row["name"] for row in self._db.execute("PRAGMA table_info(submissions)")}
        for name, kind in MIGRATIONS.items():
            if name in have:
                continue
            try:
                self._db.execute(f"ALTER TABLE submissions ADD COLUMN {name} {kind}")
            except sqlite3.OperationalError as exc:  # another process added it first
                if "duplicate column" not in str(exc):
                    raise
        if self._db.execute("PRAGMA user_version").fetchone()[0] < 2:
            self._migrate_names()

    def _migrate_names(self) -> None:
        """Ledgers of the first release: old status names, pins keyed by base-URL text."""

        with self._write():
            for old, new in LEGACY_STATUS.items():
                self._db.execute("UPDATE submissions SET status = ? WHERE status = ?", (new, old))
            self._db.execute(
                "UPDATE submissions SET status = 'challenged'"
                " WHERE status = 'sent' AND proof IS NULL"
            )
            for row in self._db.execute("SELECT request_id, base_url FROM submissions").fetchall():
                self._db.execute(
                    "UPDATE submissions SET origin = COALESCE(origin, ?) WHERE request_id = ?",
                    (origin_of(row["base_url"]), row["request_id"]),
                )
            for row in self._db.execute("SELECT rowid, base_url FROM recipients").fetchall():
                self._db.execute(
                    "UPDATE OR IGNORE recipients SET base_url = ? WHERE rowid = ?",
                    (origin_of(row["base_url"]), row["rowid"]),
                )
            self._db.execute("PRAGMA user_version = 2")

    @contextmanager
    def _write(self, *, durable: bool = False) -> Iterator[None]:
        """One IMMEDIATE transaction: a check and the write it allows cannot interleave.

        `durable` fsyncs the commit (and every NORMAL commit before it, which share the WAL)."""
        if durable:
            self._db.execute("PRAGMA synchronous = FULL")
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        finally:
            if durable:
                self._db.execute("PRAGMA synchronous = NORMAL")

    def close(self) -> None:
        self._db.close()

    # --- reading ----------------------------------------------------------------------------

    def integrity(self) -> str:
        """SQLite's own check of the file ("ok" when sound): for doctor-style checks and tests."""
        return str(self._db.execute("PRAGMA integrity_check").fetchone()[0])

    def get(self, request_id: str) -> Submission | None:
        row = self._db.execute(
            "SELECT * FROM submissions WHERE request_id = ?", (request_id,)
        ).fetchone()
        return Submission(**dict(row)) if row else None

    def submissions(self, *, limit: int | None = None) -> list[Submission]:
        sql = "SELECT * FROM submissions ORDER BY created_at DESC"
        if limit:
            sql += f" LIMIT {int(limit)}"
        return [Submission(**dict(row)) for row in self._db.execute(sql)]

    def recent_same_task(self, body: dict[str, Any], since: float) -> list[Submission]:
        """Submissions of this very body (task and e-mail) created since `since`, newest first."""
        rows = self._db.execute(
            "SELECT * FROM submissions WHERE body = ? AND created_at >= ? ORDER BY created_at DESC",
            (json.dumps(body), since),
        )
        return [Submission(**dict(row)) for row in rows]

    def authorizations(self, *, since: float = 0.0) -> list[Authorization]:
        rows = self._db.execute(
            "SELECT * FROM authorizations WHERE signed_at >= ? ORDER BY signed_at", (since,)
        )
        return [Authorization(**dict(row)) for row in rows]

    # --- the lifecycle of a paid request: each transition is one method ---------------------

    def journal(
        self,
        request_id: str,
        origin: str,
        email: str,
        body: dict[str, Any],
        base_url: str | None = None,
    ) -> Submission:
        """Write the row before the first byte is sent. Idempotent per request id.

        `origin` binds the request's proof; `base_url` is where its task lives (with a path)."""
        now = time.time()
        preview = " ".join(str(body.get("task", "")).split())[:120]
        row = (request_id, base_url or origin, origin, email, preview, json.dumps(body))
        with self._write():
            self._db.execute(
                "INSERT OR IGNORE INTO submissions (request_id, base_url, origin, email,"
                " task_preview, body, status, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (*row, PayState.JOURNALED, now, now),
            )
        found = self.get(request_id)
        assert found is not None
        return found

    def mark_challenged(self, request_id: str) -> None:
        """The request goes out without a proof."""
        self._set(request_id, status=PayState.CHALLENGED)

    def reserve(
        self,
        request_id: str,
        *,
        rail: str,
        amount_atomic: int,
        origin: str,
        valid_before: float | None,
        cap_atomic: int | None,
        since: float,
    ) -> int | None:
        """Hold `amount_atomic` against the cap before signing; None when held, else the
        exposure already there. Check and hold are one transaction across processes."""
        now = time.time()
        with self._write():
            self._release(request_id)  # a dead run's hold (the caller holds the request's lock)
            if cap_atomic is not None:  # the sum reads every row of the day: only with a cap
                exposure = self._exposure(since, now)
                if exposure + amount_atomic > cap_atomic:
                    return exposure
            self._db.execute(
                "INSERT INTO authorizations (request_id, rail, amount_atomic, origin, signed_at,"
                " valid_before, status, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    request_id,
                    rail,
                    amount_atomic,
                    origin,
                    now,
                    valid_before,
                    AuthState.RESERVED,
                    now,
                ),
            )
        return None

    def _exposure(self, since: float, now: float) -> int:
        row = self._db.execute(
            "SELECT COALESCE(SUM(amount_atomic - refunded_atomic), 0) FROM authorizations"
            " WHERE signed_at >= ? AND (status = ? OR (status IN (?, ?, ?)"
            " AND (valid_before IS NULL OR valid_before > ?)))",
            (since, AuthState.SPENT, *EXPOSED, now),
        ).fetchone()
        return int(row[0])

    def exposure(self, since: float) -> int:
        """µUSD spent or still exposed (signed, not void, not expired) since `since`."""
        return self._exposure(since, time.time())

    def record_signature(
        self,
        request_id: str,
        *,
        rail: str,
        proof: str | None,
        fingerprint: str,
        amount_atomic: int,
        pay_to: str,
        payer: str,
        network: str,
        asset: str,
        valid_before: float | None,
        origin: str,
    ) -> None:
        """Journal a signed proof before it is sent, so every retry re-sends this one.

        `proof` is None when the proof itself is a secret (kept in the secret store)."""
        auth = _LiveAuth(request_id, rail, amount_atomic, origin, valid_before, fingerprint)
        with self._write(durable=True):
            self._authorize(auth, pay_to=pay_to, network=network)
            self._set(
                request_id,
                method=rail,
                proof=proof,
                proof_fp=fingerprint,
                amount_atomic=amount_atomic,
                pay_to=pay_to,
                payer=payer,
                network=network,
                asset=asset,
                status=PayState.SIGNED,
            )

    def _authorize(self, auth: _LiveAuth, *, pay_to: str, network: str) -> None:
        """Turn the request's hold into a live authorization (or add one, for a ledger older
        than holds), in the caller's transaction."""
        now = time.time()
        held = self._db.execute(
            "UPDATE authorizations SET status = ?, fingerprint = ?, pay_to = ?, network = ?,"
            " valid_before = COALESCE(?, valid_before), updated_at = ?"
            " WHERE id = (SELECT MAX(id) FROM authorizations WHERE request_id = ?"
            " AND status = ?)",
            (
                AuthState.LIVE,
                auth.fingerprint,
                pay_to,
                network,
                auth.valid_before,
                now,
                auth.request_id,
                AuthState.RESERVED,
            ),
        )
        if held.rowcount:
            return
        self._db.execute(
            "INSERT INTO authorizations (request_id, rail, amount_atomic, origin,"
            " signed_at, valid_before, fingerprint, pay_to, network, status, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                auth.request_id,
                auth.rail,
                auth.amount_atomic,
                auth.origin,
                now,  # signed_at
                auth.valid_before,
                auth.fingerprint,
                pay_to,
                network,
                AuthState.LIVE,
                now,
            ),
        )

    def release_reservation(self, request_id: str) -> None:
        """Signing did not happen (no key, a refusal after the hold): nothing is exposed."""
        self._release(request_id)

    def _release(self, request_id: str) -> None:
        self._db.execute(
            "DELETE FROM authorizations WHERE request_id = ? AND status = ?",
            (request_id, AuthState.RESERVED),
        )

    def mark_sent(self, request_id: str) -> None:
        """The journaled proof is on its way."""
        self._set(request_id, status=PayState.SENT)

    def mark_accepted(
        self,
        request_id: str,
        *,
        task_id: str,
        state: str,
        http_status: int,
        billing: str | None,
        receipt: str | None,
        usage_error: str | None,
    ) -> None:
        with self._write():
            self._set(
                request_id,
                status=PayState.ACCEPTED,
                task_id=task_id,
                state=state,
                http_status=http_status,
                billing=billing,
                error=None,
                receipt=receipt,
                usage_error=usage_error,
            )
            self._set_auth(request_id, AuthState.SPENT, among=(AuthState.LIVE, AuthState.REFUSED))
            self._set_card(request_id, CardState.USED)

    def mark_rejected(self, request_id: str, error: str, http_status: int | None = None) -> None:
        """Refused before any proof went out: nothing was charged."""
        self._set(request_id, status=PayState.REJECTED, error=error, http_status=http_status)

    def mark_refused(self, request_id: str, error: str, http_status: int | None = None) -> None:
        """A proof was refused without the spec's word that it is void: keep it for resends."""
        with self._write():
            self._set(request_id, status=PayState.REFUSED, error=error, http_status=http_status)
            self._set_auth(request_id, AuthState.REFUSED, among=(AuthState.LIVE,))

    def mark_unknown(self, request_id: str, error: str, http_status: int | None = None) -> None:
        """A proof went out and no readable answer came back: it may have been charged."""
        self._set(request_id, status=PayState.UNKNOWN, error=error, http_status=http_status)

    def void_proof(self, request_id: str, error: str, *, frees_cap: bool) -> None:
        """The spec's codes prove the proof void: a new one may be signed. An x402
        authorization still counts until it expires (`frees_cap` False): whoever holds it can
        settle it, whatever the server said."""
        with self._write():
            self._set(request_id, proof=None, proof_fp=None, status=PayState.VOID, error=error)
            after = AuthState.VOID if frees_cap else AuthState.REFUSED
            self._set_auth(request_id, after, among=(AuthState.LIVE, AuthState.REFUSED))
            self._set_card(request_id, CardState.DEAD)

    def mark_refunded(self, request_id: str, refunded_atomic: int | None, billing: str) -> None:
        with self._write():
            self._set(
                request_id,
                status=PayState.REFUNDED,
                refunded_atomic=refunded_atomic,
                billing=billing,
            )
            self._db.execute(
                "UPDATE authorizations SET status = ?, refunded_atomic = ?, updated_at = ?"
                " WHERE request_id = ? AND status IN (?, ?, ?)",
                (AuthState.SPENT, refunded_atomic or 0, time.time(), request_id, *EXPOSED),
            )

    def note_billing(self, request_id: str, billing: str) -> None:
        self._set(request_id, billing=billing)

    def _set(self, request_id: str, **fields: Any) -> None:
        fields["updated_at"] = time.time()
        cols = ", ".join(f"{name} = ?" for name in fields)
        self._db.execute(
            f"UPDATE submissions SET {cols} WHERE request_id = ?",  # noqa: S608 - names are ours
            (*fields.values(), request_id),
        )

    def _set_auth(self, request_id: str, status: AuthState, *, among: tuple[str, ...]) -> None:
        marks = ", ".join("?" for _ in among)
        self._db.execute(
            f"UPDATE authorizations SET status = ?, updated_at = ?"  # noqa: S608 - marks only
            f" WHERE request_id = ? AND status IN ({marks})",
            (status, time.time(), request_id, *among),
        )

    # --- card payments waiting for a person ---------------------------------------------------

    def card_pending(
        self,
        request_id: str,
        *,
        payment_id: str,
        pay_url: str,
        status_url: str,
        checkout_url: str | None,
        amount_atomic: int,
        recipient: str,
    ) -> None:
        """A hosted card page was started; a person has to pay it."""
        now = time.time()
        with self._write(durable=True):
            self._db.execute(
                "INSERT OR REPLACE INTO card_payments (request_id, payment_id, pay_url,"
                " status_url, checkout_url, amount_atomic, status, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    request_id,
                    payment_id,
                    pay_url,
                    status_url,
                    checkout_url,
                    amount_atomic,
                    CardState.PENDING,
                    now,
                    now,
                ),
            )
            self._set(
                request_id,
                method="card",
                amount_atomic=amount_atomic,
                pay_to=recipient,
                status=PayState.AWAITING_CARD,
            )

    def card_dead(self, request_id: str, error: str) -> None:
        """The card payment failed or was cancelled: it can never be spent."""
        with self._write():
            self._set_card(request_id, CardState.DEAD)
            self._set(request_id, proof=None, proof_fp=None, status=PayState.VOID, error=error)
            self._set_auth(request_id, AuthState.VOID, among=EXPOSED)

    def card_complete(self, request_id: str) -> None:
        self._set_card(request_id, CardState.COMPLETE)

    def _set_card(self, request_id: str, status: CardState) -> None:
        self._db.execute(
            "UPDATE card_payments SET status = ?, updated_at = ? WHERE request_id = ?",
            (status, time.time(), request_id),
        )

    def card_payment(self, request_id: str | None = None) -> dict[str, Any] | None:
        """A request's card payment, or (no id) the latest one still waiting for a person."""
        if request_id is not None:
            row = self._db.execute(
                "SELECT * FROM card_payments WHERE request_id = ?", (request_id,)
            ).fetchone()
        else:
            row = self._db.execute(
                "SELECT * FROM card_payments WHERE status = ? ORDER BY updated_at DESC LIMIT 1",
                (CardState.PENDING,),
            ).fetchone()
        return dict(row) if row else None

    # --- what the service said about a task since ------------------------------------------

    def set_task_state(self, task_id: str, state: str) -> None:
        self._db.execute(
            "UPDATE submissions SET state = ?, updated_at = ? WHERE task_id = ?",
            (state, time.time(), task_id),
        )

    # --- recipients pinned on first use, per origin -----------------------------------------

    def pinned_recipient(self, origin: str, network: str, asset: str) -> str | None:
        row = self._db.execute(
            "SELECT pay_to FROM recipients WHERE base_url = ? AND network = ? AND lower(asset) = ?",
            (origin, network, asset.lower()),
        ).fetchone()
        return str(row["pay_to"]) if row else None

    def pinned_recipients(self, origin: str) -> list[tuple[str, str]]:
        """(network, pay_to) of every recipient pinned for an origin."""
        rows = self._db.execute(
            "SELECT network, pay_to FROM recipients WHERE base_url = ? ORDER BY network",
            (origin,),
        )
        return [(str(r["network"]), str(r["pay_to"])) for r in rows]

    def pin_recipient(self, origin: str, network: str, asset: str, pay_to: str) -> None:
        with self._write():
            self._db.execute(
                "INSERT OR REPLACE INTO recipients (base_url, network, asset, pay_to, pinned_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (origin, network, asset.lower(), pay_to, time.time()),
            )

    # --- hosts a person confirmed for links (claim, card pages) from an origin ---------------

    def link_host_confirmed(self, origin: str, host: str) -> bool:
        row = self._db.execute(
            "SELECT 1 FROM link_hosts WHERE origin = ? AND host = ?", (origin, host)
        ).fetchone()
        return row is not None

    def confirm_link_host(self, origin: str, host: str) -> None:
        with self._write():
            self._db.execute(
                "INSERT OR REPLACE INTO link_hosts (origin, host, confirmed_at) VALUES (?, ?, ?)",
                (origin, host, time.time()),
            )


class _LiveAuth(NamedTuple):
    """The columns of an authorization row known when a proof is signed."""

    request_id: str
    rail: str
    amount_atomic: int
    origin: str
    valid_before: float | None
    fingerprint: str
