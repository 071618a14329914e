"""The local ledger: every submission, its idempotency key, payment proof and outcome, on this
machine (SQLite). The one engine today; `LedgerStore` is what another must provide.

The row for a submission is committed before the request leaves the machine, and the proof is
committed before it is sent, so a crash at any point can be resumed with the same request id
and the same proof: the service then returns the original task and never charges twice.

Each concern keeps its own table and module (submissions, authorizations, cards, pins); this
class names the transitions of a paid request, and a transition that moves more than one of
them (a signature, an acceptance, a void) is one transaction here.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from svc import rail_table
from svc.store.ledger.authorizations import Authorizations, LiveAuth
from svc.store.ledger.books import EVERYONE, Books, SpendGroup, Whose
from svc.store.ledger.budgets import Budget, Budgets, LimitReached, Limits
from svc.store.ledger.cards import Cards
from svc.store.ledger.database import Database as DatabaseLike
from svc.store.ledger.database import NoRowMatched, Step
from svc.store.ledger.fleet_settings import CapRule, FleetSettings
from svc.store.ledger.interface import LedgerInfo, LedgerStore, RequestLocks
from svc.store.ledger.locks import request_lock, sweep_stale
from svc.store.ledger.pins import Pins
from svc.store.ledger.reads_bounded import BoundedReads
from svc.store.ledger.rows import (
    EXPOSED,
    Authorization,
    AuthState,
    CardState,
    PayState,
    Submission,
    Written,
)
from svc.store.ledger.sqlite import Database
from svc.store.ledger.submissions import Submissions, check_updated
from svc.store.ledger.task_handles import TaskHandles

DETAIL_LIMIT = 300  # characters of a refusal's words kept in a row


class Ledger:
    """The rows of every submission; every status change is one of the named transitions.

    `Ledger()` is the local SQLite file; `Ledger.on(database, locks, runner)` puts the same
    rules on another engine's database (the fleet ledger on PostgreSQL)."""

    def __init__(self, path: Path | None = None, *, runner: str | None = None) -> None:
        db = Database(path)
        folder = db.path.parent / "locks"
        if db.unwritable is None:
            sweep_stale(folder)  # what older versions left, once
        self._open(db, lambda rid, wait: request_lock(folder, rid, wait), runner)
        self.path: Path | None = db.path

    @classmethod
    def on(cls, database: DatabaseLike, locks: RequestLocks, runner: str | None) -> Ledger:
        ledger = cls.__new__(cls)
        ledger._open(database, locks, runner)
        ledger.path = None
        return ledger

    def _open(self, db: DatabaseLike, locks: RequestLocks, runner: str | None) -> None:
        self._db = db
        self._locks = locks
        self.runner = runner
        self._rows = Submissions(db, runner)
        self._auths = Authorizations(db, runner)
        self._cards = Cards(db)
        self._pins = Pins(db)
        self._settings = FleetSettings(db, runner)
        self._books = Books(db)
        self._budgets = Budgets(db, runner)

    def close(self) -> None:
        self._db.close()

    def request_lock(
        self, request_id: str, on_wait: Callable[[str], None] | None = None
    ) -> AbstractContextManager[None]:
        """Held while a request id is handled; another holder waits (then sees its outcome)."""
        return self._locks(request_id, on_wait)

    def integrity(self) -> str:
        return self._db.integrity()

    def bounded(self) -> BoundedReads:
        """The reads whose cost is what they return (`svc tasks`' filters, a poll's news)."""
        return BoundedReads(self._db)

    def describe(self) -> LedgerInfo:
        """Which engine, where, and at which schema version (for `svc doctor`)."""
        return LedgerInfo(
            self._db.describe(),
            self._db.schema_version(),
            self.runner,
            tuple(self._db.missing_rights()),
        )

    def task_handles(self) -> TaskHandles:
        return TaskHandles(self._db)

    def unwritable(self) -> str | None:
        return self._db.unwritable_reason()

    # --- reading ----------------------------------------------------------------------------

    def get(self, request_id: str) -> Submission | None:
        return self._rows.get(request_id)

    def accepted_among(self, request_ids: Sequence[str]) -> dict[str, Submission]:
        return self._rows.accepted_among(request_ids)

    def submissions(self, *, limit: int | None = None) -> list[Submission]:
        return self._rows.newest_first(limit=limit)

    def count_submissions(self, *, since: float | None = None) -> int:
        return self._rows.count(since=since)

    def recent_same_task(self, body: dict[str, Any], since: float) -> list[Submission]:
        return self._rows.recent_same_task(body, since)

    def authorizations(self, *, since: float = 0.0) -> list[Authorization]:
        return self._auths.since(since)

    def exposure(self, since: float) -> int:
        """µUSD spent or still exposed (signed, not void, not expired) since `since`."""
        return self._auths.exposure(since, time.time())

    # --- the books: a window's charges, summed in SQL ---------------------------------------

    def spend_sums(
        self, start: float, end: float | None = None, whose: Whose = EVERYONE
    ) -> list[SpendGroup]:
        return self._books.sums(start, end, whose)

    def charges(
        self, start: float, end: float | None = None, whose: Whose = EVERYONE
    ) -> list[Submission]:
        return self._books.charges(start, end, whose)

    def open_items(self, whose: Whose = EVERYONE) -> list[Submission]:
        return self._books.open_items(whose)

    def find(self, task_or_request_id: str) -> Submission | None:
        return self._books.find(task_or_request_id)

    def exposed_authorizations(self, since: float) -> list[Authorization]:
        return self._auths.exposed_since(since)

    def authorizations_of(self, request_id: str) -> list[Authorization]:
        return self._auths.of_request(request_id)

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

        `origin` binds the request's proof; `base_url` is where its task lives (with a path).

        One statement, so on either engine its own transaction (autocommit, as `mark_sent`'s):
        the same commit without a BEGIN and a COMMIT around it. A store opened to read only
        refuses it in `write()`, before any statement, as it refuses every other write."""
        if self._db.unwritable_reason() is None:
            added = self._rows.add(request_id, origin, email, body, base_url or origin)
        else:
            with self._db.write():  # raises the store's own error (exit 9)
                added = self._rows.add(request_id, origin, email, body, base_url or origin)
        found = added or self._rows.get(request_id)  # read back only when it was there already
        assert found is not None
        return found

    def mark_challenged(self, request_id: str) -> Written:
        """The request goes out without a proof."""
        return self._rows.set(request_id, status=PayState.CHALLENGED)

    def reserve(
        self,
        request_id: str,
        *,
        rail: str,
        amount_atomic: int,
        origin: str,
        valid_before: float | None,
        cap_atomic: int | None = None,
        since: float,
        limits: Limits | None = None,
        cap: CapRule | None = None,
    ) -> int | None:
        """Hold `amount_atomic` against the cap and `limits` before signing; None when held,
        else the exposure already there. Check and hold are one transaction across processes."""
        return self._auths.reserve(
            request_id,
            rail=rail,
            amount_atomic=amount_atomic,
            origin=origin,
            valid_before=valid_before,
            cap_atomic=cap_atomic,
            since=since,
            limits=limits,
            cap=cap,
        )

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
    ) -> Written:
        """Journal a signed proof before it is sent, so every retry re-sends this one.

        `proof` is None when the proof itself is a secret (kept in the secret store)."""
        auth = LiveAuth(request_id, rail, amount_atomic, origin, valid_before, fingerprint)
        signed, written = self._rows.update(
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
            runner=self.runner,  # who holds the proof now (an MPP one: in its secrets)
        )
        live = self._auths.authorize(auth, pay_to=pay_to, network=network)
        self._transition(request_id, [*live, signed], len(live), durable=True)
        return written

    def release_reservation(self, request_id: str) -> None:
        """Signing did not happen (no key, a refusal after the hold): nothing is exposed."""
        self._auths.release(request_id)

    def mark_sent(self, request_id: str) -> Written:
        """The journaled proof is on its way."""
        return self._rows.set(request_id, status=PayState.SENT)

    def mark_accepted(
        self,
        request_id: str,
        *,
        task_id: str | None,
        state: str | None,
        http_status: int,
        billing: str | None,
        receipt: str | None,
        usage_error: str | None,
        card: bool = True,
    ) -> Written:
        """The service accepted: the row, its authorization spent, and its card payment used
        (`card` False: none can be recorded for the request, so that UPDATE is not sent)."""
        accepted, written = self._rows.update(
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
        steps = [
            accepted,
            self._auths.status(
                request_id, AuthState.SPENT, among=(AuthState.LIVE, AuthState.REFUSED)
            ),
        ]
        if card:
            steps.append(self._cards.status(request_id, CardState.USED))
        self._transition(request_id, steps, 0)
        return written

    def _transition(
        self, request_id: str, steps: Sequence[Step], row_at: int, *, durable: bool = False
    ) -> None:
        """A transition's transaction (one round trip on a fleet), whose step `row_at` is the
        request's row: found, or nothing of it is committed (Submissions.set's rule)."""
        try:
            self._db.transaction(steps, durable=durable, required=row_at)
        except NoRowMatched:
            check_updated(request_id, 0)

    def mark_rejected(
        self,
        request_id: str,
        error: str,
        http_status: int | None = None,
        detail: str | None = None,
    ) -> Written:
        """Refused before any proof went out: nothing was charged. `detail`: why, in words."""
        return self._rows.set(
            request_id,
            status=PayState.REJECTED,
            error=error,
            http_status=http_status,
            error_detail=None if detail is None else detail[:DETAIL_LIMIT],
        )

    def mark_refused(self, request_id: str, error: str, http_status: int | None = None) -> Written:
        """A proof was refused without the spec's word that it is void: keep it for resends."""
        refused, written = self._rows.update(
            request_id, status=PayState.REFUSED, error=error, http_status=http_status
        )
        live = self._auths.status(request_id, AuthState.REFUSED, among=(AuthState.LIVE,))
        self._transition(request_id, [refused, live], 0)
        return written

    def mark_unknown(self, request_id: str, error: str, http_status: int | None = None) -> Written:
        """A proof went out and no readable answer came back: it may have been charged."""
        return self._rows.set(
            request_id, status=PayState.UNKNOWN, error=error, http_status=http_status
        )

    def void_proof(self, request_id: str, error: str, *, frees_cap: bool) -> Written:
        """The spec's codes prove the proof void: a new one may be signed. An x402
        authorization still counts until it expires (`frees_cap` False): whoever holds it can
        settle it, whatever the server said."""
        void, written = self._rows.update(
            request_id, proof=None, proof_fp=None, status=PayState.VOID, error=error
        )
        after = AuthState.VOID if frees_cap else AuthState.REFUSED
        steps = [
            void,
            self._auths.status(request_id, after, among=(AuthState.LIVE, AuthState.REFUSED)),
            self._cards.status(request_id, CardState.DEAD),
        ]
        self._transition(request_id, steps, 0)
        return written

    def mark_refunded(self, request_id: str, refunded_atomic: int | None, billing: str) -> Written:
        refunded, written = self._rows.update(
            request_id, status=PayState.REFUNDED, refunded_atomic=refunded_atomic, billing=billing
        )
        self._transition(
            request_id, [refunded, self._auths.refunded(request_id, refunded_atomic)], 0
        )
        return written

    def note_billing(self, request_id: str, billing: str) -> Written:
        return self._rows.set(request_id, billing=billing)

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
    ) -> Written:
        """A hosted card page was started; a person has to pay it."""
        started = self._cards.started(
            request_id,
            payment_id=payment_id,
            pay_url=pay_url,
            status_url=status_url,
            checkout_url=checkout_url,
            amount_atomic=amount_atomic,
        )
        awaiting, written = self._rows.update(
            request_id,
            method=rail_table.CARD,
            amount_atomic=amount_atomic,
            pay_to=recipient,
            status=PayState.AWAITING_CARD,
        )
        self._transition(request_id, [started, awaiting], 1, durable=True)
        return written

    def card_dead(self, request_id: str, error: str) -> Written:
        """The card payment failed or was cancelled: it can never be spent."""
        void, written = self._rows.update(
            request_id, proof=None, proof_fp=None, status=PayState.VOID, error=error
        )
        steps = [
            self._cards.status(request_id, CardState.DEAD),
            void,
            self._auths.status(request_id, AuthState.VOID, among=EXPOSED),
        ]
        self._transition(request_id, steps, 1)
        return written

    def card_complete(self, request_id: str) -> None:
        self._cards.set_status(request_id, CardState.COMPLETE)

    def card_payment(self, request_id: str | None = None) -> dict[str, Any] | None:
        """A request's card payment, or (no id) the latest one still waiting for a person."""
        return self._cards.get(request_id)

    # --- what the service said about a task since ------------------------------------------

    def set_task_state(self, task_id: str, state: str) -> None:
        self._rows.set_task_state(task_id, state)

    def forget(self, request_id: str, *, money_too: bool = False) -> bool:
        """Remove a submission's row (`svc tasks forget`, `prune`), and the MCP Tasks handles
        that follow it. Its authorizations stay: they are what the daily cap and `svc spend`'s
        outstanding list count.

        The decision is taken under the request lock, so a run paying for this very request
        in another process is waited for, never cut under: what the caller read earlier may
        have become money since (a journaled row signed, sent, accepted)."""
        with self.request_lock(request_id), self._db.write():
            row = self._rows.get(request_id)
            if row is None or (row.money and not money_too):
                return False
            self._rows.delete(request_id)
            self.task_handles().drop_following(request_id, row.task_id, row.base_url)
            return True

    # --- recipients pinned on first use, and hosts confirmed for links, per origin -----------

    def pinned_recipient(self, origin: str, network: str, asset: str) -> str | None:
        return self._pins.recipient(origin, network, asset)

    def pinned_recipients(self, origin: str) -> list[tuple[str, str]]:
        """(network, pay_to) of every recipient pinned for an origin."""
        return self._pins.recipients(origin)

    def pin_recipient(self, origin: str, network: str, asset: str, pay_to: str) -> None:
        self._pins.pin_recipient(origin, network, asset, pay_to)

    def link_host_confirmed(self, origin: str, host: str) -> bool:
        return self._pins.link_host_confirmed(origin, host)

    def confirm_link_host(self, origin: str, host: str) -> None:
        self._pins.confirm_link_host(origin, host)

    # --- budgets and the breaker --------------------------------------------------

    def budgets(self) -> list[Budget]:
        return self._budgets.all()

    def set_budget(self, budget: Budget) -> None:
        self._budgets.set(budget)

    def unset_budget(self, scope: str, name: str, window: str | None) -> int:
        return self._budgets.unset(scope, name, window)

    def budget_used(self, budget: Budget, now: float, since: float | None = None) -> int:
        return self._budgets.used(budget, now, since)

    def reset_breaker(self, runner: str) -> None:
        self._budgets.reset_breaker(runner)

    def breaker_state(self, runner: str, after: int, now: float) -> LimitReached | None:
        return self._budgets.breaker(runner, after, now)

    # --- settings the fleet shares (the daily cap's one value) -----------------------------

    def fleet_setting(self, name: str) -> str | None:
        return self._settings.get(name)

    def set_fleet_setting(self, name: str, value: str | None) -> None:
        self._settings.set(name, value)


if TYPE_CHECKING:  # mypy checks here that the SQLite engine provides the whole interface
    _ENGINE: type[LedgerStore] = Ledger
