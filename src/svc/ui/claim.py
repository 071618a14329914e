"""The claim link for a person at a terminal (`svc identity claim`, `register --claim`): the
link, its times, a QR code, the browser, and the code they read off the page; or, without a
person, the `action_required` object a program reads (`svc.engines.claim.ClaimPerson`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from svc.sanitize import clean
from svc.ui import views
from svc.ui.prompts import ask_text

if TYPE_CHECKING:
    from svc.engines.claim import ClaimLink
    from svc.ui.output import Output

CLAIM_COMMAND = "svc identity claim --code CODE"  # what a script runs with the page's code


class TerminalClaim:
    def __init__(self, output: Output, *, open_browser: bool = True) -> None:
        self.output = output
        self.open_browser = open_browser

    def unattended(self, link: ClaimLink) -> None:
        out = self.output
        if out.json_mode:
            out.emit_json(link.action_required(CLAIM_COMMAND))
            return
        out.info(
            f"Open {clean(str(link.uri), 2000, single_line=True)} and sign in as "
            f"{clean(link.login_hint, 254, single_line=True)} ({link.expiries()})"
        )

    def code_for(self, link: ClaimLink) -> str:
        self._present(link)
        code = ""
        while not code.strip():
            code = ask_text("Code shown on the page after signing in")
        return code

    def _present(self, link: ClaimLink) -> None:
        out, uri = self.output, link.uri
        who = clean(link.login_hint, 254, single_line=True)
        out.info(f"! Claim this agent credential for {who}")
        out.info(f"  Open: {clean(str(uri), 2000, single_line=True)}")
        expiries = link.expiries()
        out.info(f"  {expiries[:1].upper()}{expiries[1:]}.")  # the times keep their case
        views.show_qr(out, uri, error="m", border=1)
        out.info("  Sign in there, confirm, then type the code the page shows.")
        if self.open_browser and out.stderr_tty and not views.graphical_session():
            out.info(f"  ({views.NO_BROWSER}, or scan the code)")
        elif self.open_browser and out.stderr_tty:
            ask_text("Press Enter to open the link in your browser")
            if not views.open_browser(uri):
                out.info("  (could not open a browser: open the link yourself)")
