"""A paid submission, at most once, by any rail (x402, MPP, card).

The flow drives the request's lifecycle (`svc.pay.journal.RequestJournal`); it never writes a
status itself.

1. The request is journaled (request id, body, origin) before the first byte is sent, and every
   run of one request id holds its lock.
2. The request goes out without proof; the 402 is checked against the policy (price, network,
   asset, recipient pinned per origin, the daily cap as exposure), paid by the rail, and the
   proof journaled before the identical request is re-sent with it, only to that origin.
3. Any retry (this process's or a later `svc submit --request-id`) re-sends the same request
   id and the same proof, which the service answers with the original task.
4. A new proof is signed only when the spec's codes prove the last one void. Any other refusal
   of a proof keeps it: a later run re-sends it, never a second signature.
5. If the answer to a request that carried a proof is lost or unreadable, the outcome is
   unknown (exit 10); the row says so and the exact resume command is named.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from svc import rail_table, words
from svc.api.answers import parse_billing
from svc.api.ids import request_id_arg
from svc.context import AppContext
from svc.engines.auth import free_call_auth, with_bearer
from svc.engines.task_rules import only_submission_fields
from svc.errors import (
    HumanNeeded,
    LedgerUnavailableError,
    NotFound,
    OutcomeUnknown,
    PaymentFailed,
    ProtocolError,
    SvcError,
    Unavailable,
    UsageError,
)
from svc.next_step import Next, step
from svc.origin import TrustedURL
from svc.pay.budget import limits_for
from svc.pay.card import CardCheckout
from svc.pay.errors import Action, classify, to_error
from svc.pay.journal import PayState, RequestJournal, held_journal
from svc.pay.mpp import SptSource
from svc.pay.rails import PaidAuth, RailParts, build_rail, settle_card
from svc.pay.wallet import load_signer
from svc.rail_table import CARD, MPP, X402
from svc.store.secrets import profile_key
from svc.testing_hooks import crash_point

if TYPE_CHECKING:
    from svc.api.answers import SubmitAnswer, Task
    from svc.pay.errors import Row
    from svc.pay.policy import PaymentPolicy
    from svc.pay.rails import Rail
    from svc.store.ledger import Submission

TASK_PRICE_USD = "1.500000"  # the spec's flat fee; the 402 challenge is what is checked
MAX_FRESH_CHALLENGES = 1  # settlement_failed / identity_invalid: pay a fresh 402 once a run
MAX_START_OVERS = 1  # a dead payment (refunded, consumed, failed, released): once a run
MAX_PROVIDER_RETRIES = 3  # payment_provider_unavailable: re-send unchanged, with backoff
MAX_CARD_FINISHES = 1  # payment_incomplete: wait on statusUrl once more
# Codes whose handling is to send the same request again later (the resume command says how).
SAME_AGAIN = ("payment_provider_unavailable", "rate_limit_exceeded")


@dataclass
class SubmitResult:
    task: dict[str, Any]
    request_id: str
    billing: str | None
    replayed: bool
    rail: str = rail_table.DEFAULT

    @property
    def terms(self) -> dict[str, str]:
        """What the `svc-billing` answer says (status, method, amount_usd, payment_id); none
        when the answer carried none."""
        return parse_billing(self.billing) if self.billing else {}


def new_request_id() -> str:
    return f"req_{uuid.uuid4().hex}"


def validate_request_id(value: str) -> str:
    """The one rule for ids (`svc.api.ids`): also refuses `..` and friends before any send."""

    return request_id_arg(value, "request id")


def resume_step(request_id: str, body: dict[str, Any], lead: str = "") -> Next:
    """The step that resumes a request without paying again: the same request id, e-mail and
    task (each face words it: the CLI as the exact command, `svc mcp` as the tool call)."""
    return step(
        "resume_submit",
        lead,
        request_id=request_id,
        email=str(body["email"]),
        task=str(body.get("task", "")),
    )


class DuplicateSubmission(UsageError):
    """The same task for the same person within the duplicate window: a retrying caller is the
    usual cause and a second payment the costly outcome, so every face refuses it unless the
    caller says so. `earlier` is the submission it repeats; each face words the way around."""

    default_code = "duplicate_submission"

    def __init__(self, body: dict[str, Any], earlier: Submission, now: float) -> None:
        what = f"task {earlier.task_id}" if earlier.task_id else f"request {earlier.request_id}"
        ago = max(0, int(now - earlier.created_at))
        facts = {"request_id": earlier.request_id, "task_id": earlier.task_id or ""}
        super().__init__(
            f"not submitted: the same task for {body['email']} was submitted {ago} s ago "
            f"({what}); submitting it again pays again",
            next=step("allow_duplicate", **facts),
        )
        self.earlier = earlier


def refuse_duplicate(app: AppContext, body: dict[str, Any]) -> None:
    """The one duplicate rule of every face: DuplicateSubmission when this very task and
    e-mail were submitted within the window. A caller who gave a request id or allowed a
    duplicate does not ask."""
    import time

    earlier = recent_duplicate(app, body)
    if earlier is not None:
        raise DuplicateSubmission(body, earlier, time.time())


def recent_duplicate(app: AppContext, body: dict[str, Any]) -> Submission | None:
    """The latest submission of this very task and e-mail within the duplicate window."""
    import time

    window = app.settings.duplicate_window_seconds
    if window <= 0 or not app.has_ledger():  # the fleet's shared ledger counts: no local file
        return None
    rows = app.ledger.recent_same_task(body, time.time() - window)
    live = [r for r in rows if r.status not in (PayState.REJECTED, PayState.VOID)]
    return live[0] if live else None


def journal_for(
    app: AppContext,
    body: dict[str, Any],
    request_id: str | None,
    rail: str = rail_table.DEFAULT,
    *,
    base_url: str | None = None,
) -> AbstractContextManager[RequestJournal]:
    """The request's journal under its lock (written then, or found again for a resume): a
    run that waited for another one of the same request id reads the row that run left.
    `base_url`: where the request goes, when not the service's tasks (`svc request`): its
    origin is the one the proof is bound to."""
    rid = validate_request_id(request_id) if request_id else new_request_id()
    cap = app.daily_cap().rule  # read again at the hold: on a fleet, its value as stored then
    return held_journal(
        app.ledger,
        lambda: app.secrets,
        request_id=rid,
        base_url=base_url or app.settings.base_url,
        body=body,
        cap=cap,
        limits=limits_for(app.settings, app.ledger.runner),  # budgets, rate, breaker
        on_warning=app.money_warning,  # stderr, and a notification when asked for
        on_wait=app.report.note,
    )


def submit(
    app: AppContext,
    body: dict[str, Any],
    *,
    request_id: str | None = None,
    max_price_usd: object = None,
    trust_recipient: bool = False,
    rail: str = rail_table.DEFAULT,
) -> SubmitResult:
    only_submission_fields(body)  # every path to a payment: CLI, batch, MCP, pay card
    policy = app.policy(max_price_usd=max_price_usd, trust_recipient=trust_recipient)
    policy.check_rail(rail)  # before anything is sent
    with journal_for(app, body, request_id, rail) as journal:
        crash_point("ledger_written")
        row = journal.row()
        if row.method and row.method != rail and row.has_proof:
            rail = row.method  # resuming: the journaled proof decides the rail
        if row.status == PayState.ACCEPTED and row.task_id:
            journal.found_accepted(row.task_id)
            return _already_accepted(app, row.task_id, journal.request_id, rail)
        paying = policy.holding_against(journal if journal.holds else None)
        auth = PaidAuth(make_rail(app, rail, paying, journal), journal)
        return _Run(app, body, journal, auth, rail)()


def _already_accepted(app: AppContext, task_id: str, request_id: str, rail: str) -> SubmitResult:
    """A resume of an accepted request: its task, read for free, and nothing is sent to pay
    (the proof, an MPP credential above all, was forgotten once the outcome was known)."""
    detail = app.tasks.poll(task_id, free_call_auth(app))
    task = detail.without_events()  # the task object of a submit
    return SubmitResult(task, request_id, billing=None, replayed=True, rail=rail)


# The next step for a payment the rail could not make: each rail pays from its own source
# (an MPP decline said "fund the wallet", and MPP has no wallet).
RAIL_HINTS: dict[tuple[str, str], str | Next] = {
    ("settlement_failed", X402): step("fund_wallet", tail=", then retry"),
    ("settlement_failed", MPP): "use another shared payment token (SVC_SPT, spt_file or "
    "spt_command) or another rail, then retry",
    ("settlement_failed", CARD): "pay with another card on the payment page, then retry",
}


def _announcer(note: Callable[[str], None]) -> Callable[[str], None]:
    """`paying 1.50 USD ...` for the first payment of a request; a second (a fresh challenge
    after a refusal) says `again`, so two alike lines never read as two charges."""
    said = [0]

    def announce(line: str) -> None:
        said[0] += 1
        if said[0] > 1:
            line = (
                line.replace("paying ", "paying again ", 1)
                + " (the refused one was not charged; signed, it counts against the daily cap "
                "until it expires)"
            )
        note(line)

    return announce


def make_rail(
    app: AppContext,
    rail: str,
    policy: PaymentPolicy,
    journal: RequestJournal,
    *,
    bound_to: str | None = None,
) -> Rail:
    """The rail `rail` for one request, built by its row's factory (svc/rail_table.py) from
    what this person pays with; a secret or a signer is read only once the policy allowed.
    `bound_to`: the origin of a request to any server (`svc request`), all it may pay for."""
    spt = SptSource(
        lambda: app.secrets.get(profile_key("spt", app.settings.profile)),
        file=app.settings.spt_file,
        command=app.settings.spt_command,
    )
    parts = RailParts(
        policy,
        journal,
        announce=_announcer(app.report.note),
        signer=lambda: load_signer(app.secrets, app.settings),
        spt=spt.token,
        mpp_methods=app.settings.mpp_methods,
        checkout=lambda: card_checkout(app),
        spt_ready=spt.check,
        bound_to=bound_to,
    )
    return build_rail(rail, parts)


def card_checkout(app: AppContext, *, open_browser: bool = True) -> Any:
    """The card rail's checkout; its page is shown to a person the face's way (QR code,
    browser), and only where the face can show one."""
    show_card_page = app.prompts.show_card_page

    def show_page(link: TrustedURL) -> None:
        if show_card_page is not None:
            show_card_page(link, open_browser)

    return CardCheckout(
        app.http,
        app.report,
        base=app.base,
        trusts=app.trusts_link_host,
        interactive=not app.settings.no_input,
        show_page=show_page if show_card_page is not None else None,
    )


@dataclass
class _Tries:
    """How often one run may follow each action of the payment error table."""

    fresh: int = 0
    start_over: int = 0
    provider: int = 0
    finishes: int = 0


@dataclass
class _Run:
    """One run of a paid submission: send until accepted or a final answer."""

    app: AppContext
    body: dict[str, Any]
    journal: RequestJournal
    auth: PaidAuth
    rail: str

    def __call__(self) -> SubmitResult:
        tries = _Tries()
        while True:
            answer = self._send()
            if answer.accepted:
                return self._accepted(answer)
            decision = classify(answer.status, answer.content)
            _note_billing(self.app, self.journal, answer)
            if not self._follow(decision, tries):
                self._reject(answer, decision)

    def _follow(self, decision: Row | None, tries: _Tries) -> bool:
        """Act on a payment error the table says to retry; False when the run should stop."""
        action = decision.action if decision else Action.STOP
        code = decision.code if decision else "refused"
        if action is Action.RETRY_UNCHANGED and tries.provider < MAX_PROVIDER_RETRIES:
            wait = self.app.http.retry.delay(tries.provider)
            tries.provider += 1
            self.app.report.note(f"the payment provider is unavailable; retrying in {wait:.1f} s")
            self.app.http.sleep(wait)
            return True
        if action in (Action.FRESH_CHALLENGE, Action.START_OVER) and self.auth.carried_proof:
            self.journal.void(code)  # proven void by the spec's code: a new proof may be signed
            fresh = action is Action.FRESH_CHALLENGE
            if (tries.fresh if fresh else tries.start_over) >= (
                MAX_FRESH_CHALLENGES if fresh else MAX_START_OVERS
            ):
                return False
            tries.fresh += fresh
            tries.start_over += not fresh
            self.app.report.note(
                f"the payment was refused ({code}); nothing was charged. "
                "Paying a fresh challenge once"
                if fresh
                else f"that payment can never be spent ({code}); starting over with a fresh 402"
            )
            return True
        if (
            action is Action.FINISH_CARD
            and self.rail == CARD
            and tries.finishes < MAX_CARD_FINISHES
        ):
            tries.finishes += 1
            finish_card(self.app, self.journal)
            return True
        return False

    def _send(self) -> SubmitAnswer:
        journal, auth = self.journal, self.auth
        try:
            return self.app.tasks.submit(self.body, journal.request_id, with_bearer(self.app, auth))
        except LedgerUnavailableError:
            # The journal could not mark the send, so the request did not leave: the row keeps
            # its state (a journaled proof is re-sent by a resume) and the error's hint already
            # says nothing was paid.
            raise
        except (Unavailable, ProtocolError) as exc:  # no answer, or an unreadable one
            if auth.carried_proof:
                raise _answer_lost(journal, self.body, exc.message) from None
            journal.rejected(exc.code, detail=exc.message)
            exc.hint = "nothing was charged" + (f"; {exc.hint}" if exc.hint else "")
            raise
        except HumanNeeded:  # a card page waits for a person: the row says so already
            raise
        except SvcError as exc:  # policy refusal, no wallet or token: before any signature
            if not auth.carried_proof:
                journal.rejected(exc.code, detail=exc.message)
            raise

    def _accepted(self, answer: SubmitAnswer) -> SubmitResult:
        app, journal = self.app, self.journal
        try:
            task = answer.task()
        except ProtocolError as exc:
            # Accepted (and, with a proof, charged) but unreadable: the task id is lost, not
            # the task; a resume with the same request id gets the original task back.
            if self.auth.carried_proof:
                raise _answer_lost(journal, self.body, exc.message) from None
            journal.rejected(exc.code, detail=exc.message)
            raise
        _record_accepted(app, journal, task, answer, self.body)
        crash_point("response_recorded")
        if answer.billing:
            app.report.note(f"billing: {words.billing(answer.billing)}")
        if answer.usage_error:
            app.report.warn(
                f"the service could not bill this call's usage ({answer.usage_error}); "
                "the task was accepted and is not re-sent"
            )
        billing = answer.billing.raw if answer.billing else None
        return SubmitResult(task.raw, journal.request_id, billing, answer.replayed, self.rail)

    def _reject(self, answer: SubmitAnswer, decision: Row | None) -> None:
        """A final answer that is not a task: say what happened to the money, keep what lives."""
        journal, status = self.journal, answer.status
        if journal.row().status == PayState.REFUNDED:
            kind = type(to_error(status, answer.content, decision))  # its exit code
            raise kind(
                f"the service could not deliver the task (HTTP {status}); the payment was "
                "refunded in full",
                code="refunded",
                status=status,
                hint="nothing was kept; run the submit again later to pay a fresh 402",
            )
        if not self.auth.carried_proof:
            error = to_error(status, answer.content, decision)
            error.hint = error.hint or "nothing was charged"
            journal.rejected(error.code, status, error.message)
            raise error
        if journal.row().status == PayState.VOID:  # the table's retries are spent
            error = to_error(status, answer.content, decision)
            rail_hint = RAIL_HINTS.get((error.code, self.rail), error.hint)
            if isinstance(rail_hint, Next):
                error.next, error.hint = rail_hint, rail_hint.neutral
            else:
                error.hint = rail_hint
            raise error
        not_processed = answer.rate_limited or (
            decision is not None and decision.action is Action.RETRY_UNCHANGED
        )
        if answer.server_failed and not not_processed:
            _note_unknown(journal, f"http_{status}", status)
            raise OutcomeUnknown(
                f"the paid submit failed with HTTP {status} after retries; it may or may not "
                "have been charged and accepted",
                next=resume_step(journal.request_id, self.body, "reconcile without paying again: "),
            )
        # Refused, but not proven void (a 3xx, a 400, a 402 with no code, a 429, ...): the
        # proof is kept, so no run of this request id signs a second one while it may settle.
        error = to_error(status, answer.content, decision, next=self._kept_step(decision))
        journal.refused(error.code, status)
        raise error

    def _kept_step(self, decision: Row | None) -> Next | None:
        """The command that re-sends the kept proof, where sending the same again is the way on
        (no code, a transient one, a card step on another rail); None: the table's hint, the
        spec's handling of that code (payment_unknown or a mismatch: a fresh 402)."""
        same_again = (
            decision is None
            or decision.code in SAME_AGAIN
            or (decision.action is Action.FINISH_CARD and self.rail != CARD)
        )
        if not same_again:
            return None
        return resume_step(
            self.journal.request_id,
            self.body,
            "the payment proof is kept (not charged, as far as the service says); the same "
            "command re-sends it and never signs another: ",
        )


def _record_accepted(
    app: AppContext, journal: RequestJournal, task: Task, answer: SubmitAnswer, body: dict[str, Any]
) -> None:
    """The service accepted (and, with a proof, charged): its answer decides the outcome, as the
    contract says, and a fleet ledger lost at this step is a warning naming the task, never an
    exit code that reads as "nothing charged". The row stays `sent` with its journaled proof,
    so running the same command again re-sends that proof, gets this task back and records it."""
    try:
        journal.accepted(task, answer)
    except LedgerUnavailableError as exc:
        app.report.warn(
            f"task {task.id} was accepted, but the ledger could not record it ({exc.message}); "
            + app.words(
                resume_step(
                    journal.request_id,
                    body,
                    "to record it without paying again, once the ledger is back: ",
                )
            )
        )


def _answer_lost(journal: RequestJournal, body: dict[str, Any], why: str) -> OutcomeUnknown:
    """A request that carried a proof got no readable answer: it may have been charged."""
    _note_unknown(journal, why)
    return OutcomeUnknown(
        f"the answer to the paid submit was lost ({why}); it may have been charged and accepted",
        next=resume_step(
            journal.request_id, body, "reconcile without paying again (the same proof is re-sent): "
        ),
    )


def _note_unknown(journal: RequestJournal, why: str, http_status: int | None = None) -> None:
    """The outcome of a sent proof is unknown (exit 10) whether or not the ledger can say so:
    a lost fleet ledger leaves the row `sent` with its proof, which a resume re-sends too."""
    with contextlib.suppress(LedgerUnavailableError):
        journal.unknown(why, http_status)


def finish_card(app: AppContext, journal: RequestJournal, *, open_browser: bool = True) -> None:
    """A saved card payment to its proof: `svc pay card` and `payment_incomplete` alike."""

    saved = journal.saved_card()
    if saved is None:
        raise PaymentFailed("the service says the card payment is incomplete, but none is saved")
    if saved["status"] == "dead":
        raise PaymentFailed(
            "that card payment can never be spent",
            code="payment_failed",
            next=step("start_card", "start over: "),
        )
    checkout = card_checkout(app, open_browser=open_browser)
    offer, link = checkout.saved(saved)
    paid = settle_card(checkout, journal, offer, link, check_first=True)
    if not journal.row().has_proof:
        journal.record(paid)


def pay_card(app: AppContext, request_id: str | None, *, open_browser: bool) -> SubmitResult:
    """`svc pay card`: finish a saved card payment, then send its request, bound to its origin."""
    import json

    saved = app.ledger.card_payment(request_id)
    if saved is None:
        target = f"request {request_id}" if request_id else "any submission"
        raise NotFound(
            f"no card payment is waiting for {target}",
            next=step("card_not_waiting"),
        )
    rid = str(saved["request_id"])
    row = app.ledger.get(rid)
    if row is None:
        raise NotFound(f"request {rid} is not in the ledger")
    body = json.loads(row.body)
    with journal_for(app, body, rid, CARD) as journal:  # refuses another origin, sends nothing
        if journal.row().status != PayState.ACCEPTED:
            finish_card(app, journal, open_browser=open_browser)
        return submit(app, body, request_id=rid, rail=CARD)


def _note_billing(app: AppContext, journal: RequestJournal, answer: SubmitAnswer) -> None:
    """svc-billing is shown and stored; a refund is recorded against the submission."""
    billing = answer.billing
    if billing is None:
        return
    app.report.note(f"billing: {words.billing(billing)}")
    if billing.status != "refunded":
        journal.note_billing(billing.raw)
        return
    # No amount: nothing known to be refunded (the cap keeps counting it); an unreadable one:
    # unknown (None).
    refunded = 0 if "amount_usd" not in billing.fields else billing.amount_atomic
    journal.refunded(refunded, billing.raw)
