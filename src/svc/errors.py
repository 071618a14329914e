"""Every failure a user can meet, and every error code of the spec, in one place.

Every failure becomes an `SvcError`: the CLI's top level prints its one-line message (and, in
JSON mode, `{"error", "detail", "exit_code"}`) and exits with `exit_code`. `CODES` is the one
table of the spec's codes (payment, access, identity): the error class (so the exit code),
what a paid request does next (`Action`), what happened to the money, and the hint. The HTTP
client, the payment flow and the identity client all read it; nothing rewrites it afterwards.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from enum import IntEnum
from typing import TYPE_CHECKING, Any

from svc.next_step import step

if TYPE_CHECKING:
    from svc.next_step import Next


class ExitCode(IntEnum):
    OK = 0
    ERROR = 1
    USAGE = 2
    TASK_FAILED = 3
    AUTH = 4
    PAYMENT = 5
    HUMAN_NEEDED = 6
    NOT_FOUND = 7
    CONFLICT = 8
    UNAVAILABLE = 9
    OUTCOME_UNKNOWN = 10
    PENDING = 11  # `poll --exit-status`: the task is still live (not an error)
    INTERRUPTED = 130


class SvcError(Exception):
    """A failure with a machine code, a human message and the exit code the contract promises."""

    exit_code: ExitCode = ExitCode.ERROR
    default_code = "error"
    # The way on when the raiser names none, for a program (`str(error)`, the library's
    # errors): every class of the exit-code table has one. The CLI prints only a named hint.
    default_hint: str | None = None

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        status: int | None = None,
        reason: str | None = None,
        hint: str | None = None,
        body: Any = None,
        exit_code: ExitCode | None = None,
        json_report: bool = True,
        data: dict[str, Any] | None = None,
        next: Next | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code: str = code or self.default_code
        self.status = status
        self.reason = reason
        # The next step as data (svc.next_step): each face words it; the hint is its neutral
        # wording until a face presents the error.
        self.next = next
        self.hint: str | None = hint if hint is not None or next is None else next.neutral
        self.body = body
        if exit_code is not None:
            self.exit_code = exit_code
        # False when stdout already carries the answer (a task whose state sets the exit code).
        self.json_report = json_report
        # What a script acts on, as fields of the JSON error (a card page's link),
        # never only inside the prose of `detail`.
        self.data: dict[str, Any] = data or {}

    def __str__(self) -> str:
        """The message and its way on, as the CLI's error and hint lines say them."""
        hint = self.hint or self.default_hint
        return f"{self.message} (hint: {hint})" if hint else self.message

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "error": self.code,
            "detail": self.message,
            "exit_code": int(self.exit_code),
        }
        if self.status is not None:
            doc["status"] = self.status
        if self.reason:
            doc["reason"] = self.reason
        if self.hint:
            doc["hint"] = self.hint
        if self.next is not None:  # the hint's step as data, for a program to act on
            doc["next"] = self.next.as_json()
        return {**self.data, **doc}  # the contract's own fields win


class UsageError(SvcError):
    exit_code = ExitCode.USAGE
    default_code = "usage_error"
    default_hint: str | None = "nothing was sent; check the arguments"


class TaskFailed(SvcError):
    exit_code = ExitCode.TASK_FAILED
    default_code = "task_not_completed"
    default_hint: str | None = "the task's result and events say why it ended so"


class AuthError(SvcError):
    exit_code = ExitCode.AUTH
    default_code = "unauthorized"
    default_hint: str | None = (
        "check the agent credential: register it again, or log out to pay as you go"
    )


class PaymentFailed(SvcError):
    exit_code = ExitCode.PAYMENT
    default_code = "payment_failed"
    default_hint: str | None = "nothing more is paid for this request; its request id resumes it"


class PolicyRefused(PaymentFailed):
    """The payment policy refused before anything was signed (a price above the limit, a rail,
    network or asset not allowed, a changed recipient, a payment not approved, the daily cap):
    exit 5 like every payment failure, and nothing was paid."""

    default_code = "policy_refused"


class HumanNeeded(SvcError):
    exit_code = ExitCode.HUMAN_NEEDED
    default_code = "human_needed"
    default_hint: str | None = "the person must take this step; it waits for them"


class NotFound(SvcError):
    exit_code = ExitCode.NOT_FOUND
    default_code = "not_found"
    default_hint: str | None = (
        "check the id: the ledger's tasks list the task and request ids it holds"
    )


class Conflict(SvcError):
    exit_code = ExitCode.CONFLICT
    default_code = "conflict"
    default_hint: str | None = "fetch the task again: it was answered elsewhere, expired or ended"


class Unavailable(SvcError):
    exit_code = ExitCode.UNAVAILABLE
    default_code = "unavailable"
    default_hint: str | None = (
        "try again later; a request id resumes a paid submit without paying twice"
    )


class AdvisorUnavailableError(Unavailable):
    """The advisor answered 503: the spec's way on is the wallet-free guide, not a retry."""

    default_code = "advisor_unavailable"


class LedgerUnavailableError(Unavailable):
    """The fleet ledger (PostgreSQL) cannot be reached: nothing is paid without its journal."""

    default_code = "ledger_unavailable"


def ledger_read_hint(command: str) -> str:
    """A read of a fleet ledger that is down: the next step, and no word of payment (the
    paying commands' hint says nothing was paid; a read asked for nothing to be)."""
    return (
        f"{command} reads the fleet ledger: check ledger_url (SVC_LEDGER_URL) and that the "
        f"database is up, then run {command} again"
    )


class LedgerDiskError(LedgerUnavailableError):
    """The local ledger file cannot be written (a full or read-only disk, an I/O error): exit
    9 like a lost fleet ledger, and for the same reason nothing is paid without its journal.
    After the service accepted a paid request it is the same warning naming the task."""

    default_code = "ledger_unwritable"


class StorageError(SvcError):
    """Another of svc's own files (the config file, the secret store) cannot be written: one
    line naming the file and why (disk full, read-only), exit 1."""

    default_code = "storage_unwritable"


class OutcomeUnknown(SvcError):
    exit_code = ExitCode.OUTCOME_UNKNOWN
    default_code = "outcome_unknown"
    default_hint: str | None = "resume with the same request id: it is never charged twice"


class OtherRunnerHoldsProofError(OutcomeUnknown):
    """Another runner journaled a secret proof (an MPP credential) for this request id: it
    lives in that runner's secret store, so this runner neither re-sends nor re-signs it."""

    default_code = "proof_held_elsewhere"


class Interrupted(SvcError):
    """Ctrl-C where stopping has consequences: the message names the exact way back."""

    exit_code = ExitCode.INTERRUPTED
    default_code = "interrupted"


class ProtocolError(SvcError):
    """The server answered something that is not what the spec promises."""

    default_code = "bad_response"


class WrongTaskError(ProtocolError):
    """An answer about another task than the one asked about: exit 9, and
    nothing (a hook, a prompt, the ledger) acts on it."""

    default_code = "wrong_task"
    exit_code = ExitCode.UNAVAILABLE


class UntrustedURLError(ProtocolError):
    """A URL from a server (or a config) that the origin gate refused: nothing was sent to it,
    shown, opened or drawn. Exit 9 as for any answer the spec does not allow."""

    exit_code = ExitCode.UNAVAILABLE
    default_code = "untrusted_url"


class Action(enum.Enum):
    """What a paid request does after a payment error (the spec's handling column)."""

    RETRY_UNCHANGED = "retry_unchanged"  # same request id, same proof, after a backoff
    FRESH_CHALLENGE = "fresh_challenge"  # the proof is void: sign a fresh 402, once
    START_OVER = "start_over"  # the payment is dead for good: pay a new 402, once
    FINISH_CARD = "finish_card"  # the card payment is not finished: wait on statusUrl
    STOP = "stop"  # show it with its exit code; never retried


@dataclass(frozen=True)
class Code:
    code: str
    error: type[SvcError]
    hint: str | None = None
    action: Action = Action.STOP
    # What happened to the user's money, said plainly (a payment code's error line ends with it).
    money: str | None = None
    # The next step as data, each face's words in place of `hint` (svc.next_step).
    next: Next | None = None


NOT_CHARGED = "nothing was charged"
REGISTER_AGAIN = "register again: svc identity register --force"
# A credential the platform no longer knows (revoked, expired, forgotten): both ways out, as
# `svc doctor` offers them (a new credential, or logging out to pay as you go).
REPLACE_CREDENTIAL = step("replace_identity")
_DEAD = ("payment_refunded", "payment_consumed", "payment_failed", "payment_released")

# `invalid_token` is six different mistakes (the spec's "Payment and access codes"): what to do
# depends on its `reason`. The first two are a stale token, which the bearer step heals itself
# (re-exchange, then refresh) before it ever shows one; the other four are a header that svc
# never builds, so something between svc and the service changed it. Retrying cannot help.
REFRESH_THEN_REGISTER = "svc identity refresh; if it persists, " + REGISTER_AGAIN
INVALID_TOKEN_HINTS: dict[str, str] = {
    "token_expired": "the access token expired and svc could not get a fresh one: "
    + REFRESH_THEN_REGISTER,
    "token_invalid": "the access token did not verify: " + REFRESH_THEN_REGISTER,
    "malformed_agent_authorization": "the agent header must be exactly one `Bearer <token>` "
    "and svc sends one: a proxy or an injected header changed it on the way; remove it",
    "unrecognized_agent_credential": "that bearer is not from this service's identity "
    "platform: point --auth-base (SVC_AUTH_BASE) at the service's own, then " + REGISTER_AGAIN,
    "conflicting_agent_credentials": "two different agent tokens reached the service: svc "
    "sends one, so remove the other (a proxy or a header added outside svc)",
    "combined_authorization_unsupported": "a payment and a bearer arrived combined in one "
    "Authorization header: svc sends them apart, so a proxy merged them; send without it",
}

CODES: dict[str, Code] = {
    c.code: c
    for c in (
        # --- payment and access -------------------------------------------------------------
        Code(
            "payment_provider_unavailable",
            Unavailable,
            "the payment provider is down; try again later with the same --request-id",
            Action.RETRY_UNCHANGED,
            NOT_CHARGED,
        ),
        Code(
            "settlement_failed",
            PaymentFailed,
            "the payment did not settle: fund the wallet or use another token or card, then retry",
            Action.FRESH_CHALLENGE,
            NOT_CHARGED,
        ),
        Code(
            "identity_invalid",
            PaymentFailed,
            "the payment proof was refused; retry to sign a fresh challenge",
            Action.FRESH_CHALLENGE,
            NOT_CHARGED,
        ),
        *(
            Code(
                code,
                PaymentFailed,
                "run the submit again to pay a fresh 402",
                Action.START_OVER,
                "that payment can never be spent",
            )
            for code in _DEAD
        ),
        Code(
            "payment_incomplete",
            HumanNeeded,
            "finish it on the payment page, then: svc pay card",
            Action.FINISH_CARD,
            "the card payment is not finished",
        ),
        Code(
            "payment_unknown",
            PaymentFailed,
            "submit with a new --request-id to pay a fresh 402",
            money="the service knows no such payment; nothing was charged for it",
        ),
        Code(
            "payment_request_mismatch",
            PaymentFailed,
            "submit with a new --request-id to pay a fresh 402",
            money="that payment belongs to another request; nothing was charged for this one",
        ),
        Code(
            "payment_amount_mismatch",
            PaymentFailed,
            "the price changed since the challenge; run the submit again",
            money=NOT_CHARGED,
        ),
        Code(
            "usage_not_priced",
            Conflict,
            "the service priced this usage wrongly; report it to the service",
            money="the call could not be billed",
        ),
        Code(
            "rate_limit_exceeded",
            Unavailable,  # the HTTP layer already waited and retried within its bounds
            "the service is rate limiting; wait and run the same command again",
            money=NOT_CHARGED,
        ),
        Code("bearer_required", AuthError, "register an agent identity: svc identity register"),
        Code("invalid_token", AuthError, "re-run the command; if it persists, " + REGISTER_AGAIN),
        Code(
            "entitlements_not_available",
            SvcError,
            "this service sells no plans; pay as you go still works",
        ),
        Code("invalid_request", UsageError, "the request could not be read (a malformed body)"),
        Code("payg_not_purchasable", UsageError, "pay-as-you-go needs no plan: just call the API"),
        Code("seller_not_found", NotFound, "check --base-url: no seller at this host"),
        Code("plan_not_found", NotFound, "use a plan id from `svc manifest`"),
        Code("signing_secret_required", Conflict, "the seller's setup is unfinished"),
        # --- identity flow ---------------------------------------------------------------------
        Code(
            "invalid_login_hint",
            AuthError,
            "use the person's plain e-mail address (plus-aliases are refused)",
        ),
        Code(
            "anonymous_registration_disabled",
            AuthError,
            "register with --email or --assertion-file instead",
        ),
        Code(
            "service_auth_registration_disabled",
            AuthError,
            "register with --anonymous or --assertion-file instead",
        ),
        Code(
            "issuer_not_enabled",
            AuthError,
            "this identity provider is not trusted here; use --email or --anonymous",
        ),
        Code("replay_detected", AuthError, "an assertion is single-use: mint a fresh one"),
        Code(
            "login_required",
            AuthError,
            "sign in again at your identity provider, then mint a fresh assertion",
        ),
        Code(
            "interaction_required",
            AuthError,
            "the person must confirm the link: svc identity claim",
        ),
        Code(
            "missing_verified_email",
            AuthError,
            "the assertion needs the person's e-mail with email_verified true",
        ),
        Code("invalid_audience", AuthError, "mint the assertion for this platform's audience"),
        Code("expired", AuthError, "mint a fresh assertion (they live at most 10 minutes)"),
        Code(
            "invalid_signature",
            AuthError,
            "the assertion's signature does not verify: mint a fresh one",
        ),
        Code("invalid_claim_token", AuthError, REGISTER_AGAIN),
        Code(
            "too_many_attempts",
            AuthError,
            "wait a few minutes for a pending claim link to expire, then retry",
        ),
        Code("claim_not_confirmed", AuthError, "the person has not confirmed the link yet"),
        Code("invalid_user_code", AuthError, "check the code shown on the page and try again"),
        Code("user_code_expired", AuthError, "get a fresh link: svc identity claim"),
        Code("claim_denied", AuthError, "the person declined the claim; " + REGISTER_AGAIN),
        Code("claim_expired", AuthError, REGISTER_AGAIN),
        Code("already_claimed", AuthError, REGISTER_AGAIN),
        Code(
            "invalid_grant",
            AuthError,
            "refresh the credential (svc identity refresh) or " + REGISTER_AGAIN,
        ),
        Code(
            "unsupported_grant_type",
            AuthError,
            "the identity platform does not accept this grant",
        ),
        Code("invalid_refresh_token", AuthError, next=REPLACE_CREDENTIAL),
    )
}
