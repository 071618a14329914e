"""Tool results: the service's JSON as structured content and a short text, or a tool error
(text only, the error object in `_meta`).

Every result passes through the server's `Vault`, which replaces any secret the person typed
during the life of the process: even if a server folds a 2FA code into the task's goal and
echoes it an hour later, it never reaches the model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, TypeVar

import mcp_types as types

from svc.errors import SvcError
from svc.next_words import mcp as next_words
from svc.pay.budget import PayingSession
from svc.redact import Vault
from svc.sanitize import clean

R = TypeVar("R")
TEXT_LIMIT = 4000  # the short text; the full object is in the structured content


@dataclass
class Outcome:
    """What a tool produced: a JSON object (structured content) and a line or two of text."""

    doc: dict[str, Any]
    text: str


def bounded(text: object, limit: int, vault: Vault, *, single_line: bool = False) -> str:
    """`text` cleaned and cut to `limit`, with no secret and no part of one.

    Scrubbed before the cut (a secret straddling the bound would leave its first characters,
    which no digest matches) and after it (cleaning can join a secret split by a control
    character).
    """
    return str(vault.scrub(clean(vault.scrub(str(text)), limit, single_line=single_line)))


def success(outcome: Outcome, vault: Vault) -> types.CallToolResult:
    doc = vault.scrub(outcome.doc)
    text = bounded(outcome.text, TEXT_LIMIT, vault)
    return types.CallToolResult(
        content=[types.TextContent(text=text)],
        structured_content=doc,
    )


def with_notes(result: R, session: PayingSession, vault: Vault) -> R:
    """A successful tool result with the budget warnings its call raised, under
    `budget_notes` and in the text, so an agent can tell its person; a failure or a question
    leaves them for the next result."""
    if not isinstance(result, types.CallToolResult) or result.is_error or not session.notes:
        return result
    notes = [bounded(note, 500, vault, single_line=True) for note in session.take_notes()]
    if isinstance(result.structured_content, dict):
        result.structured_content["budget_notes"] = notes
    told = "svc warns (tell the person): " + "; ".join(notes)
    result.content = [*result.content, types.TextContent(text=told)]
    return result


def error_doc(error: SvcError, vault: Vault) -> dict[str, Any]:
    """The contract's error object (`svc --json`'s), plus the hint, with no secret in it."""
    next_words.present(error)  # the next step as a tool call, not a CLI flag
    doc: dict[str, Any] = {
        "error": error.code,
        "detail": bounded(error.message, 1000, vault, single_line=True),
        "exit_code": int(error.exit_code),
    }
    if error.status is not None:
        doc["status"] = error.status
    if error.reason:  # an invalid_token's reason names the mistake; the hint says its fix
        doc["reason"] = bounded(error.reason, 100, vault, single_line=True)
    if error.hint:
        doc["hint"] = bounded(error.hint, 500, vault, single_line=True)
    return vault.scrub(doc)  # type: ignore[no-any-return]


ERROR_META = "svc/error"  # where a program finds the error object in an error result


def failure(error: SvcError, vault: Vault) -> types.CallToolResult:
    """A tool error: the text says code, detail, reason and hint, for the model.

    No structured content: a tool's outputSchema describes its results, and the TypeScript
    SDK 1.x (most hosts) checks structured content against it on error results too, throwing
    -32602 so the model never sees the error. The spec lets an error result go without it, and
    the SDK accepts that. The contract's error object (`svc --json`'s) rides in `_meta` for
    programs.
    """
    doc = error_doc(error, vault)
    lines = [f"error {doc['error']}: {doc['detail']}"]
    lines += [f"{key}: {doc[key]}" for key in ("reason", "hint") if key in doc]
    return types.CallToolResult(
        content=[types.TextContent(text="\n".join(lines))],
        meta={ERROR_META: doc},
        is_error=True,
    )


def resource_text(doc: Any) -> str:
    return json.dumps(doc, ensure_ascii=False, indent=2)
