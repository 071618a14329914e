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
