"""The free advisor: the seller quote (a zero-amount proof: x402 in `Payment-Signature`, or an
MPP credential in `Authorization: Payment`) and the guide.

The quote's status is chosen from the goal text by tags (see `STATUS_TAGS` and
docs/sandbox-wire.md), so tests and demos reproduce every one of the spec's seven statuses.
A quote costs nothing: the proof is verified like a task payment with amount 0, no nonce is
consumed and nothing reaches the books.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool

from svc_sandbox.errors import SandboxError, api_error
from svc_sandbox.payments import free_mpp, x402
from svc_sandbox.payments.money import usd
from svc_sandbox.routes.deps import RawBody, sandbox_state
from svc_sandbox.state.config import SandboxConfig
from svc_sandbox.state.sandbox import SandboxState

router = APIRouter(tags=["advisor"])

State = Annotated[SandboxState, Depends(sandbox_state)]

QUOTE_PATH = "/svc/agent/quote"
GUIDE_PATH = "/svc/agent/guide"
PROOF_HEADER = x402.ADVISOR_PROOF_HEADER  # the spec: the free advisor's x402 header
BUDGET_PATTERN = r"^(0|[1-9]\d{0,8})(\.\d{1,6})?$"
GUIDE_GOAL_MAX = 100_000  # a guide may be asked for any task the service accepts


def _integral(value: Any) -> Any:
    """JSON Schema integers: 3 and 3.0 alike; never a bool or a numeric string."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("must be an integer")
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError("must be an integer")
        return int(value)
    return value


Count = Annotated[int, Field(ge=1, le=1_000_000), BeforeValidator(_integral)]

QuoteStatus = Literal[
    "quoted", "ready", "needs_input", "blocked", "unknown", "unsupported", "unavailable"
]

# Goal tags, checked in this order; no tag → `quoted` (or `blocked` when the budget is short).
STATUS_TAGS: tuple[tuple[str, QuoteStatus], ...] = (
    ("#ready", "ready"),
    ("#needs-input", "needs_input"),
    ("#blocked", "blocked"),
    ("#unknown", "unknown"),
    ("#unsupported", "unsupported"),
    ("#unavailable", "unavailable"),
    ("#quoted", "quoted"),
)
DOWN_TAG = "#advisor-down"  # the advisor answers 503 (use the wallet-free guide)

STATUS_MEANING: dict[str, str] = {
    "quoted": "The service can do this; the price below applies per submitted task.",
    "ready": "Everything needed is in the goal: submit it as it is.",
    "needs_input": "Details are missing: ask the user before submitting.",
    "blocked": "Something stands in the way (see below); submitting now would not succeed.",
    "unknown": "The advisor cannot tell whether the service can do this.",
    "unsupported": "The service does not do this kind of task: do not submit it.",
    "unavailable": "The service cannot do this right now: try again later.",
}


class QuoteRequest(BaseModel):
    """The spec's quote request body; no unknown fields."""

    model_config = ConfigDict(extra="forbid")

    goal: str = Field(min_length=1, max_length=2000, description="Do not include credentials.")
    quantity: Count | None = None
    budgetUsd: str | None = Field(default=None, pattern=BUDGET_PATTERN)
    budgetExclusive: StrictBool | None = None
    reviewAfterCalls: Count | None = None
    requirements: str | None = Field(default=None, min_length=1, max_length=300)
    humanAvailable: StrictBool | None = None
    payment: Literal["x402", "mpp", "card"] | None = None


class QuoteResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: QuoteStatus
    priceUsd: Literal["0"]
    guide: str
    guideUrl: str = Field(json_schema_extra={"format": "uri"})


class GuideRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    goal: str = Field(min_length=1, max_length=GUIDE_GOAL_MAX)


class ErrorBody(BaseModel):
    error: str
    detail: Any = None


_ERRORS: dict[int | str, dict[str, Any]] = {
    402: {
        "model": ErrorBody,
        "description": "A zero-amount proof is required: sign the x402 challenge in the "
        "PAYMENT-REQUIRED header and retry with it in Payment-Signature, or answer the MPP "
        "challenge in WWW-Authenticate (amount 0) with Authorization: Payment. No funds move.",
    },
    400: {
        "model": ErrorBody,
        "description": "Malformed JSON body, Payment-Signature proof or Payment credential.",
    },
    401: {"model": ErrorBody, "description": "The proof's signature or challenge did not verify."},
    409: {
        "model": ErrorBody,
        "description": "An MPP credential made for another body or a non-zero amount.",
    },
    503: {"model": ErrorBody, "description": "Advisor unavailable: use the wallet-free guide."},
}


# --- the quote -------------------------------------------------------------------------------


@router.post(
    QUOTE_PATH,
    response_model=QuoteResponse,
    responses=_ERRORS,
    summary="Seller quote (free advisor)",
    description="Returns a guide and a price quote for a goal. Costs 0 USD; requires only a "
    "signed zero-amount wallet proof (x402 in header Payment-Signature, or MPP in "
    "Authorization: Payment). Executes no purchase.",
    operation_id="quote",
)
def quote(body: QuoteRequest, request: Request, state: State, raw: RawBody) -> JSONResponse:
    if DOWN_TAG in body.goal.lower():
        raise api_error(503, "advisor_unavailable", "the advisor is unavailable: use the guide")
    config = state.get_config()
    zero_amount_payer(state, config, request, raw)
    status, guide = advise(body, config, guide_url(request, body.goal))
    url = guide_url(request, body.goal)
    return JSONResponse({"status": status, "priceUsd": "0", "guide": guide, "guideUrl": url})


def zero_amount_payer(
    state: SandboxState, config: SandboxConfig, request: Request, raw: bytes
) -> str | None:
    """Who signed the quote's zero-amount proof: an MPP credential (`Authorization: Payment`)
    or an x402 proof in Payment-Signature. Without one, the 402 offers both (the spec: "x402
    or MPP"); neither moves funds."""
    if free_mpp.is_mpp(request):
        return free_mpp.free_mpp_payer(state, request, raw)
    try:
        return x402.free_call_payer(
            request.headers,
            config,
            reads=PROOF_HEADER,
            required=True,
            resource_url=str(request.url),
            description="Free advisor: sign a zero-amount proof and retry; no funds move.",
        )
    except SandboxError as error:
        free_mpp.offers_mpp(error, state, request, raw)
        raise


def pick_status(goal: str) -> QuoteStatus | None:
    lowered = goal.lower()
    for tag, status in STATUS_TAGS:
        if tag in lowered:
            return status
    return None


def advise(body: QuoteRequest, config: SandboxConfig, url: str) -> tuple[QuoteStatus, str]:
    """The status and the Markdown guide for a quote request (pure, deterministic)."""
    price = Decimal(usd(config.price_atomic))
    quantity = body.quantity or 1
    total = price * quantity
    budget_note = _budget_note(body, quantity, total)
    status = pick_status(body.goal) or ("blocked" if budget_note else "quoted")
    lines = [
        f"# Quote: {status}",
        "",
        STATUS_MEANING[status],
        "",
        "## Result",
        "",
        "The service runs the task against real web sites for the end user and returns a task "
        "object at once; poll it until it is final.",
        "",
        "## Contract",
        "",
        "- `POST /svc/tasks` with `{task, email}` (the task in natural language with every "
        "detail it needs; never include credentials).",
        "- Poll `GET /svc/tasks/{ticket_id}` every 15 to 60 seconds; answer asks with "
        "`POST /svc/tasks/{ticket_id}/reply`.",
        "",
        "## Pricing",
        "",
        f"- {price:.6f} USD per submitted task (pay as you go, fixed price, 0 free units).",
        f"- {quantity} task(s): {total:.6f} USD. Poll, reply and this quote cost 0.",
        "- A quote authorizes no spending.",
    ]
    if budget_note:
        lines.append(f"- {budget_note}")
    if body.reviewAfterCalls is not None:
        lines.append(f"- Review the results after {body.reviewAfterCalls} call(s).")
    if body.requirements:
        lines += ["", "## Requirements", "", body.requirements]
    lines += ["", "## Next steps", ""]
    lines += _next_steps(status, body)
    lines += ["", f"Wallet-free guide: {url}"]
    return status, "\n".join(lines)


def _budget_note(body: QuoteRequest, quantity: int, total: Decimal) -> str:
    """Why the budget does not cover the tasks ("" when it does, or there is none)."""
    if body.budgetUsd is None:
        return ""
    budget = Decimal(body.budgetUsd)
    short = total >= budget if body.budgetExclusive else total > budget
    if not short:
        return ""
    bound = "below" if body.budgetExclusive else "within"
    return (
        f"The budget of {body.budgetUsd} USD does not cover {quantity} task(s) "
        f"({total:.6f} USD); the total must stay {bound} it."
    )


def _next_steps(status: str, body: QuoteRequest) -> list[str]:
    steps = {
        "quoted": ["1. Confirm the price with the user.", "2. Submit the task and pay the 402."],
        "ready": ["1. Submit the task now and pay the 402."],
        "needs_input": [
            "1. Ask the user for the missing details (dates, names, amounts).",
            "2. Ask for a new quote with the complete goal.",
        ],
        "blocked": ["1. Resolve the blocker above, then ask for a new quote."],
        "unknown": ["1. Rephrase the goal with more detail, or try a small first task."],
        "unsupported": ["1. Do not submit this goal; nothing was charged."],
        "unavailable": ["1. Try again later; nothing was charged."],
    }[status]
    if body.payment == "card":
        steps.append("- Card payment is available (the task fee is at least 0.50 USD).")
    elif body.payment:
        steps.append(f"- Pay with {body.payment} when the 402 arrives.")
    if body.humanAvailable is False:
        steps.append(
            "- No human is available: register an anonymous agent identity "
            "(`type` = `anonymous`) for a new autonomous identity."
        )
    return steps


def guide_url(request: Request, goal: str | None = None) -> str:
    from urllib.parse import quote as urlquote

    base = str(request.base_url).rstrip("/") + GUIDE_PATH
    return base if goal is None else f"{base}?goal={urlquote(goal, safe='')}"


# --- the wallet-free guide -------------------------------------------------------------------

_GUIDE_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The guide: JSON (a quote-shaped object) by default, Markdown when "
        "the request accepts text/markdown and not JSON.",
        "content": {"text/markdown": {"schema": {"type": "string"}}},
    }
}


_BAD_REQUEST_LINE = {
    "model": ErrorBody,
    "description": "invalid_request: a request line the server cannot read (too long for a "
    "URL, say), answered as JSON by the server itself. Send a long goal by POST.",
}


@router.get(
    GUIDE_PATH,
    response_model=QuoteResponse,
    responses={**_GUIDE_RESPONSES, 400: _BAD_REQUEST_LINE},
    summary="Wallet-free guide",
    description="The advisor's guide for a goal; needs no wallet.",
    operation_id="guide",
)
def guide_get(
    request: Request,
    state: State,
    goal: Annotated[str, Query(min_length=1, max_length=GUIDE_GOAL_MAX)],
) -> Response:
    return _guide(request, state, goal)


@router.post(
    GUIDE_PATH,
    response_model=QuoteResponse,
    responses={**_GUIDE_RESPONSES, 400: _ERRORS[400]},
    summary="Wallet-free guide (long goals)",
    description="The same guide with the goal in a JSON body `{goal}`, for goals too long "
    "for a URL.",
    operation_id="guidePost",
)
def guide_post(body: GuideRequest, request: Request, state: State) -> Response:
    return _guide(request, state, body.goal)


def _guide(request: Request, state: State, goal: str) -> Response:
    body = QuoteRequest.model_construct(goal=goal)
    # A goal too long for a URL gets the bare endpoint as its link (POST it there).
    url = guide_url(request, goal if len(goal) <= 2000 else None)
    status, text = advise(body, state.get_config(), url)
    accept = request.headers.get("accept", "")
    if "text/markdown" in accept and "json" not in accept:
        return PlainTextResponse(text, media_type="text/markdown; charset=utf-8")
    return JSONResponse({"status": status, "priceUsd": "0", "guide": text, "guideUrl": url})
