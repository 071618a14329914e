"""`-v`: each request and answer as lines for the caller's printer, secrets redacted.

The printer is a callback (the CLI's cleans each line before it reaches the terminal), so api/
never writes to one itself.
"""

from __future__ import annotations

from collections.abc import Callable

import httpx  # svc/__init__.py has already kept httpx's CLI (click, rich) from loading

from svc.api.headers import CREDENTIAL_HEADERS, PAYMENT_HEADERS

# What -v never prints: every header that carries a proof or a credential (the cleartext
# guard's list), and the receipts and cookies a server sets.
REDACTED_HEADERS = PAYMENT_HEADERS | CREDENTIAL_HEADERS | {"set-cookie", "payment-receipt"}


class Tracer:
    """Writes to `printer`, or nowhere when there is none (no `-v`)."""

    def __init__(self, printer: Callable[[str], None] | None) -> None:
        self.printer = printer

    def say(self, text: str) -> None:
        if self.printer is not None:
            self.printer(text)

    def request(self, request: httpx.Request) -> None:
        """An httpx request hook."""
        self.say(f"> {request.method} {request.url}\n{_headers(request.headers)}")

    def response(self, response: httpx.Response) -> None:
        """An httpx response hook."""
        self.say(f"< {response.status_code} {response.request.url}\n{_headers(response.headers)}")


def _headers(headers: httpx.Headers) -> str:
    """Header lines with secrets redacted and each part cut; the printer cleans them."""
    shown = []
    for name, value in headers.items():
        shown_value = "[redacted]" if name.lower() in REDACTED_HEADERS else value
        shown.append(f"    {name[:100]}: {shown_value[:1000]}")
    return "\n".join(shown)
