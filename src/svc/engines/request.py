"""A paid HTTP request to any origin (`svc request`, `Client.request`, the `paid_request` tool).

The paid submit's lifecycle, for a request the person wrote instead of `POST /svc/tasks`: the
same journal under the request id's lock (engines/submit.journal_for, bound to the request's
own origin), the same policy before any signature (its recipients pinned per that origin),
the same rails and payment error table. What differs is what an answer means:

* any answer but a 402 to a request that carried a proof is the server's: charged, as far as
  it says, when it succeeded; a 4xx leaves the proof kept (a re-run re-sends it, never signs
  another); a 5xx or a lost answer is an unknown outcome (exit 10);
* a 402 to a proof is never paid again in the same run: void when the table's code proves
  it, else kept;
* the body of a successful answer is handed back unread (api/streamed.py), so it is written
  out with bounded memory, after the lock is released and the ledger says what was paid.

Redirects are not followed (curl's default): a proof goes only to the origin it was signed
for, and a 402 from another origin is never seen, let alone paid.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from svc.api import headers as names
from svc.api import streamed
from svc.context import AppContext
from svc.engines.probe import offered
from svc.engines.request_headers import refuse_unwritable
from svc.engines.submit import journal_for, make_rail
from svc.errors import (
    Conflict,
    HumanNeeded,
    LedgerUnavailableError,
    OutcomeUnknown,
    ProtocolError,
    SvcError,
    Unavailable,
    UsageError,
)
from svc.money import atomic_for_people, atomic_to_usd
from svc.next_step import Next, step
from svc.origin import TrustedURL, configured, setting
from svc.pay.errors import Action, classify, to_error
from svc.pay.journal import PayState, RequestJournal
from svc.pay.rails import OriginX402Rail, StreamedPaidAuth
from svc.pay.wallet import load_signer
from svc.pay.x402 import X402Error, parse_challenge
from svc.rail_table import CARD, X402
from svc.settings import refuse_cleartext

if TYPE_CHECKING:
    from svc.pay.offer import Offer
    from svc.pay.policy import PaymentPolicy
    from svc.pay.rails import Rail

METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
# Sent again after a lost answer: the method says doing it twice is doing it once (RFC 9110).
IDEMPOTENT = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
# The headers svc writes itself: a proof is made for one challenge, never typed in argv.
OWN_HEADERS = names.PAYMENT_HEADERS | {names.REQUEST_ID}
MAX_BODY_BYTES = 64 * 1024 * 1024  # a request body is sent from memory (and hashed for resumes)


@dataclass(frozen=True)
class RequestSpec:
    """The request as the person wrote it (`-X`, the URL, `-H`, `-d`)."""

    method: str
    url: str
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes | None = None


@dataclass
class PaidResponse:
    """The answer: status and headers; its body as chunks to write out (read once); what was
    paid for it (`paid_usd` None: nothing); `error` the exit code its status decides, given
    after the body is written, as curl writes an error page before failing."""

    status: int
    headers: list[tuple[str, str]]
    request_id: str | None
    chunks: Iterator[bytes]
    paid_usd: str | None = None
    rail: str | None = None
    error: SvcError | None = field(default=None)
    reason: str = ""  # the status line's words (`-i`)

    def summary(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "headers": dict(httpx.Headers(self.headers).items()),  # a repeat joined, as HTTP joins
            "paid_usd": self.paid_usd,
            "rail": self.rail,
            "request_id": self.request_id,
        }

    def held(self, limit: int, elsewhere: str) -> bytes:
        """The whole body, held in memory up to `limit` bytes. Past it the body is not kept,
        and the error says so in the face's words for writing it `elsewhere`: and, once the
        request was paid, that it was, never that nothing was sent."""
        held = bytearray()
        for chunk in self.chunks:
            held += chunk
            if len(held) > limit:
                raise self._too_large(limit, elsewhere)
        return bytes(held)

    def _too_large(self, limit: int, elsewhere: str) -> SvcError:
        words = f"the body is larger than {limit} bytes: {elsewhere}"
        if self.paid_usd is None:
            return UsageError(words)
        return SvcError(
            f"request {self.request_id} was paid and answered, but {words}; the body is not "
            "kept, and a resume of this request id sends nothing again",
            next=step("see_receipt", request_id=str(self.request_id)),
        )


def outgoing(app: AppContext, spec: RequestSpec) -> streamed.Outgoing:
    """The request through the gates: a URL of the right shape, no cleartext to another
    machine, a known method, none of the headers svc writes itself; nothing is sent yet."""
    method = spec.method.upper()
    if method not in METHODS:
        raise UsageError(
            f"unknown method {spec.method[:20]!r} (one of {', '.join(sorted(METHODS))})"
        )
    url = configured(setting(spec.url, "the request URL"), "the request URL")
    refuse_cleartext("the request URL", str(url), app.settings.allow_insecure_http)
    own = sorted({name.lower() for name, _ in spec.headers} & OWN_HEADERS)
    if own or _pays_by_authorization(spec.headers):
        raise UsageError(
            f"svc writes the payment headers itself ({', '.join(own) or 'Authorization: Payment'});"
            " a proof is signed for one challenge and never given on the command line"
        )
    refuse_unwritable(spec.headers)
    if spec.body is not None and len(spec.body) > MAX_BODY_BYTES:
        raise UsageError(f"the request body is larger than {MAX_BODY_BYTES} bytes")
    pairs = streamed.with_defaults(spec.headers, spec.body)
    return streamed.Outgoing(method, url, pairs, spec.body)


def _pays_by_authorization(pairs: tuple[tuple[str, str], ...]) -> bool:
    return any(
        n.lower() == names.AUTHORIZATION.lower() and v.strip().lower().startswith("payment ")
        for n, v in pairs
    )


def journal_body(out: streamed.Outgoing) -> dict[str, Any]:
    """What the ledger keeps of the request, and what a resume must match: the method, the
    URL without its query (a query may carry a key), digests of the query and the body, and
    the header names (their values may be credentials)."""
    parts = urlsplit(str(out.url))
    bare = urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
    return {
        "email": "",
        "task": f"{out.method} {bare}",
        "request": {
            "method": out.method,
            "url": bare,
            "query_sha256": _digest(parts.query.encode()),
            "body_sha256": _digest(out.body or b""),
            "headers": sorted({name.lower() for name, _ in out.headers}),
        },
    }


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def request(
    app: AppContext,
    spec: RequestSpec,
    *,
    request_id: str | None = None,
    max_price_usd: object = None,
    trust_recipient: bool = False,
    rail: str | None = None,
) -> PaidResponse:
    """Send the request; pay its 402 within the policy, at most once per request id."""
    out = outgoing(app, spec)
    rail = chosen_rail(app, rail)
    if rail == CARD:
        raise UsageError("svc request pays by x402 or MPP; a card page is for the service's tasks")
    policy = app.policy(
        max_price_usd=max_price_usd, trust_recipient=trust_recipient, origin=out.url.origin
    )
    policy.check_rail(rail)  # before anything is sent
    # The row's URL without its query (a query may carry a key): the body's digest binds it.
    journaled = journal_body(out)
    bare = journaled["request"]["url"]
    with journal_for(app, journaled, request_id, rail, base_url=bare) as journal:
        row = journal.row()
        if row.method and row.has_proof:
            rail = row.method  # resuming: the journaled proof decides the rail
        if row.status == PayState.ACCEPTED:
            raise _answered_before(journal, row.http_status)
        paying = policy.holding_against(journal if journal.holds else None)
        auth = StreamedPaidAuth(_rail(app, rail, paying, journal, out.url), journal)
        return _Exchange(app, out, journal, auth, rail)()


def chosen_rail(app: AppContext, rail: str | None) -> str:
    """The rail asked for, else the profile's, x402 when that is the card (a service page)."""
    return rail or (app.settings.pay if app.settings.pay != CARD else X402)


def dry_run_request(
    app: AppContext, spec: RequestSpec, rail: str | None, cap: Decimal | None
) -> dict[str, Any]:
    """`--dry-run`: what would be sent and the most it would pay; nothing is sent."""
    out = outgoing(app, spec)
    return {
        "dry_run": True,
        "request": {
            "method": out.method,
            "url": journal_body(out)["request"]["url"],  # a query may carry a key: not shown
            "headers": [name for name, _ in out.headers],
            "body_bytes": len(out.body or b""),
        },
        "pay": chosen_rail(app, rail),
        "max_price_usd": str(app.settings.max_price_usd if cap is None else cap),
        "sent": "nothing",
    }


def _answered_before(journal: RequestJournal, status: int | None) -> SvcError:
    rid = journal.request_id
    return Conflict(
        f"request {rid} was paid and answered before (HTTP {status}); nothing was sent, so "
        "nothing was paid again",
        code="already_answered",
        next=step("see_receipt", tail="; a new request id pays again", request_id=rid),
    )


def _rail(
    app: AppContext, rail: str, policy: PaymentPolicy, journal: RequestJournal, url: TrustedURL
) -> Rail:
    """x402 by the challenge's own transport, naming the request id as its payment id; MPP
    as the paid submit builds it."""
    if rail != X402:
        return make_rail(app, rail, policy, journal, bound_to=url.origin)

    def on_pay(offer: Offer) -> None:
        amount = atomic_for_people(offer.amount_atomic)
        app.report.note(
            f"paying {amount} with x402 to {offer.pay_to} for {url.netloc} "
            f"(request {journal.request_id})"
        )

    signer = lambda: load_signer(app.secrets, app.settings)  # noqa: E731 - read once allowed
    return OriginX402Rail(policy, signer, journal.request_id, url.origin, on_pay)


@dataclass
class _Exchange:
    """One run of a paid request: send, then read what the answer means for the money."""

    app: AppContext
    out: streamed.Outgoing
    journal: RequestJournal
    auth: StreamedPaidAuth
    rail: str

    def __call__(self) -> PaidResponse:
        answer = self._send()
        try:
            return self._outcome(answer)
        except BaseException:
            answer.close()
            raise

    def _send(self) -> streamed.Answer:
        journal, auth = self.journal, self.auth
        resend_safe = self.out.method in IDEMPOTENT
        try:
            return streamed.send(self.app.http, self.out, auth, resend_safe=resend_safe)
        except (LedgerUnavailableError, HumanNeeded):
            raise
        except (Unavailable, ProtocolError) as exc:  # no answer, or an unreadable one
            if auth.carried_proof:
                raise self._lost(exc.message) from None
            journal.rejected(exc.code, detail=exc.message)
            exc.hint = "nothing was charged" + (f"; {exc.hint}" if exc.hint else "")
            raise
        except SvcError as exc:  # the policy refused, no wallet or token: before any signature
            if not auth.carried_proof:
                journal.rejected(exc.code, detail=exc.message)
            raise

    def _outcome(self, answer: streamed.Answer) -> PaidResponse:
        journal = self.journal
        if not self.auth.carried_proof:  # the server asked for nothing
            journal.unpaid()
            return self._response(answer, answer.error("request"), paid=False)
        if answer.asks_payment:
            raise self._refused_again(answer.content(), _challenge_error(answer))
        if answer.server_failed:
            journal.unknown(f"http_{answer.status}", answer.status)
            return self._response(answer, self._unknown(answer.status), paid=False)
        if not answer.succeeded:  # not settled, as far as the server says: the proof is kept
            journal.refused(f"http_{answer.status}", answer.status)
            return self._response(answer, self._proof_kept(answer), paid=False)
        journal.served(answer.status, answer.receipt, answer.billing)
        return self._response(answer, None, paid=True)

    def _proof_kept(self, answer: streamed.Answer) -> SvcError | None:
        """The server's error to a request that carried a signed authorization: kept in the
        journal, it may still be spent until it expires, and the request id re-sends it."""
        error = answer.error("request")
        if error is None:
            return None
        error.next = step(
            "resume_request",
            "a signed authorization went with it and may still be spent until it expires; ",
            " re-sends it, never a second one",
            request_id=self.journal.request_id,
        )
        error.hint = error.next.neutral
        return error

    def _response(
        self, answer: streamed.Answer, error: SvcError | None, *, paid: bool
    ) -> PaidResponse:
        row = self.journal.row()
        amount = row.amount_atomic if paid else None
        return PaidResponse(
            status=answer.status,
            headers=answer.headers,
            request_id=self.journal.request_id,
            chunks=answer.chunks(),
            paid_usd=None if amount is None else str(atomic_to_usd(amount)),
            rail=row.method if paid else None,
            error=error,
            reason=streamed.reason_phrase(answer.status),
        )

    def _refused_again(self, content: bytes, why: str | None) -> SvcError:
        """A 402 to the request that carried the proof: never a second signature in this run.
        Void when the table's code proves it (a later run may pay a fresh 402), else kept."""
        decision = classify(402, content)
        error = to_error(402, content, decision, "request")
        rid = self.journal.request_id
        if decision is not None and decision.action in (Action.FRESH_CHALLENGE, Action.START_OVER):
            self.journal.void(decision.code)
            error.hint = f"the proof is void ({decision.code}); nothing was charged"
            return error
        self.journal.refused(error.code, 402)
        error.message = "the server asked for payment again after it was paid" + (
            f" ({why})" if why else ""
        )
        error.next = step(
            "resume_request",
            "nothing more was signed; the proof is kept (it may still settle until it expires): ",
            request_id=rid,
        )
        error.hint = error.next.neutral
        return error

    def _unknown(self, status: int) -> OutcomeUnknown:
        return OutcomeUnknown(
            f"the paid request failed with HTTP {status}; it may or may not have been charged",
            next=self._resume(),
        )

    def _lost(self, why: str) -> OutcomeUnknown:
        self.journal.unknown(why)
        return OutcomeUnknown(
            f"the answer to the paid request was lost ({why}); it may have been charged",
            next=self._resume(),
        )

    def _resume(self) -> Next:
        return step(
            "resume_request", "reconcile without paying again: ", request_id=self.journal.request_id
        )


def _challenge_error(answer: streamed.Answer) -> str | None:
    """What a new x402 challenge says was wrong with the proof (its `error`), if it says."""
    try:
        challenge = parse_challenge(answer.response.headers, answer.content())
    except X402Error:
        return None
    return None if challenge is None or not challenge.error else challenge.error[:200]


def probe_request(
    app: AppContext, spec: RequestSpec, rail: str | None, cap: Decimal | None
) -> dict[str, Any]:
    """`--probe` / `--dry-run`: the request goes out once, unpaid; its 402's offers and the
    policy's verdict are shown. Nothing is signed, journaled or paid, and an answer that is not
    a 402 is not read."""
    out = outgoing(app, spec)
    chosen = chosen_rail(app, rail)
    answer = streamed.send(app.http, out, httpx.Auth(), resend_safe=out.method in IDEMPOTENT)
    view = {"method": out.method, "url": journal_body(out)["request"]["url"]}
    doc: dict[str, Any] = {"probe": True, "request": view}
    if not answer.asks_payment:
        answer.close()
        return doc | {
            "status": answer.status,
            "would_pay": None,
            "sent": "one unpaid request, answered without asking for payment; its body was "
            "not read",
        }
    offers = offered(app, answer.response, chosen, cap, out.url)
    return doc | offers | {"sent": "one unpaid request; nothing was signed or paid"}
