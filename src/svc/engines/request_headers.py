"""Which headers of a paid request (`svc request -H`, `Client.request(headers=)`, the
`paid_request` tool) svc refuses, before anything is sent.

The body's framing is httpx's to write from the body it sends: a Content-Length given by hand
wins over the real length (httpx keeps the caller's value), and a Transfer-Encoding given by
hand is sent beside httpx's Content-Length; either makes the bytes on the wire mean another
request than the one journaled and paid. An agent gets less: the connection's own headers and
Host (which would carry a proof made for one origin to another virtual host on the same
server) are not its to set; a person may still send Host, as curl lets them.
"""

from __future__ import annotations

from collections.abc import Iterable

from svc.errors import UsageError

FRAMING = frozenset({"content-length", "transfer-encoding"})
TOKEN_MARKS = frozenset("!#$%&'*+-.^_`|~")  # what an HTTP token may hold beside letters, digits
AGENT_REFUSED = FRAMING | frozenset(
    {
        "host",
        "connection",
        "upgrade",
        "te",
        "trailer",
        "keep-alive",
        "proxy-authorization",
        "proxy-connection",
    }
)


def refuse_headers(names: Iterable[str], refused: frozenset[str] = FRAMING) -> None:
    """A usage error naming the first header of `names` in `refused` (case-insensitive)."""
    for name in names:
        if name.strip().lower() in refused:
            raise UsageError(
                f"the {name.strip()[:40]} header is not one a request may set "
                f"({', '.join(sorted(refused))} are refused); nothing was sent",
                code="header_refused",
            )


def is_token(name: str) -> bool:
    """Whether `name` can be a header's name: an HTTP token, ASCII letters, digits and marks
    (`str.isalnum` takes an é or a fullwidth digit, which no request can carry)."""
    return bool(name) and all(c.isascii() and (c.isalnum() or c in TOKEN_MARKS) for c in name)


def refuse_unwritable(pairs: Iterable[tuple[str, str]]) -> None:
    """A usage error for the first header no request can carry: a name that is no token, a
    value that is not ASCII text on one line. httpx would fail on it as the request is
    written (an internal error), or the connection refuse it on the wire."""
    for name, value in pairs:
        if not is_token(name):
            raise UsageError(f"a header name must be an HTTP token, got {name[:40]!r}")
        if not (value.isascii() and value.replace("\t", " ").isprintable()):
            raise UsageError(
                f"the {name} header's value must be ASCII text on one line, got {value[:40]!r}"
            )
