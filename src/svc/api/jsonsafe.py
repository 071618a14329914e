"""The one loader for JSON that came from outside: nesting is bounded before anything recurses.

`json.loads` recurses once per level of nesting and fails with a RecursionError near Python's
recursion limit (1000), so a 16 MiB answer of `[[[[...` would end a command with an internal
error. Every parse of server JSON goes through `load_json`, which measures the depth with a
linear scan first and refuses anything deeper than `MAX_JSON_DEPTH` as an unreadable answer.
"""

from __future__ import annotations

import json
from itertools import accumulate
from typing import Any

from svc.errors import ProtocolError

# The spec's objects nest a handful of levels; only `result.output` is free-form. 512 is far
# beyond any plausible task output and about half of the recursion limit, so `json.loads` and
# anything that walks the document one frame per level keep room for the call stack under them.
MAX_JSON_DEPTH = 512

_KEEP_ONLY_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}
_CHUNK = 1 << 16  # brackets per step of the count: a bomb is refused after the first


class JsonTooDeepError(ProtocolError, ValueError):
    """Nested deeper than the bound. A ValueError too, so callers that treat malformed JSON as
    no JSON (error bodies) treat this the same way, without a change of their own."""

    def __init__(self, what: str, limit: int) -> None:
        super().__init__(f"{what}: the server sent JSON nested deeper than {limit} levels")


def nesting_exceeds(raw: bytes, limit: int) -> bool:
    """Whether arrays and objects in `raw` nest deeper than `limit`, counted outside strings.

    Linear, and at C speed but for the final count. Strings are cut out first, because brackets
    inside them are text: escaped backslashes, then escaped quotes, go (pairs from the left, as
    JSON reads them), and every other `"` opens or closes a string. For text `json.loads`
    accepts the count is exact; for broken text it is exact up to where `json.loads` stops
    (it never nests past its first error), so the bound is never under-enforced.
    """
    unescaped = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
    outside_strings = b"".join(unescaped.split(b'"')[::2])
    brackets = outside_strings.translate(None, _KEEP_ONLY_BRACKETS)
    depth = 0
    for start in range(0, len(brackets), _CHUNK):
        levels = list(accumulate(map(_STEP.__getitem__, brackets[start : start + _CHUNK])))
        if depth + max(levels) > limit:
            return True
        depth += levels[-1]
    return False


def _as_utf8(raw: bytes | bytearray | str) -> bytes:
    """The text as UTF-8, where no byte of a non-ASCII character can pass for `"`, `\\` or a
    bracket. `json.loads` also reads UTF-16 and UTF-32 bytes, in which it can: those are
    re-encoded before the scan (an undecodable answer raises what `json.loads` would)."""
    if isinstance(raw, str):
        return raw.encode("utf-8", "surrogatepass")
    data = bytes(raw)
    encoding = json.detect_encoding(data)
    if encoding.startswith("utf-8"):
        return data
    return data.decode(encoding, "surrogatepass").encode("utf-8", "surrogatepass")


def load_json(
    raw: bytes | bytearray | str,
    what: str = "the answer",
    *,
    limit: int = MAX_JSON_DEPTH,
    **kwargs: Any,
) -> Any:
    """`json.loads(raw, **kwargs)` that refuses nesting deeper than `limit` (JsonTooDeepError).

    Malformed text raises what `json.loads` raises (ValueError, UnicodeDecodeError), so call
    sites keep their own handling of it.
    """
    data = _as_utf8(raw)
    # Cheap first: fewer brackets than the bound cannot nest deeper than it.
    if data.count(b"[") + data.count(b"{") > limit and nesting_exceeds(data, limit):
        raise JsonTooDeepError(what, limit)
    try:
        return json.loads(raw, **kwargs)
    except RecursionError:  # a belt to the braces above: never a traceback
        raise JsonTooDeepError(what, limit) from None
