"""The life of one paid request, in one place: journal, origin, exposure, pins, secrets, lock.

A paid submission moves through `PayState` (journaled → challenged → signed → sent →
accepted | refused | unknown | void | rejected, and the card states). `RequestJournal` is the
only writer of those states; the submit flow, the batch and `svc pay card` drive it.

The promises it keeps, each in one method:

* **Origin.** The row records the normalised origin (scheme, host, port) it was journaled for;
  its proof is attached to a request only for that origin, and resuming the request id
  against another base URL is refused before anything is sent (exit 2).
* **One live authorization per request id.** A new proof is signed only when the row holds no
  live one, i.e. after `void` (the spec's codes). Two processes on one request id serialise on
  a lock file: the second waits, then re-sends the first one's proof (or gets its result).
* **Exposure, not just spend.** Every signature is reserved against the daily cap before it
  is made and counts until it is spent, expired (x402 `validBefore`) or, for MPP and card,
  proven void. A server's refusal does not give the money back to the cap.
* **Secrets stay in the secret store.** An MPP credential carries the SPT: it is kept in the
  secret store under the request id for resends, the ledger holds only its fingerprint, and it
  is deleted once the outcome is known.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from svc import paid_record, rail_table, telemetry
from svc.errors import OtherRunnerHoldsProofError, OutcomeUnknown, SvcError, UsageError
from svc.money import atomic_for_people as usd
from svc.money import atomic_to_usd
from svc.next_step import step
from svc.numbers import iso
from svc.origin import TrustedURL, host_of, origin_of
from svc.pay.budget import note_in_session, warning_words
from svc.pay.budget import refusal as budget_refusal
from svc.pay.policy import PolicyRefusal
from svc.store.ledger import CardState, LedgerStore, PayState, Submission, cap_day_start
from svc.store.ledger.budgets import LimitReached, Limits
from svc.store.ledger.fleet_settings import FLEET, AppliedCap, CapReached, CapRule
from svc.store.ledger.rows import Written
from svc.store.spend import unpaid_exposure
from svc.words import not_charged

if TYPE_CHECKING:
    from svc.api.answers import SubmitAnswer, Task
    from svc.pay.card import CardOffer
    from svc.pay.offer import Paid
    from svc.store.secrets import SecretStore

__all__ = [
    "CardState",
    "PayState",
    "RecipientPins",
    "RequestJournal",
    "held_journal",
    "open_journal",
]

RESERVE_SLACK_SECONDS = 5  # the window is computed again, a moment later, when signing
# Rails whose proof is itself a secret (the MPP credential carries the shared payment token).
SECRET_PROOF_RAILS = rail_table.SECRET_PROOF_NAMES


def proof_fingerprint(proof: str) -> str:
    return hashlib.sha256(proof.encode()).hexdigest()[:16]


def _proof_key(request_id: str) -> str:
    return f"proof:{request_id}"


def open_journal(
    ledger: LedgerStore,
    secrets: Callable[[], SecretStore],
    *,
    request_id: str,
    base_url: str,
    body: dict[str, Any],
    cap_atomic: int | None = None,
    limits: Limits | None = None,
    on_warning: Callable[[str], None] | None = None,
    cap: CapRule | None = None,
) -> RequestJournal:
    """Journal the request (or find it again); refuses another task or another origin.
    `limits`: the budgets, rate and breaker its hold must fit; `on_warning` hears a budget
    come near its end (once a window). `cap`: the daily cap's rule, read at the hold (on a
    fleet the value stored then), in place of a fixed `cap_atomic`.

    Without the request's lock: what it read may change before the caller holds it (a paying
    run uses `held_journal`, which journals under the lock)."""
    journal = RequestJournal(ledger, secrets, request_id, origin_of(base_url), cap_atomic, cap=cap)
    journal.limits, journal.on_warning = limits, on_warning
    journal.open(base_url, body)
    return journal


@contextmanager
def held_journal(
    ledger: LedgerStore,
    secrets: Callable[[], SecretStore],
    *,
    request_id: str,
    base_url: str,
    body: dict[str, Any],
    limits: Limits | None = None,
    on_warning: Callable[[str], None] | None = None,
    cap: CapRule | None = None,
    on_wait: Callable[[str], None] | None = None,
) -> Iterator[RequestJournal]:
    """`open_journal` under the request's lock, taken first: the row read (or written) then is
    the row as it is for as long as the lock is held, since this journal is its only writer
    meanwhile, so the journal keeps it instead of reading it back after each transition.
    Another run of the request id is waited for before its row is read (`on_wait` hears it)."""
    journal = RequestJournal(ledger, secrets, request_id, origin_of(base_url), cap=cap)
    journal.limits, journal.on_warning = limits, on_warning
    with telemetry.payment(request_id) as journal.traced, journal.hold(on_wait):
        journal.open(base_url, body)
        yield journal


def _check_resume(row: Submission, request_id: str, origin: str, body: dict[str, Any]) -> None:
    import json

    if json.loads(row.body) != body:
        same = (  # a paid request to any origin (`svc request`) is its method, URL and body
            "the same method, URL and body"
            if "request" in body
            else "the same task text and e-mail"
        )
        raise UsageError(
            f"request id {request_id} was already used for a different "
            f"{'request' if 'request' in body else 'task'}; nothing was sent; use a new id, or "
            f"{same} to resume it"
        )
    bound = row.origin or origin_of(row.base_url)
    if bound != origin:
        raise UsageError(
            f"request id {request_id} belongs to {bound}, not {origin}: its payment is never "
            "sent to another origin; nothing was sent",
            next=step("resume_on_base_url", "resume it with ", base_url=bound),
        )


class RequestJournal:
    """One request id's row, its proof, its share of the daily cap and its lock."""

    def __init__(
        self,
        ledger: LedgerStore,
        secrets: Callable[[], SecretStore],
        request_id: str,
        origin: str,
        cap_atomic: int | None = None,
        *,
        cap: CapRule | None = None,
    ) -> None:
        self.ledger = ledger
        self._secrets = secrets
        self.request_id = request_id
        self.origin = origin
        self.cap_atomic = cap_atomic
        self.cap: CapRule = cap if cap is not None else CapRule.fixed(cap_atomic)
        self.limits: Limits | None = None
        self.on_warning: Callable[[str], None] | None = None
        self._held = 0  # depth of this journal's holds of the request's lock
        self._row: Submission | None = None  # the row as it is, kept only while held
        # This journal wrote the row under the lock and started no card payment since: no
        # card_payments row can exist for the request (the acceptance skips its UPDATE).
        self._no_card = False
        self.traced: telemetry.Traced = telemetry.OFF  # the paid request's span, if traced

    def open(self, base_url: str, body: dict[str, Any]) -> Submission:
        """Journal the request, or find it again: refuses another task or another origin.

        Written first (a no-op for a request id that has a row), so a new request reads
        nothing back; a ledger opened to read only is read first, so a resume still finds
        its row there (an accepted one needs no write)."""
        email, ledger = str(body["email"]), self.ledger
        found = ledger.get(self.request_id) if ledger.unwritable() else None
        if found is None:
            found = ledger.journal(self.request_id, self.origin, email, body, base_url)
        _check_resume(found, self.request_id, self.origin, body)
        # A card payment is recorded with the move to awaiting_card, and no row goes back to
        # journaled: a row still there has none (under the lock nobody else writes its rows;
        # forgetting a money row (`force`), which keeps its card record as it keeps the auths,
        # then a new run of the same request id is the one way around it: its card's record,
        # dead or pending, stays as it was instead of being marked used by another rail).
        self._no_card = self._held > 0 and found.status == PayState.JOURNALED
        if self._held:
            self._row = found
        if found.method:  # a resume: what the journaled payment pays
            self._trace_terms(found.method, found.amount_atomic, found)
        return found

    def _trace_terms(self, rail: str, amount_atomic: int | None, to: Any) -> None:
        """The payment's terms on its span (`to`: a row, a `Paid` or a card offer)."""
        recipient = getattr(to, "pay_to", None) or getattr(to, "recipient", None)
        network, asset = getattr(to, "network", None), getattr(to, "asset", None)
        self.traced.set(
            telemetry.terms(rail, amount_atomic, network=network, asset=asset, recipient=recipient)
        )

    def _outcome(self, outcome: str, code: str | None = None) -> None:
        """What became of the payment, on its span: the state written, the service's code."""
        self.traced.set({"svc.payment.outcome": outcome, "svc.payment.code": code})

    def _wrote(self, written: Written) -> None:
        """A transition's columns, into the row kept under the lock (as the ledger has it)."""
        if self._row is not None:  # a new row (a caller may hold the old one), built directly:
            self._row = Submission(**{**vars(self._row), **written})  # replace() is 2.5x this

    @property
    def holds(self) -> bool:
        """A hold is checked before signing: a cap, a breaker or rate, or a stored budget
        (without any, the paid submit skips the sums, as it always has)."""
        if self.cap.may_cap:  # on a fleet always: its cap may be set after this process read it
            return True
        limits = self.limits
        return limits is not None and (limits.active or bool(self.ledger.budgets()))

    def row(self) -> Submission:
        """The request's row: the one kept while the lock is held, else read now."""
        if self._row is not None:
            return self._row
        row = self.ledger.get(self.request_id)
        assert row is not None  # journaled by open_journal
        if self._held:
            self._row = row
        return row

    # --- the proof ------------------------------------------------------------------------

    def proof(self) -> str | None:
        """The live proof to re-send, if any (never a second one while this one lives)."""
        row = self.row()
        if row.proof:
            return row.proof
        if not row.proof_fp:
            return None
        kept = self._secrets().get(_proof_key(self.request_id))
        if kept is None and row.runner and row.runner != self.ledger.runner:
            raise OtherRunnerHoldsProofError(
                f"the payment credential of request {self.request_id} was signed by runner "
                f"{row.runner} and lives only in its secret store: this runner neither re-sends "
                "nor re-signs it (it may have been charged)",
                next=step("resume_on_runner", runner=row.runner),
            )
        if kept is None or proof_fingerprint(kept) != row.proof_fp:
            raise OutcomeUnknown(
                f"the payment credential of request {self.request_id} is no longer in the "
                "secret store, so it cannot be re-sent; it may have been charged",
                next=step(
                    "see_tasks", tail="; never pay this request again with another credential"
                ),
            )
        return kept

    def check_origin(self, url: object) -> None:
        """The last guard before a proof leaves: only to the origin it was made for."""
        target = origin_of(str(url))
        if target != self.origin:
            raise UsageError(
                f"refusing to send the payment proof of request {self.request_id} to {target}: "
                f"it answers {self.origin}; nothing was sent"
            )

    def record(self, paid: Paid) -> None:
        """Journal a fresh proof before it leaves, so every retry re-sends this one."""
        secret = paid.rail in SECRET_PROOF_RAILS
        if secret:
            self._secrets().set(_proof_key(self.request_id), paid.proof)
        written = self.ledger.record_signature(
            self.request_id,
            rail=paid.rail,
            proof=None if secret else paid.proof,
            fingerprint=proof_fingerprint(paid.proof),
            amount_atomic=paid.amount_atomic,
            pay_to=paid.pay_to,
            payer=paid.payer,
            network=paid.network,
            asset=paid.asset,
            valid_before=paid.valid_before,
            origin=self.origin,
        )
        self._wrote(written)
        self._trace_terms(paid.rail, paid.amount_atomic, paid)

    def _forget_secret(self) -> None:
        row = self.row()
        if row.proof_fp and not row.proof:  # the proof lives in the secret store
            self._secrets().delete(_proof_key(self.request_id))

    # --- exposure against the daily cap (the policy's DailyBudget) -------------------------

    def reserve(self, rail: str, amount_atomic: int, valid_before: float | None) -> None:
        """Hold the amount against the cap before anything is signed, or refuse (exit 5)."""
        until = None if valid_before is None else valid_before + RESERVE_SLACK_SECONDS
        try:
            exposed = self.ledger.reserve(
                self.request_id,
                rail=rail,
                amount_atomic=amount_atomic,
                origin=self.origin,
                valid_before=until,
                since=cap_day_start(),
                limits=self.limits,
                cap=self.cap,
            )
        except LimitReached as reached:
            raise budget_refusal(reached, amount_atomic) from None
        except CapReached as reached:  # the cap applied at the hold, and where it came from
            exposure = reached.exposure_atomic
            raise _cap_refusal(amount_atomic, reached.cap, exposure, self._pending()) from None
        if exposed is not None:  # a ledger that answers with the exposure (a fixed cap)
            raise _cap_refusal(amount_atomic, self.cap.applied(None), exposed, self._pending())
        self._tell_warnings()

    def _pending(self) -> tuple[int, float | None]:
        """Today's exposure signed but not charged and its last expiry, for the refusal's
        words (nothing when the ledger cannot say: the refusal stands without them)."""
        try:
            today = self.ledger.authorizations(since=cap_day_start())
        except SvcError:
            return 0, None
        return unpaid_exposure(today, time.time())

    def _tell_warnings(self) -> None:
        if self.limits is None:
            return
        told, self.limits.warnings[:] = list(self.limits.warnings), []
        for warning in told:
            words = warning_words(warning)
            note_in_session(words)  # svc mcp: also a note in the tool's result
            if self.on_warning is not None:
                self.on_warning(words)

    # --- transitions ------------------------------------------------------------------------

    def sending(self, with_proof: bool) -> None:
        if with_proof:
            self._wrote(self.ledger.mark_sent(self.request_id))
        else:
            self._wrote(self.ledger.mark_challenged(self.request_id))

    def accepted(self, task: Task, answer: SubmitAnswer) -> None:
        # Noted before the ledger, which may be what fails next: the process paid either way.
        paid_record.current().accepted(self.request_id, task.id)
        written = self.ledger.mark_accepted(
            self.request_id,
            task_id=task.id,
            state=task.state,
            http_status=answer.status,
            billing=answer.billing.raw if answer.billing else None,
            receipt=answer.receipt,
            usage_error=answer.usage_error,
            card=not self._no_card,
        )
        self._wrote(written)
        self._outcome(PayState.ACCEPTED)
        self.traced.set({"svc.task.id": task.id})
        self._forget_secret()

    def served(self, http_status: int, receipt: str | None, billing: str | None = None) -> None:
        """A paid request to any origin (`svc request`) was answered: charged, as far as the
        answer says, with no task to follow (its receipt names the request id)."""
        paid_record.current().served(self.request_id)
        written = self.ledger.mark_accepted(
            self.request_id,
            task_id=None,
            state=None,
            http_status=http_status,
            billing=billing,
            receipt=receipt,
            usage_error=None,
            card=False,
        )
        self._wrote(written)
        self._outcome(PayState.ACCEPTED)

    def rejected(
        self, code: str, http_status: int | None = None, detail: str | None = None
    ) -> None:
        """Refused, or failed, before any proof went out: nothing was charged (`detail`: why,
        in words, for `svc tasks`)."""
        self.ledger.release_reservation(self.request_id)
        row = self.row()
        if row.status != PayState.AWAITING_CARD and not row.has_proof:
            self._wrote(self.ledger.mark_rejected(self.request_id, code, http_status, detail))
            self._outcome(PayState.REJECTED, code)

    def unpaid(self) -> None:
        """The server answered without asking for payment (`svc request` to a free URL): no
        money moved and none can, so the row is not kept (`svc tasks` lists what cost)."""
        if self.row().has_proof:
            return  # a journaled proof is kept whatever the server says
        self.ledger.release_reservation(self.request_id)
        self.ledger.forget(self.request_id)
        self._outcome("not_paid")

    def refused(self, code: str, http_status: int | None = None) -> None:
        """A proof was refused without proof that it is void: it is kept for the resend."""
        self._wrote(self.ledger.mark_refused(self.request_id, code, http_status))
        self._outcome(PayState.REFUSED, code)

    def found_accepted(self, task_id: str) -> None:
        """A resume found the request accepted already: the task is this run's outcome too."""
        paid_record.current().accepted(self.request_id, task_id, earlier=True)
        self._outcome("accepted_earlier")
        self.traced.set({"svc.task.id": task_id})

    def unknown(self, why: str, http_status: int | None = None) -> None:
        paid_record.current().unknown(self.request_id)
        self._wrote(self.ledger.mark_unknown(self.request_id, why, http_status))
        self._outcome(PayState.UNKNOWN)

    def void(self, code: str) -> None:
        """The spec's codes prove the proof void: a new one may be signed (within the cap)."""
        rail = rail_table.BY_NAME.get(self.row().method or rail_table.X402)
        frees_cap = rail is not None and not rail.counts_until_deadline  # x402: validBefore
        self._forget_secret()
        self._wrote(self.ledger.void_proof(self.request_id, code, frees_cap=frees_cap))
        self._outcome(PayState.VOID, code)

    def refunded(self, refunded_atomic: int | None, billing: str) -> None:
        self._wrote(self.ledger.mark_refunded(self.request_id, refunded_atomic, billing))
        self._outcome(PayState.REFUNDED)
        self._forget_secret()

    def note_billing(self, billing: str) -> None:
        self._wrote(self.ledger.note_billing(self.request_id, billing))

    # --- card payments (a person pays on a hosted page) ------------------------------------

    def card_pending(self, offer: CardOffer, link: TrustedURL | None) -> None:
        self._no_card = False  # from now on a card payment is recorded for the request
        written = self.ledger.card_pending(
            self.request_id,
            payment_id=offer.payment_id,
            pay_url=str(offer.pay_url),
            status_url=str(offer.status_url),
            checkout_url=str(link) if link else None,
            amount_atomic=offer.amount_atomic,
            recipient=offer.recipient,
        )
        self._wrote(written)
        self._trace_terms(rail_table.CARD, offer.amount_atomic, offer)
        self._outcome(PayState.AWAITING_CARD)

    def card_complete(self) -> None:
        self.ledger.card_complete(self.request_id)

    def card_dead(self, code: str) -> None:
        self._wrote(self.ledger.card_dead(self.request_id, code))
        self._outcome("card_failed", code)

    def saved_card(self) -> dict[str, Any] | None:
        return self.ledger.card_payment(self.request_id)

    # --- two processes on one request id ---------------------------------------------------

    @contextmanager
    def hold(self, on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
        """Serialise every run of this request id on this machine (re-entrant per process).
        The row this journal keeps is dropped when the outermost hold ends: from then on
        another run may write it."""
        with self.ledger.request_lock(self.request_id, on_wait):
            self._held += 1
            try:
                yield
            finally:
                self._held -= 1
                if not self._held:
                    self._row, self._no_card = None, False


def _cap_refusal(
    amount_atomic: int, cap: AppliedCap, exposed: int, pending: tuple[int, float | None]
) -> Exception:
    """The refusal names the value the hold was checked against, and whose it is: on a fleet
    the operator may have changed it since this runner started; and what of the exposure
    was signed but not charged, until when it counts (`pending`: µUSD and the last expiry)."""
    cap_atomic = cap.atomic or 0  # refused: there was a cap
    whose = "the fleet ledger's" if cap.source == FLEET else f"this runner's, {cap.source}"
    atomic, until = pending
    unpaid = ""
    if atomic:
        unpaid = f"; {not_charged(atomic_to_usd(atomic), None if until is None else iso(until))}"
    return PolicyRefusal(
        f"refusing to pay: {usd(amount_atomic)} would exceed the daily cap of "
        f"{usd(cap_atomic)} ({whose}; {usd(exposed)} spent or "
        f"authorized and not expired today{unpaid})",
        code="daily_cap_exceeded",
        next=step("raise_daily_cap", "nothing was signed or paid; "),
    )


# --- the per-request lock: a lock file the kernel releases if the holder dies ----------------


class RecipientPins:
    """Recipients pinned on first use, keyed by the normalised origin (not the URL text)."""

    def __init__(self, ledger: Callable[[], LedgerStore], base_url: str) -> None:
        self._ledger = ledger
        self.origin: str = origin_of(base_url)

    def pinned(self, network: str, asset: str) -> str | None:
        return self._ledger().pinned_recipient(self.origin, network, asset)

    def pin(self, network: str, asset: str, pay_to: str) -> None:
        self._ledger().pin_recipient(self.origin, network, asset, pay_to)


class LinkHosts:
    """Hosts the person trusted for a server's links (svc.origin.HostTrust), pinned per origin
    beside the recipients: yes if `host` was confirmed for `origin` before; else the face's
    `confirm` asks once and the answer is pinned; never without one (None: nobody to ask)."""

    def __init__(
        self,
        ledger: Callable[[], LedgerStore],
        has_ledger: Callable[[], bool],
        confirm: Callable[[str, str, str], bool] | None,
    ) -> None:
        self._ledger = ledger
        self._has_ledger = has_ledger  # a reader need not create a ledger to find no pin
        self._confirm = confirm

    def __call__(self, origin: str, host: str, what: str) -> bool:
        if self._has_ledger() and self._ledger().link_host_confirmed(origin, host):
            return True
        if self._confirm is None or not self._confirm(host_of(origin), host, what):
            return False
        self._ledger().confirm_link_host(origin, host)
        return True
