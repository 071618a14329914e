"""Card by hosted page: the 402's `payment` + `card` blocks, `payUrl`, `statusUrl`.

1. `POST payUrl {"checkout": true}` starts a hosted payment page;
2. a person pays on that page (we show the link, open a browser on a terminal, and print a QR
   code there);
3. we poll `statusUrl` until the payment is complete;
4. the original request is re-sent unchanged plus `svc-payment-id: <payment.id>`.

Without a person at hand (`--no-input`, CI, a pipe) the payment is saved in the ledger, the link
printed, and the command exits 6; `svc pay card [REQUEST_ID]` resumes it later.
The spec leaves the two endpoints' response shapes open, so we read them leniently; every URL
in them passes the origin gate (svc.origin.from_server): on the origin that sent the 402, or on
a host the person confirmed, never with userinfo. The recipient pinned is that host.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from svc.api import headers
from svc.api.response import expect_json
from svc.errors import HumanNeeded, PaymentFailed, ProtocolError
from svc.money import AmountError, parse_atomic, parse_usd, usd_to_atomic
from svc.next_step import step
from svc.origin import HostTrust, TrustedURL, from_server

if TYPE_CHECKING:
    from svc.api.http import Http
    from svc.report import Reporter

PAYMENT_ID_HEADER = headers.PAYMENT_ID
COMPLETE = frozenset({"paid", "complete", "completed", "succeeded", "success"})
DEAD = frozenset({"failed", "canceled", "cancelled", "expired", "released", "refunded"})
DEFAULT_WAIT_SECONDS = 15 * 60.0
AMOUNT_FIELD = "the 402's payment.amountUsd"


@dataclass(frozen=True)
class CardOffer:
    payment_id: str
    amount_atomic: int  # µUSD
    pay_url: TrustedURL
    status_url: TrustedURL

    @property
    def recipient(self) -> str:
        """What we pin for card payments: the host (and port) that takes the money."""
        return self.pay_url.netloc


def parse_offer(body: Any, served_by: TrustedURL, trusts: HostTrust) -> CardOffer | None:
    """The card offer in a 402 body, or None when the service offers no card payment."""
    if not isinstance(body, dict):
        return None
    payment, card = body.get("payment"), body.get("card")
    if not isinstance(payment, dict) or not isinstance(card, dict):
        return None
    pid, pay_url, status_url = payment.get("id"), card.get("payUrl"), card.get("statusUrl")
    if not all(isinstance(v, str) and v for v in (pid, pay_url, status_url)):
        raise ProtocolError("the 402's card block lacks payment.id, payUrl or statusUrl")
    pay = from_server(pay_url, served_by, "the card payment's payUrl", trusts)
    status = from_server(status_url, served_by, "the card payment's statusUrl", trusts)
    currency = str(payment.get("currency", "USD")).upper()
    if currency != "USD":
        raise PaymentFailed(f"the card payment is in {currency}, not USD", code="bad_currency")
    return CardOffer(str(pid), _amount(payment.get("amountUsd")), pay, status)


def _amount(value: object, saved: bool = False) -> int:
    """µUSD of the offer's `amountUsd` (or of the ledger's saved row), by the one amount
    parser (Decimal() would read `1_0.5` as 10.5): a malformed one refuses the payment before
    anything is started."""
    try:
        if saved:
            return parse_atomic(value, "the saved card payment's amount")
        return usd_to_atomic(parse_usd(value, AMOUNT_FIELD))
    except AmountError as exc:
        raise PaymentFailed(
            f"refusing to pay: {str(exc).rstrip('.')}; nothing was paid", code="malformed_amount"
        ) from None


def saved_offer(saved: dict[str, Any], served_by: TrustedURL, trusts: HostTrust) -> CardOffer:
    """A card payment kept in the ledger, its URLs gated again (the file may be old or edited)."""
    return CardOffer(
        str(saved["payment_id"]),
        _amount(saved["amount_atomic"], saved=True),
        from_server(saved["pay_url"], served_by, "the saved card payment's payUrl", trusts),
        from_server(saved["status_url"], served_by, "the saved card payment's statusUrl", trusts),
    )


def _checkout_link(doc: Any, offer: CardOffer, trusts: HostTrust) -> TrustedURL:
    """The page a person pays on: the link the checkout answered with, else payUrl itself."""
    if isinstance(doc, dict):
        for key in ("checkoutUrl", "url", "hostedUrl", "pageUrl", "payUrl"):
            value = doc.get(key)
            if isinstance(value, str):
                return from_server(value, offer.pay_url, "the card payment page", trusts)
    return offer.pay_url


def payment_state(doc: Any) -> str:
    """`complete`, `dead` or `pending`, from a statusUrl answer."""
    if not isinstance(doc, dict):
        return "pending"
    if doc.get("complete") is True or doc.get("paid") is True:
        return "complete"
    status = str(doc.get("status", "")).lower()
    if status in COMPLETE:
        return "complete"
    if status in DEAD:
        return "dead"
    return "pending"


class CardCheckout:
    """Talks to payUrl/statusUrl; shows the page to a person and waits for them."""

    def __init__(
        self,
        http: Http,
        report: Reporter,
        *,
        base: TrustedURL,
        trusts: HostTrust,
        interactive: bool,
        show_page: Callable[[TrustedURL], None] | None = None,
        wait_seconds: float = DEFAULT_WAIT_SECONDS,
        interval: float = 2.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.http = http
        self.report = report
        self.base = base  # the origin that sends the 402s: card URLs must be on it (or trusted)
        self.trusts = trusts
        self.interactive = interactive
        self.show_page = show_page  # the caller's QR code and browser, for a person only
        self.wait_seconds = wait_seconds
        self.interval = interval
        self.sleep = sleep

    def offer(self, body: Any) -> CardOffer | None:
        return parse_offer(body, self.base, self.trusts)

    def saved(self, saved: dict[str, Any]) -> tuple[CardOffer, TrustedURL]:
        """A card payment kept in the ledger and the page to show for it, gated again."""
        offer = saved_offer(saved, self.base, self.trusts)
        page = saved.get("checkout_url")
        if not page:
            return offer, offer.pay_url
        return offer, from_server(page, offer.pay_url, "the saved card payment page", self.trusts)

    def start(self, offer: CardOffer) -> TrustedURL:
        """Start the hosted page; returns its link."""
        response = self.http.send(
            "POST",
            offer.pay_url,
            what="card checkout",
            json_body={"checkout": True},
            resend_safe=True,  # starting a checkout twice charges nothing
        )
        doc = expect_json(response, "card checkout", ok=(200, 201))
        return _checkout_link(doc, offer, self.trusts)

    def status(self, offer: CardOffer) -> str:
        doc = self.http.get_json(offer.status_url, what="card payment status")
        return payment_state(doc)

    def show(self, link: TrustedURL, amount_usd: str) -> None:
        self.report.info(f"Pay {amount_usd} by card on this page: {link}")
        if self.interactive and self.show_page is not None:
            self.show_page(link)

    def wait(self, offer: CardOffer) -> None:
        """Poll statusUrl until complete; raises if it dies or the wait runs out."""
        deadline = time.monotonic() + self.wait_seconds
        progress = self.report.progress("waiting for the card payment", piped_lines=True)
        try:
            while True:
                state = self.status(offer)
                if state == "complete":
                    progress.done("card payment complete")
                    return
                if state == "dead":
                    raise PaymentFailed(
                        "the card payment failed or was cancelled; nothing was charged",
                        code="card_payment_failed",
                        hint="run the submit again to start a new payment",
                    )
                if time.monotonic() >= deadline:
                    raise HumanNeeded(
                        "the card payment was not completed in time",
                        next=step("resume_card", "finish it on the payment page, then: "),
                    )
                progress.update("waiting for the card payment", with_time=True)
                self.sleep(self.interval)
        finally:
            progress.stop()
