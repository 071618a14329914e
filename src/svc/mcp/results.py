"""Tool results: the service's JSON as structured content, a short text, or a tool error.

Every result passes through `scrub`, which replaces any secret the person typed during the
call: even if a server echoed a 2FA code back, it never reaches the model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import mcp_types as types

from svc.errors import SvcError
from svc.ui.sanitize import clean

REDACTED = "[redacted]"
TEXT_LIMIT = 4000  # the short text; the full object is in the structured content


@dataclass
class Outcome:
    """What a tool produced: a JSON object (structured content) and a line or two of text."""

    doc: dict[str, Any]
    text: str


def scrub(value: Any, secrets: list[str]) -> Any:
    """`value` with every occurrence of a secret replaced, at any depth."""
    if not secrets:
        return value
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, REDACTED)
        return value
    if isinstance(value, dict):
        return {scrub(k, secrets): scrub(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub(v, secrets) for v in value]
    return value


def success(outcome: Outcome, secrets: list[str]) -> types.CallToolResult:
    doc = scrub(outcome.doc, secrets)
    text = scrub(clean(outcome.text, TEXT_LIMIT), secrets)
    return types.CallToolResult(
        content=[types.TextContent(text=text)],
        structured_content=doc,
    )


def error_doc(error: SvcError) -> dict[str, Any]:
    """The contract's error object (`svc --json`'s), plus the hint."""
    doc: dict[str, Any] = {
        "error": error.code,
        "detail": clean(error.message, 1000, single_line=True),
        "exit_code": int(error.exit_code),
    }
    if error.hint:
        doc["hint"] = clean(error.hint, 500, single_line=True)
    return doc


def failure(error: SvcError, secrets: list[str]) -> types.CallToolResult:
    doc = scrub(error_doc(error), secrets)
    text = f"error {doc['error']}: {doc['detail']}"
    if "hint" in doc:
        text += f"\nhint: {doc['hint']}"
    return types.CallToolResult(
        content=[types.TextContent(text=text)],
        structured_content=doc,
        is_error=True,
    )


def resource_text(doc: Any) -> str:
    return json.dumps(doc, ensure_ascii=False, indent=2)
