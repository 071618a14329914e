"""The claim ceremony: a link for a person, their code, completion, and an immediate re-exchange.

1. Mint a claim attempt; show its link (stderr, QR code, browser on a terminal). Without a
   terminal (or with --no-input) print an `action_required` object and stop with exit 6.
2. Read the code the page shows after the person signed in (or take `--code`).
3. Complete: wait while the person has not confirmed (`claim_not_confirmed`); on
   `user_code_expired` mint a fresh link (a person is needed again).
4. The claimed identity is delivered once: it is stored before anything else, then exchanged
   at once, because a token from before the claim does not carry the user link.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from svc.context import AppContext
from svc.errors import AuthError, HumanNeededError
from svc.identity.session import IdentitySession, credential_from
from svc.identity.store import Credential
from svc.origin import TrustedURL, from_server
from svc.ui import views, words
from svc.ui.prompts import ask_text
from svc.ui.sanitize import clean

MAX_WAIT_INTERVAL = 5.0


class ClaimCeremony:
    def __init__(
        self,
        app: AppContext,
        session: IdentitySession,
        credential: Credential,
        login_hint: str,
        *,
        open_browser: bool = True,
        timeout: float = 600.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.app = app
        self.session = session
        self.credential = credential
        self.login_hint = login_hint
        self.open_browser = open_browser
        self.timeout = timeout
        self.sleep = sleep

    @property
    def interactive(self) -> bool:
        return not self.app.settings.no_input

    def run(self, code: str | None) -> Credential:
        if code is None:
            code = self._new_link_and_code()
        deadline = time.monotonic() + self.timeout
        waiting_noted = False
        while True:
            try:
                doc = self.session.platform.complete(self._claim_token(), code)
                break
            except AuthError as exc:
                if exc.code == "claim_not_confirmed":
                    if time.monotonic() >= deadline:
                        raise AuthError(
                            "the person did not confirm the claim in time",
                            code="claim_not_confirmed",
                            hint="confirm on the page, then run: svc identity claim --code CODE",
                        ) from None
                    if not waiting_noted:
                        self.app.output.note("waiting for the person to confirm on the page…")
                        waiting_noted = True
                    self.sleep(min(MAX_WAIT_INTERVAL, self.app.settings.default_poll_interval()))
                    continue
                if exc.code == "user_code_expired":
                    self.app.output.note("that claim link expired; minting a fresh one")
                    code = self._new_link_and_code()
                    continue
                raise
        return self._adopt(doc)

    def _claim_token(self) -> str:
        token = self.credential.claim_token
        if token is None:  # pragma: no cover - checked by the command
            raise AuthError("this credential has no claim token")
        return token

    def _adopt(self, doc: dict[str, Any]) -> Credential:
        claimed = credential_from(
            doc, self.credential.auth_base, self.credential.endpoints, previous=self.credential
        )
        claimed.email = claimed.email or self.login_hint
        self.session.save(claimed, crash_after="claim_persisted")
        self.session.exchange()  # at once: only a post-claim token carries the user link
        return claimed

    # --- the person's part -----------------------------------------------------------------

    def _new_link_and_code(self) -> str:
        attempt = self.session.platform.mint_attempt(self._claim_token(), self.login_hint)
        found = attempt.get("attempt")
        link: dict[str, Any] = found if isinstance(found, dict) else {}
        raw = link.get("verification_uri")
        if not isinstance(raw, str):
            raise AuthError("the identity platform's claim answer has no verification_uri")
        # A link for a person: on the auth base's origin or a host they confirmed, never drawn
        # or opened otherwise (svc.origin).
        uri = from_server(
            raw, self.session.platform.base, "the claim link", self.app.trusts_link_host
        )
        expires = str(link.get("expires_at") or "")
        if not self.interactive:
            self._action_required(uri, expires)
        self._present(uri, expires)

        code = ""
        while not code.strip():
            code = ask_text("Code shown on the page after signing in")
        return code.strip()

    def _expiries(self, link_expires: str) -> str:
        """The two times a person meets, named apart (issue 22.6: register showed the claim's,
        claim the link's, both as "expires"): this link, and the claim it belongs to."""
        claim = self.credential.claim_expires_at
        again = f"; a new link can be asked until {words.when(claim)}"
        return f"this link expires at {words.when(link_expires)}" + (again if claim else "")

    def _action_required(self, uri: TrustedURL, expires: str) -> None:
        next_step = "svc identity claim --code CODE"
        doc = {
            "action_required": "claim",
            "verification_uri": str(uri),
            "expires_at": expires,  # the link's (the attempt's), as before
            "link_expires_at": expires,
            "claim_expires_at": self.credential.claim_expires_at,
            "login_hint": self.login_hint,
            "instructions": f"Open the link, sign in as {self.login_hint} and confirm; then "
            f"run `{next_step}` with the code the page shows.",
            "next": next_step,
        }
        output = self.app.output
        if output.json_mode:
            output.emit_json(doc)
        else:
            output.info(
                f"Open {clean(str(uri), 2000, single_line=True)} and sign in as "
                f"{clean(self.login_hint, 254, single_line=True)} ({self._expiries(expires)})"
            )
        raise HumanNeededError(
            "a person must open the claim link, sign in and read the code",
            code="action_required",
            hint=f"then run: {next_step}",
            json_report=False,
        )

    def _present(self, uri: TrustedURL, expires: str) -> None:
        out = self.app.output
        who = clean(self.login_hint, 254, single_line=True)
        out.info(f"! Claim this agent credential for {who}")
        out.info(f"  Open: {clean(str(uri), 2000, single_line=True)}")
        expiries = self._expiries(expires)
        out.info(f"  {expiries[:1].upper()}{expiries[1:]}.")  # the times keep their case
        views.show_qr(out, uri, error="m", border=1)
        out.info("  Sign in there, confirm, then type the code the page shows.")
        if self.open_browser and out.stderr_tty and not views.graphical_session():
            out.info(f"  ({views.NO_BROWSER}, or scan the code)")
        elif self.open_browser and out.stderr_tty:
            ask_text("Press Enter to open the link in your browser")
            if not views.open_browser(uri):
                out.info("  (could not open a browser: open the link yourself)")
