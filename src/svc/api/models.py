"""Pydantic models of every object in the service spec, with its constraints.

Request models (`ReplyBody`, `QuoteRequest`) enforce the spec's limits before anything is sent
(a submission's body is checked by engines/task_rules). Response models tolerate what the spec
leaves open: unknown states, event types and payment statuses are kept as plain strings, and
unknown members are kept (extra="allow"), so a newer server never crashes an older client.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    StrictBool,
    StringConstraints,
)

from svc.money import parse_usd
from svc.sanitize import clean

FINAL_STATES = frozenset({"completed", "failed", "cancelled"})
BUDGET_PATTERN = r"^(0|[1-9]\d{0,8})(\.\d{1,6})?$"


class _Request(BaseModel):
    model_config: ClassVar[ConfigDict] = ConfigDict(extra="forbid", str_strip_whitespace=False)


class _Response(BaseModel):
    model_config: ClassVar[ConfigDict] = ConfigDict(extra="allow")


# --- task submission -------------------------------------------------------------------------


# --- task, ask, events -----------------------------------------------------------------------


class Question(_Response):
    key: str

    def options(self) -> list[str] | None:
        """The answers the question offers (`options`, a member the spec leaves open), cleaned
        as a form shows them, so an option a person picks there is one the reply check takes;
        None if the question is open."""
        offered = (self.model_extra or {}).get("options")
        if not isinstance(offered, list) or not offered:
            return None
        return [clean(str(option), 80, single_line=True) for option in offered[:50]]


class InfoRequest(_Response):
    # Kept as the server sent it (a float | str union turned `true` into 1.0): the one
    # amount parser reads it where it is shown (svc.words.usd).
    amount_usd: object = None
    merchant_name: str | None = None
    payment_status: str | None = None
    payment_error: str | None = None
    requested_fields: list[str] = Field(default_factory=list)
    questions: list[Question] = Field(default_factory=list)
    note: str | None = None
    created_at: str | None = None
    expires_at: str | None = None

    def required_keys(self) -> list[str]:
        """The exact keys `info.field_values` must carry, in a stable order."""
        keys = list(self.requested_fields)
        keys += [q.key for q in self.questions if q.key not in keys]
        return keys

    def choices(self) -> dict[str, tuple[str, ...]]:
        """Each question's options by its key (open questions are not in it); a key asked
        twice (a hostile server's) takes only the options both offer, as an answer must fit
        every question it answers."""
        choices: dict[str, tuple[str, ...]] = {}
        for question in self.questions:
            offered = question.options()
            if not offered:
                continue
            earlier = choices.get(question.key)
            kept = offered if earlier is None else [o for o in earlier if o in offered]
            choices[question.key] = tuple(kept)
        return choices

    @property
    def is_payment_ask(self) -> bool:
        return self.payment_status is not None or self.amount_usd is not None


def _budget(value: object) -> Decimal | None:
    return None if value is None else parse_usd(value, "max_budget_usd")


def _as_sent(amount: Decimal | None) -> int | float | None:
    """The JSON number the service sent (`5` stays `5`, `5.0` stays `5.0`): to_json() is
    what `svc poll --json` prints."""
    if amount is None:
        return None
    exponent = amount.as_tuple().exponent
    return int(amount) if isinstance(exponent, int) and exponent >= 0 else float(amount)


# The task's budget as the one amount parser reads it (a JSON number, exactly as spelt).
Budget = Annotated[
    Decimal | None,
    BeforeValidator(_budget),
    PlainSerializer(_as_sent, when_used="json"),
]


class Task(_Response):
    id: str
    state: str
    goal: str
    flow: str | None
    max_budget_usd: Budget
    webhook_url: str | None
    result: dict[str, Any] | None
    error: str | None
    reason: str | None = None
    created_at: str
    updated_at: str
    completed_at: str | None
    info_request: InfoRequest | None = None

    @property
    def is_final(self) -> bool:
        return self.state in FINAL_STATES


class TaskEvent(_Response):
    id: str
    type: str
    from_state: str | None = None
    to_state: str | None = None
    payload: dict[str, Any] = Field(default_factory=dict)
    created_at: str


class TaskDetail(Task):
    events: list[TaskEvent] = Field(default_factory=list)

    def plain_ask(self) -> dict[str, Any] | None:
        """The newest `input_requested`-style event payload when the task waits on a plain ask."""
        if self.state != "blocked_on_user" or self.info_request is not None:
            return None
        for event in reversed(self.events):
            if event.type in ("input_requested", "ask", "question"):
                return event.payload
        return {}


# --- reply -----------------------------------------------------------------------------------


class ReplyInfo(_Request):
    field_values: dict[str, Annotated[str, StringConstraints(min_length=1)]] | None = None
    payment_approved: StrictBool | None = None


class ReplyBody(_Request):
    message: Annotated[str, StringConstraints(max_length=4000)] | None = None
    field: Annotated[str, StringConstraints(max_length=64)] | None = None
    value: Annotated[str, StringConstraints(max_length=4000)] | None = None
    sensitive: StrictBool = False
    info: ReplyInfo | None = None


# --- advisor ---------------------------------------------------------------------------------


class QuoteRequest(_Request):
    goal: Annotated[str, StringConstraints(min_length=1, max_length=2000)]
    quantity: Annotated[int, Field(ge=1, le=1_000_000, strict=True)] | None = None
    budgetUsd: Annotated[str, StringConstraints(pattern=BUDGET_PATTERN)] | None = None
    budgetExclusive: StrictBool | None = None
    reviewAfterCalls: Annotated[int, Field(ge=1, le=1_000_000, strict=True)] | None = None
    requirements: Annotated[str, StringConstraints(min_length=1, max_length=300)] | None = None
    humanAvailable: StrictBool | None = None
    payment: Literal["x402", "mpp", "card"] | None = None
