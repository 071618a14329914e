"""Reading an answer: the status the caller expects, and a JSON body within the depth bound.

An error status becomes the contract's error (api/status.py); any other unexpected status, a
body not labelled JSON or malformed JSON is a ProtocolError.
"""

from __future__ import annotations

from typing import Any

import httpx  # svc/__init__.py has already kept httpx's CLI (click, rich) from loading

from svc.api.headers import CONTENT_TYPE
from svc.api.jsonsafe import JsonTooDeepError, load_json
from svc.api.status import error_from_response
from svc.errors import ProtocolError


def expect_status(
    response: httpx.Response, what: str, ok: tuple[int, ...] = (200,)
) -> httpx.Response:
    """The response, when its status is one the caller expects. An error status is the
    contract's error for it; any other status is not what the spec promises."""
    status = response.status_code
    if status in ok:
        return response
    if status >= 400:
        raise error_from_response(status, response.content, what)
    expected = " or ".join(str(code) for code in ok)
    raise ProtocolError(f"{what}: the service answered {status}, not {expected}")


def expect_json(response: httpx.Response, what: str, ok: tuple[int, ...] = (200,)) -> Any:
    """The parsed body of a successful response, or the contract's error for anything else."""
    return parse_json(expect_status(response, what, ok), what)


def parse_json(response: httpx.Response, what: str) -> Any:
    return json_body(response.content, response.headers.get(CONTENT_TYPE, ""), what)


def json_body(content: bytes, content_type: str, what: str) -> Any:
    """A body the server labelled JSON, parsed within the depth bound; else ProtocolError."""
    if "json" not in content_type:
        raise ProtocolError(
            f"{what}: the server answered {content_type or 'no content type'} instead of JSON"
        )
    try:
        return load_json(content, what)
    except JsonTooDeepError:
        raise
    except (ValueError, UnicodeDecodeError):
        raise ProtocolError(f"{what}: the server sent malformed JSON") from None
