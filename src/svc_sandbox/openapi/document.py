"""The sandbox's public interface description, built from its own FastAPI OpenAPI.

FastAPI describes what the routes parse; this module adds what the spec promises on top of
that (the task objects' shapes, every declared status code, the payment-info blocks) and drops
the test controls under /_sandbox, so the document is the paid surface as a client sees it.
Search, filters and paging work on the flat list of operations this module returns.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI

from svc_sandbox.openapi import by_hand
from svc_sandbox.payments.money import usd
from svc_sandbox.state.config import SandboxConfig

SERVICE_SLUG = "tasks"
METER = {"service": SERVICE_SLUG, "meter": "task", "unit": "task", "unitSize": 1}
METHODS = ("get", "put", "post", "delete", "patch", "options", "head", "trace")
HIDDEN_PREFIXES = ("/_sandbox", "/_sample")
SAMPLE_PREFIX = "/_sample/operation-"
# What the sandbox's submit accepts (`[^@\s]+@[^@\s.]+(\.[^@\s.]+)+`), with Python's `\s`
# spelled out: ECMA-262 (JSON Schema's regex dialect) means another set of characters by `\s`.
_SPACE = r"\t\n\x0b\x0c\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
EMAIL_PATTERN = rf"^[^@{_SPACE}]+@[^@.{_SPACE}]+(\.[^@.{_SPACE}]+)+$"

_ERROR = {"$ref": "#/components/schemas/ErrorBody"}
_VALIDATION = {"$ref": "#/components/schemas/HTTPValidationError"}

_ERROR_TEXT = {
    "400": "Malformed request (e-mail address, or payment proof).",
    "401": "Agent signature verification failed.",
    "402": "Payment required: a signed challenge in the PAYMENT-REQUIRED header.",
    "404": "Unknown task id, or not this agent's task.",
    "409": "Conflict: the task is not waiting on a reply, the payment ask does not match, "
    "or the request id was used by another payer.",
    "410": "The ask expired before the reply arrived.",
    "422": "Validation error.",
    "503": "Advisor unavailable: use the wallet-free guide.",
}

# Status codes per operation, from the spec's tables (plus 400 for an undecodable proof and
# 409 payment_request_mismatch on submit, which the spec lists among payment codes).
_TASK_RESPONSES: dict[tuple[str, str], tuple[str, str, tuple[str, ...]]] = {
    ("/svc/tasks", "post"): ("202", "Task", ("400", "401", "402", "409", "422")),
    ("/svc/tasks/{ticket_id}", "get"): ("200", "TaskDetail", ("400", "401", "402", "404", "422")),
    ("/svc/tasks/{ticket_id}/reply", "post"): (
        "200",
        "Task",
        ("400", "401", "402", "404", "409", "410", "422"),
    ),
}
_TASK_TEXT = {
    ("/svc/tasks", "post"): (
        "submitTask",
        "Submit a task (1.50 USD, paid per call)",
        "Runs a natural-language task for the end user. Pay the 402 with x402 (proof in "
        "header x-payment); a retried request with the same svc-request-id returns the "
        "original task and is never charged twice.",
    ),
    ("/svc/tasks/{ticket_id}", "get"): (
        "pollTask",
        "Poll a task (free)",
        "The task detail with its events. Poll every 15 to 60 seconds while it is live.",
    ),
    ("/svc/tasks/{ticket_id}/reply", "post"): (
        "replyToTask",
        "Answer a blocked_on_user ask (free)",
        "A plain ask takes message, or field plus value (sensitive for secrets); a structured "
        "ask takes info.field_values with exactly the requested keys.",
    ),
}

_TASK_SCHEMAS: dict[str, Any] = {
    "ErrorBody": {
        "type": "object",
        "required": ["error"],
        "properties": {
            "error": {"type": "string"},
            "reason": {"type": "string"},
            "detail": {},
        },
    },
    "InfoRequest": {
        "type": "object",
        "properties": {
            "amount_usd": {},
            "merchant_name": {},
            "payment_status": {},
            "payment_error": {},
            "requested_fields": {"type": "array", "items": {"type": "string"}},
            "questions": {
                "type": "array",
                "items": {"type": "object", "required": ["key"], "properties": {"key": {}}},
            },
            "note": {},
            "created_at": {},
            "expires_at": {},
        },
        "required": ["requested_fields", "questions", "created_at", "expires_at"],
    },
    "Task": {
        "type": "object",
        "required": [
            "id",
            "state",
            "goal",
            "flow",
            "max_budget_usd",
            "webhook_url",
            "result",
            "error",
            "created_at",
            "updated_at",
            "completed_at",
        ],
        "properties": {
            "id": {"type": "string"},
            "state": {
                "type": "string",
                "enum": ["pending", "blocked_on_user", "completed", "failed", "cancelled"],
            },
            "goal": {"type": "string"},
            "flow": {"type": ["string", "null"]},
            "max_budget_usd": {"type": ["number", "null"]},
            "webhook_url": {"type": ["string", "null"]},
            "result": {"type": ["object", "null"]},
            "error": {"type": ["string", "null"]},
            "reason": {"type": ["string", "null"]},
            "created_at": {"type": "string", "format": "date-time"},
            "updated_at": {"type": "string", "format": "date-time"},
            "completed_at": {"type": ["string", "null"], "format": "date-time"},
            "info_request": {
                "anyOf": [{"$ref": "#/components/schemas/InfoRequest"}, {"type": "null"}]
            },
        },
    },
    "TaskEvent": {
        "type": "object",
        "required": ["id", "type", "from_state", "to_state", "payload", "created_at"],
        "properties": {
            "id": {"type": "string"},
            "type": {"type": "string"},
            "from_state": {"type": ["string", "null"]},
            "to_state": {"type": ["string", "null"]},
            "payload": {"type": "object"},
            "created_at": {"type": "string", "format": "date-time"},
        },
    },
    "TaskDetail": {
        "allOf": [
            {"$ref": "#/components/schemas/Task"},
            {
                "type": "object",
                "required": ["events"],
                "properties": {
                    "events": {
                        "type": "array",
                        "items": {"$ref": "#/components/schemas/TaskEvent"},
                    }
                },
            },
        ]
    },
}


@dataclass(frozen=True)
class Operation:
    path: str
    method: str
    spec: dict[str, Any]

    @property
    def service(self) -> str | None:
        value = self.spec.get("x-service")
        return value if isinstance(value, str) else None


def payment_info(price_atomic: int) -> dict[str, Any]:
    """The spec's payment-info block: payg, fixed, one rate on the tasks/task meter."""
    price = usd(price_atomic) if price_atomic else "0"
    return {
        "accessMode": "payg",
        "priceMode": "fixed",
        "priceUsd": price,
        "rates": [{**METER, "priceUsd": price, "freeUnits": 0}],
    }


def base_document(app: FastAPI, config: SandboxConfig) -> dict[str, Any]:
    """The whole public document (all operations, unpaged), fresh for this config."""
    doc = copy.deepcopy(app.openapi())
    doc["openapi"] = "3.1.0"
    doc["info"] = {
        "title": "Task-execution service (sandbox)",
        "version": "1.0.0",
        "summary": "A paid, asynchronous task-execution API, emulated locally.",
        "description": "Submit a natural-language task for an end user (1.500000 USD per "
        "task, x402), poll it until it is final, answer its asks. A free advisor quotes "
        "goals. Paths under /_sample are sandbox padding for paging tests, never real.",
    }
    paths: dict[str, Any] = {}
    for path, item in doc.get("paths", {}).items():
        if path.startswith(HIDDEN_PREFIXES):
            continue
        for method, op in item.items():
            if method in METHODS:
                _enrich(path, method, op, config)
        paths[path] = item
    for i in range(1, config.discovery_sample_operations + 1):
        paths[f"{SAMPLE_PREFIX}{i:03d}"] = {"get": _sample_operation(i)}
    doc["paths"] = paths
    components = doc.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    schemas.update(copy.deepcopy(_TASK_SCHEMAS))
    schemas.update(copy.deepcopy(by_hand.SCHEMAS))
    components["securitySchemes"] = copy.deepcopy(by_hand.SECURITY_SCHEMES)
    email = schemas.get("TaskSubmission", {}).get("properties", {}).get("email")
    if isinstance(email, dict):  # what the service calls well-formed (else 400)
        email["pattern"] = EMAIL_PATTERN
    return doc


def _enrich(path: str, method: str, op: dict[str, Any], config: SandboxConfig) -> None:
    key = (path, method)
    tags = op.get("tags") or []
    if key in _TASK_RESPONSES:
        ok, schema, errors = _TASK_RESPONSES[key]
        op_id, summary, description = _TASK_TEXT[key]
        op.update(operationId=op_id, summary=summary, description=description, tags=["tasks"])
        responses: dict[str, Any] = {
            ok: {
                "description": "The task.",
                "content": {
                    "application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}
                },
            }
        }
        for status in errors:
            ref = _VALIDATION if status == "422" else _ERROR
            responses[status] = {
                "description": _ERROR_TEXT[status],
                "content": {"application/json": {"schema": ref}},
            }
        op["responses"] = responses
        paid = key == ("/svc/tasks", "post")
        op["x-service"] = SERVICE_SLUG
        op["x-payment-info"] = payment_info(config.price_atomic if paid else 0)
    elif "advisor" in tags:
        op["x-service"] = SERVICE_SLUG
        op["x-payment-info"] = payment_info(0)
    elif key in by_hand.ROUTES:
        _describe(op, by_hand.ROUTES[key])
    for status, answer in op.get("responses", {}).items():
        if status.startswith(("4", "5")) and "content" not in answer:
            answer["content"] = {"application/json": {"schema": _ERROR}}


def _describe(op: dict[str, Any], description: dict[str, Any]) -> None:
    """Set what FastAPI could not see; its 422 stays where it validates a parameter."""
    validation = op.get("responses", {}).get("422")
    op.update(copy.deepcopy(description))
    if validation is not None:
        op["responses"]["422"] = validation


def _sample_operation(i: int) -> dict[str, Any]:
    return {
        "operationId": f"sampleOperation{i:03d}",
        "summary": f"Sample operation {i} (sandbox padding, not a real operation)",
        "description": "Added by the sandbox config `discovery_sample_operations` so tests "
        "can page through the document. Calling it returns 404.",
        "tags": ["sample"],
        "x-sandbox-sample": True,
        "responses": {"200": {"description": "Never returned."}},
    }


def operations(doc: dict[str, Any]) -> list[Operation]:
    return [
        Operation(path, method, op)
        for path, item in doc.get("paths", {}).items()
        for method, op in item.items()
        if method in METHODS and isinstance(op, dict)
    ]


_WORD = re.compile(r"[a-z0-9]+")


def _words(text: object) -> list[str]:
    return _WORD.findall(str(text).lower())


def score(op: Operation, terms: list[str]) -> int:
    """How well an operation matches the query terms (0: not at all)."""
    fields = (
        (4, " ".join([op.path, op.spec.get("operationId", "")])),
        (3, op.spec.get("summary", "")),
        (2, " ".join(op.spec.get("tags", []))),
        (1, op.spec.get("description", "")),
    )
    total = 0
    for term in terms:
        matched = 0
        for weight, text in fields:
            words = _words(text)
            if term in words:
                matched = max(matched, weight * 2)
            elif any(w.startswith(term) for w in words):
                matched = max(matched, weight)
        if matched == 0:
            return 0  # every term must match somewhere
        total += matched
    return total


def select(
    ops: list[Operation], *, q: str | None, path: str | None, method: str | None
) -> list[Operation]:
    """Exact filters, then ranked search (stable: ties keep the document's order)."""
    chosen = [
        op
        for op in ops
        if (path is None or op.path == path) and (method is None or op.method == method.lower())
    ]
    terms = _words(q or "")
    if not terms:
        return chosen
    scored = [(score(op, terms), i, op) for i, op in enumerate(chosen)]
    return [op for s, _, op in sorted(scored, key=lambda t: (-t[0], t[1])) if s > 0]


def document_of(base: dict[str, Any], ops: list[Operation]) -> dict[str, Any]:
    """A copy of `base` holding only `ops` (in their order) and the schemas they reference."""
    doc = {k: copy.deepcopy(v) for k, v in base.items() if k not in ("paths", "components")}
    paths: dict[str, dict[str, Any]] = {}
    for op in ops:
        paths.setdefault(op.path, {})[op.method] = copy.deepcopy(op.spec)
    doc["paths"] = paths
    all_schemas = base.get("components", {}).get("schemas", {})
    needed = _referenced(paths, all_schemas)
    doc["components"] = {"schemas": {name: all_schemas[name] for name in sorted(needed)}}
    if any("security" in op.spec for op in ops):
        doc["components"]["securitySchemes"] = copy.deepcopy(base["components"]["securitySchemes"])
    return doc


def _referenced(node: Any, schemas: dict[str, Any]) -> set[str]:
    found: set[str] = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
                name = ref.rsplit("/", 1)[1]
                if name not in found and name in schemas:
                    found.add(name)
                    stack.append(schemas[name])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found
