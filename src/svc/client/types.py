"""The library's results: the service's objects as pydantic models, and a task's ask typed.

A `Task` is field for field what `svc poll --json` (or `svc submit --json`) prints:
`task.model_dump(mode="json", exclude_unset=True)` is that document, unknown members kept
(extra="allow"), so a newer server never breaks an older program. Its `ask` reads what the
task waits on into one of four shapes (engines/asks.py decides which, as `svc watch` does).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Annotated, Any, ClassVar, Literal, cast, get_args

from pydantic import (
    ConfigDict,
    PrivateAttr,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
)

from svc import redact
from svc.api.models import InfoRequest, TaskEvent
from svc.api.models import Task as TaskObject
from svc.engines.asks import ask_kind, plain_payload
from svc.engines.submit import SubmitResult
from svc.errors import ProtocolError, SvcError
from svc.money import AmountError, parse_usd
from svc.rail_table import RailName as Rail
from svc.replies import is_secret, plain_ask_is_secret

__all__ = [
    "Ask",
    "BatchResult",
    "DryRun",
    "PaidAnswer",
    "PaymentApproval",
    "PaymentOffer",
    "PlainAsk",
    "QuestionsAsk",
    "Rail",
    "SecretAsk",
    "Submission",
    "Task",
    "TaskState",
]


@dataclass(frozen=True)
class PlainAsk:
    """A plain ask: answer with `Message(text)`, or `Value(value)` for its `field`."""

    field: str | None
    message: str | None
    sensitive: bool = False


@dataclass(frozen=True)
class SecretAsk(PlainAsk):
    """A plain ask whose field is a secret (a 2FA code, a password): answer with
    `Secret(value)`; it is sent marked sensitive and never shown back."""

    sensitive: bool = True


@dataclass(frozen=True)
class QuestionsAsk:
    """Structured questions: answer with `Fields({key: value, ...})` holding exactly `keys`.
    `secret_keys` are the keys whose names read as secrets (send them with sensitive=True)."""

    keys: tuple[str, ...]
    secret_keys: tuple[str, ...]
    info_request: InfoRequest
    expires_at: str | None


@dataclass(frozen=True)
class PaymentApproval:
    """The task asks about a payment (approved in the user's payment app): `Decline()` ends
    it; `Approve()` re-sends an approval whose `payment_status` is approval_expired."""

    amount_usd: Decimal | None
    merchant_name: str | None
    payment_status: str | None
    keys: tuple[str, ...]
    info_request: InfoRequest
    expires_at: str | None


Ask = PlainAsk | SecretAsk | QuestionsAsk | PaymentApproval
# The spec's task states (engines/task_list.TASK_STATES; a test holds the two together).
TaskState = Literal["pending", "blocked_on_user", "completed", "failed", "cancelled"]


def _state_kept(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    """One of the spec's states, or any other string as the server sent it: a state a newer
    service adds must not break an older program (the CLI shows it as it is too)."""
    try:
        return handler(value)
    except ValidationError:
        if isinstance(value, str):
            return value
        raise


# What a type checker sees is the spec's states (openai-python types its enums the same way);
# at run time a newer one is kept, never refused.
KnownState = Annotated[TaskState, WrapValidator(_state_kept)]


def rail_of(name: str) -> Rail:
    """A rail's name as the Rail type (svc chose it: any other is a bug, not an input)."""
    if name in get_args(Rail):
        return cast("Rail", name)
    raise ValueError(f"not a rail: {name!r}")


@dataclass(frozen=True)
class Submission:
    """How a submitted task was paid: its request id (the key that resumes it without paying
    again), the rail, the service's svc-billing line, and whether it was accepted earlier."""

    request_id: str
    rail: Rail
    billing: str | None
    replayed: bool

    @classmethod
    def of(cls, result: SubmitResult) -> Submission:
        """How the submit engine's result was paid."""
        return cls(result.request_id, rail_of(result.rail), result.billing, result.replayed)


class Task(TaskObject):
    """A task as the service answered it (the task object, plus `events` when polled)."""

    model_config: ClassVar[ConfigDict] = ConfigDict(extra="allow")

    state: KnownState
    events: list[TaskEvent] | None = None
    _submission: Submission | None = PrivateAttr(default=None)

    @classmethod
    def from_service(cls, doc: dict[str, Any], submission: Submission | None = None) -> Task:
        """The service's task as a model; a shape the spec does not allow is the server's
        fault (ProtocolError), never a pydantic error from deep inside. A secret this
        process was told is scrubbed out, as from everything the CLI prints: the service may
        fold an answer into the goal or an event."""
        try:
            task = cls.model_validate(redact.scrub(doc))
        except ValidationError as exc:
            where = ".".join(str(p) for p in exc.errors()[0]["loc"]) or "task"
            raise ProtocolError(f"the server's task is not one the spec allows ({where})") from None
        task._submission = submission
        return task

    @property
    def submission(self) -> Submission | None:
        """Set on the Task `Client.submit` returns; None on one that was polled."""
        return self._submission

    def to_json(self) -> dict[str, Any]:
        """What `--json` prints for this task."""
        return self.model_dump(mode="json", exclude_unset=True)

    @property
    def ask(self) -> Ask | None:
        """What the task waits on, typed; None unless it is blocked_on_user."""
        doc = self.to_json()
        kind = ask_kind(doc)
        if kind == "plain":
            return _plain_ask(plain_payload(doc))
        if kind in ("structured", "payment") and self.info_request is not None:
            return _structured_ask(self.info_request, kind)
        return None


def _plain_ask(payload: dict[str, Any]) -> PlainAsk:
    field = payload.get("field") if isinstance(payload.get("field"), str) else None
    text = payload.get("message") or payload.get("prompt")
    message = str(text) if text is not None else None
    if plain_ask_is_secret(payload):
        return SecretAsk(field=field, message=message)
    return PlainAsk(field=field, message=message)


def _structured_ask(ask: InfoRequest, kind: str) -> QuestionsAsk | PaymentApproval:
    keys = tuple(ask.required_keys())
    if kind == "payment":
        return PaymentApproval(
            amount_usd=_amount(ask.amount_usd),
            merchant_name=ask.merchant_name,
            payment_status=ask.payment_status,
            keys=keys,
            info_request=ask,
            expires_at=ask.expires_at,
        )
    secret = tuple(k for k in keys if is_secret(k))
    return QuestionsAsk(keys=keys, secret_keys=secret, info_request=ask, expires_at=ask.expires_at)


def _amount(raw: object) -> Decimal | None:
    """The ask's amount read by the one parser; None when absent or not an amount."""
    try:
        return parse_usd(raw, "amount_usd")
    except AmountError:
        return None


@dataclass(frozen=True)
class PaymentOffer:
    """The payment `approve(offer)` is asked about, read-only: nothing is signed before it
    answers True. `origin` is the service's origin (the base URL's). `previous_pay_to` is
    set when the recipient differs from the one pinned for this origin: True trusts it."""

    amount_usd: Decimal
    rail: Rail
    network: str | None
    asset: str | None
    pay_to: str
    origin: str
    previous_pay_to: str | None = None


@dataclass(frozen=True)
class DryRun:
    """What `submit(..., dry_run=True)` would send and pay, with nothing sent: the price the
    service's manifest lists (`price_source` "manifest", else the spec's flat fee: "spec"),
    the rail, the per-call limit, and whether the policy's price limit allows it."""

    price_usd: Decimal
    price_source: str
    pay: Rail
    max_price_usd: Decimal
    within_policy: bool
    body: dict[str, Any]

    @classmethod
    def from_document(cls, doc: dict[str, Any]) -> DryRun:
        """From engines/dry_run's document (`svc submit --dry-run --json`)."""
        return cls(
            price_usd=parse_usd(doc["price_usd"], "price_usd"),
            price_source=str(doc["price_source"]),
            pay=rail_of(str(doc["pay"])),
            max_price_usd=parse_usd(doc["max_price_usd"], "max_price_usd"),
            within_policy=bool(doc["within_policy"]),
            body=dict(doc["request"]["body"]),
        )


@dataclass(frozen=True)
class PaidAnswer:
    """The answer to `request(...)`: its status and headers (names lowercased, repeated ones
    joined), its body (empty when it went to `output`), what was paid for it (None: nothing)
    and by which rail, and the request id that resumes it without paying twice."""

    status: int
    headers: dict[str, str]
    body: bytes
    paid_usd: Decimal | None
    rail: Rail | None
    request_id: str | None

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


BatchOutcome = Literal["submitted", "already_accepted", "failed", "invalid"]


@dataclass(frozen=True)
class BatchResult:
    """One line of `submit_many`, as it finishes (not in input order): `submitted` with its
    `task` (paid now, or its journaled proof re-sent: `task.submission.replayed`),
    `already_accepted` (the ledger holds it accepted: not sent again; `task_id` only),
    `failed` with its `error` (settled as a submit's: `error.data["paid"]` if this line
    paid), or `invalid` (a bad line, never sent; only with skip_bad_lines)."""

    line: int  # 1-based: the line's place among the lines given, or its line in the file
    request_id: str | None
    outcome: BatchOutcome
    task: Task | None = None
    task_id: str | None = None
    error: SvcError | None = None

    @property
    def index(self) -> int:
        """The line's 0-based place among the lines given (a file's line number - 1)."""
        return self.line - 1
