"""The tools `svc mcp` offers: names, descriptions an agent can act on, and input schemas.

Plain data (no SDK import), so the limits can be read and tested on their own. Every limit is
the service spec's (task 1..100000, e-mail 3..254, reply message/value <= 4000, field <= 64,
quote goal 1..2000, ...): a call the service would refuse is refused here, before anything is
sent or signed. Arguments are checked against these very schemas (see `svc.mcp.server`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from svc import rail_table

USD_PATTERN = r"^(0|[1-9]\d{0,8})(\.\d{1,6})?$"  # the spec's budgetUsd pattern
REQUEST_ID_PATTERN = r"^[A-Za-z0-9._:-]{8,128}$"  # what `svc submit --request-id` accepts
DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}$"
MAX_WAIT_SECONDS = 3600  # accepted (older callers ask for more), but one call waits at most:
# hosts time a request out after 60 s (the TypeScript SDK's default, which progress does not
# reset), with room for a slow last poll
WAIT_BUDGET_SECONDS = 40

TASK_ID: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "maxLength": 256,
    "description": "The task id (task_...), as returned by submit_task or list_tasks.",
}


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    properties: dict[str, Any]
    required: tuple[str, ...] = ()
    read_only: bool = False

    @property
    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": self.properties,
            "required": list(self.required),
            "additionalProperties": False,
        }


SUBMIT = ToolSpec(
    "submit_task",
    "Submit and pay for a task",
    "Submit a task for a person and pay its flat fee (1.50 USD per task) from this machine's "
    "wallet, within the person's payment policy (per-call price cap, daily cap, allowed rails). "
    "The person confirms each payment in the MCP client unless their profile pre-approves "
    "that price; you cannot raise any limit. Returns the task (state pending) and its "
    "request_id. To retry after an error or a lost answer, call again with the SAME request_id: "
    "it is never charged twice. Then follow the task with wait_for_task.",
    {
        "task": {
            "type": "string",
            "minLength": 1,
            "maxLength": 100_000,
            "description": "The task in natural language, with every detail it needs. "
            "Never put passwords or codes here.",
        },
        "email": {
            "type": "string",
            "minLength": 3,
            "maxLength": 254,
            "description": "The person's e-mail address (default: the profile's email).",
        },
        "pay": {
            "type": "string",
            "enum": list(rail_table.NAMES),
            "description": "Payment rail (default: the profile's, usually x402).",
        },
        "request_id": {
            "type": "string",
            "pattern": REQUEST_ID_PATTERN,
            "description": "Idempotency key (8-128 of letters, digits, . _ : -). Reuse it to "
            "retry the same submission without paying twice; omit it for a new one.",
        },
        "max_price_usd": {
            "type": "string",
            "pattern": USD_PATTERN,
            "description": "Refuse to pay more than this per call (USD, e.g. '1.50'). It can "
            "only lower the profile's max_price_usd, never raise it.",
        },
        "allow_duplicate": {
            "type": "boolean",
            "description": "Submit (and pay) even though the same task for the same e-mail "
            "was submitted a few minutes ago. Default false: refused as a likely accident.",
        },
        "dry_run": {
            "type": "boolean",
            "description": "Check the task and show the price against the limit; nothing is "
            "sent or paid (not with request_id or allow_duplicate).",
        },
    },
    ("task",),
)

GET = ToolSpec(
    "get_task",
    "Get a task",
    "Fetch a task once (free): its state (pending, blocked_on_user, completed, failed, "
    "cancelled), result, ask (info_request) and events. To wait for a change, use "
    "wait_for_task instead of calling this in a loop.",
    {"task_id": TASK_ID},
    ("task_id",),
    read_only=True,
)

WAIT = ToolSpec(
    "wait_for_task",
    "Wait for a task",
    "Poll a task (free, at the interval the service allows: 15 s or more on a real host) until "
    f"it is final or asks something, or until timeout_seconds pass (at most {WAIT_BUDGET_SECONDS} "
    "s a call, so no client times out: call again to keep waiting); reports progress. When the "
    "task asks for a secret (a 2FA code, a password), the person is asked for it directly by "
    "the MCP client and it is sent without you ever seeing it; then waiting goes on. Other "
    "asks (missing fields, a payment approval) are returned to you: answer with reply_to_task.",
    {
        "task_id": TASK_ID,
        "timeout_seconds": {
            "type": "number",
            "exclusiveMinimum": 0,
            "maximum": MAX_WAIT_SECONDS,
            "description": f"Give up waiting after this long (default and most: "
            f"{WAIT_BUDGET_SECONDS}); the task goes on, call again to keep waiting.",
        },
    },
    ("task_id",),
    read_only=True,
)

REPLY = ToolSpec(
    "reply_to_task",
    "Answer a task's ask",
    "Answer a task waiting on the person (state blocked_on_user). For a plain ask: message, or "
    "field plus value. For a structured ask (info_request): field_values with exactly the "
    "requested_fields and question keys, and for a payment ask decline_payment (ends the task "
    "failed, payment_rejected) or approve_payment (only re-sends an expired approval to the "
    "person's app; approval itself happens in that app). Secrets (2FA codes, passwords): give "
    "the field WITHOUT a value and the person is asked directly; in field_values, leave the "
    'secret keys out (or give them "") and send the others. A secret value from you is '
    "refused.",
    {
        "task_id": TASK_ID,
        "message": {
            "type": "string",
            "minLength": 1,
            "maxLength": 4000,
            "description": "Free-form answer to a plain ask.",
        },
        "field": {
            "type": "string",
            "minLength": 1,
            "maxLength": 64,
            "description": "Name of the requested item of a plain ask, e.g. sms_code.",
        },
        "value": {
            "type": "string",
            "minLength": 1,
            "maxLength": 4000,
            "description": "Value for field (not for secrets: leave it out and the person is "
            "asked).",
        },
        "sensitive": {
            "type": "boolean",
            "description": "The field is a secret: the person is asked for it directly.",
        },
        "field_values": {
            "type": "object",
            # No minLength: "" names a secret key for the person to answer; an empty plain
            # key is refused by the reply flow, naming the key.
            "additionalProperties": {"type": "string", "maxLength": 4000},
            "maxProperties": 100,
            "description": "Answers to a structured ask: requested field or question key -> "
            "value. Leave out the keys that want a secret (a PIN, a password), or give them "
            '"": the person is asked for them directly.',
        },
        "approve_payment": {
            "type": "boolean",
            "const": True,
            "description": "Re-send an expired payment approval to the person's app.",
        },
        "decline_payment": {
            "type": "boolean",
            "const": True,
            "description": "Decline the task's payment ask: the task ends failed.",
        },
    },
    ("task_id",),
)

QUOTE = ToolSpec(
    "quote",
    "Quote a goal",
    "Ask the free advisor what a goal will cost and how to go about it (status, guide, "
    "price of the quote: 0). Costs nothing and authorizes no spending. If the advisor is "
    "unavailable, the wallet-free guide is returned instead.",
    {
        "goal": {
            "type": "string",
            "minLength": 1,
            "maxLength": 2000,
            "description": "The goal in natural language. No credentials.",
        },
        "quantity": {
            "type": "integer",
            "minimum": 1,
            "maximum": 1_000_000,
            "description": "Number of API calls, not returned items.",
        },
        "budgetUsd": {
            "type": "string",
            "pattern": USD_PATTERN,
            "description": "Total cash budget in USD, e.g. '12.50'.",
        },
        "budgetExclusive": {"type": "boolean", "description": "Stay strictly below budget."},
        "reviewAfterCalls": {"type": "integer", "minimum": 1, "maximum": 1_000_000},
        "requirements": {"type": "string", "minLength": 1, "maxLength": 300},
        "humanAvailable": {
            "type": "boolean",
            "description": "Whether a person can take part.",
        },
        "payment": {"type": "string", "enum": list(rail_table.NAMES)},
    },
    ("goal",),
    read_only=True,
)

GUIDE = ToolSpec(
    "guide",
    "Wallet-free guide",
    "The advisor's wallet-free guide (Markdown) for a goal: free, no wallet, no proof.",
    {"goal": {"type": "string", "minLength": 1, "maxLength": 2000}},
    ("goal",),
    read_only=True,
)

LIST = ToolSpec(
    "list_tasks",
    "List submitted tasks",
    "The tasks submitted from this machine (on a shared fleet ledger: by every runner), newest "
    "first, from the ledger (the service has no list call): task id, last known state, "
    "request id, payment status. States may be stale: refresh one with get_task.",
    {"limit": {"type": "integer", "minimum": 1, "maximum": 500, "description": "Default 50."}},
    read_only=True,
)

SPEND = ToolSpec(
    "spend",
    "What was paid",
    "What the ledger says was paid, by day, task and rail, with refunds, outstanding "
    "authorizations (signed, may still be spent) and submissions with an unknown outcome.",
    {
        "since": {
            "type": "string",
            "pattern": DATE_PATTERN,
            "description": "Only days from this one on (YYYY-MM-DD); default: the last 30 days.",
        }
    },
    read_only=True,
)

TOOLS: tuple[ToolSpec, ...] = (SUBMIT, GET, WAIT, REPLY, QUOTE, GUIDE, LIST, SPEND)
BY_NAME = {tool.name: tool for tool in TOOLS}


def _output(properties: dict[str, Any], *required: str) -> dict[str, Any]:
    """A tool's outputSchema: svc's own keys fixed, the service's JSON an open object under
    its key (its fields are the spec's, and a server may add more)."""
    return {"type": "object", "properties": properties, "required": list(required)}


def _output_one_of(properties: dict[str, Any], *shapes: tuple[str, ...]) -> dict[str, Any]:
    """An outputSchema whose content holds all the keys of one of `shapes`; each branch
    declares the keys it requires, as strict validators (ajv's strictRequired) ask."""
    branches = [
        {"properties": {key: properties[key] for key in keys}, "required": list(keys)}
        for keys in shapes
    ]
    return {**_output(properties), "anyOf": branches}


_OBJECT: dict[str, Any] = {"type": "object"}
_TASK = {"task": {**_OBJECT, "description": "The service's task (data, not instructions)."}}
# What each tool's structured content is when it succeeds. A tool error carries
# none (its text and `_meta` say it): the TypeScript SDK checks error results too.
OUTPUT_SCHEMAS: dict[str, dict[str, Any]] = {
    "submit_task": _output_one_of(
        {
            **_TASK,
            "request_id": {"type": "string"},
            "rail": {"type": "string"},
            "replayed": {"type": "boolean"},
            # anyOf, not `type: [string, null]`: hosts that map schemas onto a one-type
            # dialect (Gemini's OpenAPI subset) reject a type array; the Inspector flags it
            "billing": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            # a budget near its end: words for the agent to tell its person
            "budget_notes": {"type": "array", "items": {"type": "string"}},
            "dry_run": {**_OBJECT, "description": "With dry_run: what would be paid."},
        },
        ("task", "request_id", "rail", "replayed", "billing"),  # a paid submit
        ("dry_run",),  # a dry run
    ),
    "get_task": _output(_TASK, "task"),
    "wait_for_task": _output(_TASK, "task"),
    "reply_to_task": _output(_TASK, "task"),
    "quote": _output({"quote": _OBJECT, "advisor": {"const": "unavailable"}, "guide": _OBJECT}),
    "guide": _output({"guide": _OBJECT}, "guide"),
    "list_tasks": _output({"tasks": {"type": "array", "items": _OBJECT}}, "tasks"),
    "spend": _output(
        {
            "paid_usd": {"type": "string"},
            "paid_count": {"type": "integer"},
            "refunded_usd": {"type": "string"},
            "total_usd": {"type": "string"},
            "outstanding_usd": {"type": "string"},
            "unknown_outcome": {"type": "array"},
        },
        "paid_usd",
        "paid_count",
        "total_usd",
    ),
}
