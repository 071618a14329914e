"""What an id may be, checked before it goes into a URL or a header.

An id is put into a path segment (`/svc/tasks/{id}`) or a header (`svc-request-id`). Percent-
encoding keeps `/`, `?` and `#` inside the segment, but not `.` and `..`: URL normalisation
(httpx's included) turns `/svc/tasks/..` into `/svc/`, a request to another resource. So an id
is a short run of letters, digits and `-_.:`, never `.` or `..` nor a word a script prints for
a missing value (`null`), and anything else is refused (exit 2) before a byte is sent.
"""

from __future__ import annotations

import string
from urllib.parse import quote

from svc.errors import UsageError

ID_CHARACTERS = frozenset(string.ascii_letters + string.digits + "-_.:")
ID_RULE = "letters, digits, '-', '_', '.' or ':'"
TASK_ID_MAX = 256  # the spec says only "string"; generous, and still no megabyte URL
REQUEST_ID_MIN, REQUEST_ID_MAX = 8, 128


def is_id(value: str, min_length: int = 1, max_length: int = TASK_ID_MAX) -> bool:
    return (
        min_length <= len(value) <= max_length
        and value not in (".", "..")
        and ID_CHARACTERS.issuperset(value)
    )


def _shown(value: str) -> str:
    """The refused value, quoted and inert (ascii() escapes controls), and short."""
    return ascii(value[:40] + ("..." if len(value) > 40 else ""))


# What a script prints for a missing value (jq's `null`, Python's `None`, JavaScript's
# `undefined`): `svc poll "$(... --jq .id)"` after a refused submit must not ask the service
# for a task called "null". No service names a task so.
PLACEHOLDERS = frozenset({"null", "none", "nil", "undefined", "nan", "true", "false"})


def task_id_arg(value: str, name: str = "ID") -> str:
    """A task id as given by the user (or the ledger), or UsageError naming the argument."""
    if value.lower() in PLACEHOLDERS:
        raise UsageError(
            f"invalid {name} {_shown(value)}: that is what a script prints for a missing "
            "value, not a task id; nothing was sent",
            code="invalid_task_id",
            hint="the command that should have given the id did not: a refused submit has "
            "none (`svc tasks` says why), and `svc submit ... --jq .id || exit $?` stops there",
        )
    if not is_id(value):
        raise UsageError(
            f"invalid {name} {_shown(value)}: a task id is 1-{TASK_ID_MAX} {ID_RULE}, "
            "and not '.' or '..'",
            code="invalid_task_id",
        )
    return value


def request_id_arg(value: str, name: str = "request id") -> str:
    """A request id (`--request-id`), or UsageError naming the argument."""
    if not is_id(value, REQUEST_ID_MIN, REQUEST_ID_MAX):
        raise UsageError(
            f"invalid {name} {_shown(value)}: a request id is "
            f"{REQUEST_ID_MIN}-{REQUEST_ID_MAX} {ID_RULE}",
            code="invalid_request_id",
        )
    return value


def path_segment(value: str, name: str) -> str:
    """`value` percent-encoded as one path segment (`/` and all), or UsageError if it cannot be
    one: empty, `.` and `..` survive any encoding as "this" and "the parent" directory."""
    if value in ("", ".", ".."):
        raise UsageError(f"invalid {name} {_shown(value)}: not a path segment")
    return quote(value, safe="")
