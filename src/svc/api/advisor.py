"""The free advisor: the seller quote (zero-amount proof) and the wallet-free guide."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

from svc.api.headers import CONTENT_TYPE
from svc.api.http import Http
from svc.api.response import expect_json, parse_json
from svc.api.status import error_from_response
from svc.errors import AdvisorUnavailableError, ProtocolError
from svc.origin import HostTrust, TrustedURL, configured, from_server

QUOTE_PATH = "/svc/agent/quote"
GUIDE_PATH = "/svc/agent/guide"
# A guide URL longer than this goes as a POST body instead: servers and proxies cut request
# lines somewhere near 2-8 kB, and a non-ASCII goal is up to 9 bytes a character once encoded.
LONG_URL = 2000
QUOTE_FIELDS = ("status", "priceUsd", "guide", "guideUrl")


@dataclass
class Guide:
    """The guide as returned: its JSON object when it came as JSON, and its Markdown."""

    doc: dict[str, Any] | None
    markdown: str


class AdvisorClient:
    def __init__(self, http: Http, base_url: str) -> None:
        self.http = http
        self.base: TrustedURL = configured(base_url, "the base URL")

    def quote(self, body: dict[str, Any], auth: httpx.Auth, trusts: HostTrust) -> dict[str, Any]:
        """A quote as returned, checked for the spec's four fields; its `guideUrl` is a link
        for a person, so it passes the origin gate (or the whole answer is refused). A 503 is
        AdvisorUnavailableError at once: the spec's answer to it is the guide, not a retry."""
        response = self.http.send(
            "POST",
            self.base.join(QUOTE_PATH),
            what="quote",
            json_body=body,
            auth=auth,
            resend_safe=True,  # free and changes nothing: safe to send again
            final_statuses=(503,),
        )
        if response.status_code == 503:
            raise AdvisorUnavailableError(
                "the advisor is unavailable (503)",
                status=503,
                hint="svc guide GOAL needs no wallet",
            )
        doc = quote_shape(expect_json(response, "quote"))
        from_server(doc["guideUrl"], self.base, "the quote's guideUrl", trusts)
        return doc

    def guide(self, goal: str) -> Guide:
        url = self.base.join(GUIDE_PATH)
        with_goal = str(httpx.URL(str(url), params={"goal": goal}))
        if len(with_goal) > LONG_URL:  # the length that matters is the encoded URL's
            response = self.http.send(
                "POST", url, what="guide", json_body={"goal": goal}, resend_safe=True
            )
        else:
            response = self.http.send("GET", url.derive(with_goal), what="guide", resend_safe=True)
        if response.status_code != 200:
            raise error_from_response(response.status_code, response.content, "guide")
        if "json" not in response.headers.get(CONTENT_TYPE, ""):
            return Guide(None, response.text)
        doc = parse_json(response, "guide")
        if not isinstance(doc, dict):
            raise ProtocolError("guide: the server's answer is not an object")
        text = doc.get("guide")
        return Guide(doc, text if isinstance(text, str) else "")


def quote_shape(doc: Any) -> dict[str, Any]:
    """The quote response, checked for the four fields the spec requires. Its `priceUsd` is
    shown through the one amount parser (views.quote): a malformed one is shown unreadable,
    since a free quote moves no money and its guide is still worth reading."""
    if not isinstance(doc, dict) or not all(isinstance(doc.get(k), str) for k in QUOTE_FIELDS):
        raise ProtocolError("quote: the server's answer is not a quote object")
    return doc
