"""The card and claim pages in a real browser: a person in Debian's headless Chromium,
driven by Playwright (tests/ts/browser.mjs, playwright-core pinned in tests/ts/package-lock.json),
while svc waits on a terminal for what they do there.

svc runs as a person runs it (a pty, no CI): `svc pay card` prints the payment link and waits
on the payment's status; `svc identity claim` prints the claim link, asks for the code the page
shows, then waits for the person to confirm. The browser opens the link svc printed, clicks the
page's real buttons and reads its real text; the test asserts what svc then says and does. A
page whose button does nothing leaves svc waiting, and the step fails after STEP_SECONDS.

On each page, before and after each step: axe-core (injected from tests/ts/node_modules) finds
no violation, and every request the page makes goes to the sandbox's own loopback origin.

Chromium is not skipped when missing: the test fails and says how to install it (`make test`'s
tools step installs it, as it does Node for tests/e2e/test_mcp_typescript.py).

Also here: `svc pay card` opens the person's browser (Python's webbrowser) only on a desktop:
a display or BROWSER, never over SSH, never with --no-browser.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import subprocess
import sys
import threading
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

import httpx
import pexpect
import pytest
from tests.conftest import SVC, Cli, Sandbox, unique_email, unique_request_id
from tests.e2e.test_mcp_typescript import node
from tests.person import TEXT_BROWSERS, fake_programs

from svc.ui.views import NO_BROWSER, SSH_SESSION

pytestmark = pytest.mark.e2e

TS = Path(__file__).resolve().parents[1] / "ts"
CHROMIUM = Path("/usr/bin/chromium")
# The longest one step may take, in the browser or on svc's terminal: generous for six workers
# on two cores (a step takes well under a second alone), short next to svc's own waits (15 min
# for a card payment, 10 for a claim), so a page that does nothing fails in seconds, not those.
STEP_SECONDS = 30.0
AMOUNT = "1.50 USD"  # the sandbox's price (its default configuration)


def chromium() -> str:
    """Debian's Chromium, which Playwright drives (it never downloads a browser of its own)."""
    assert CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK), (
        f"Chromium is not installed at {CHROMIUM}: these tests drive it headless. Install it "
        "from Debian (`apt-get install chromium`; `make test`'s tools step does), and the "
        "Playwright client with `npm ci --prefix tests/ts`"
    )
    return str(CHROMIUM)


class Browser:
    """A person at Chromium: tests/ts/browser.mjs, one JSON step a line, each answer awaited
    for at most STEP_SECONDS."""

    def __init__(self, origin: str, profile: Path) -> None:
        executable = chromium()
        assert (TS / "node_modules" / "playwright-core").is_dir(), (
            "playwright-core is not installed: run `npm ci --prefix tests/ts` (make test does)"
        )
        profile.mkdir(parents=True)  # a fresh, empty --user-data-dir
        self.origin = origin
        self.proc = subprocess.Popen(
            [node(), str(TS / "browser.mjs")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=TS,
        )
        self.answers: queue.Queue[str | None] = queue.Queue()
        self.stderr: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()
        self.closed = False
        config = {
            "origin": origin,
            "userDataDir": str(profile),
            "executablePath": executable,
            "timeoutMs": int(STEP_SECONDS * 1000 * 0.8),  # the driver gives up first, and says why
        }
        started = self._ask(config)
        assert started.get("ready"), f"Chromium did not start: {started}"

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.answers.put(line)
        self.answers.put(None)

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr.append(line)

    def _ask(self, command: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()
        try:
            line = self.answers.get(timeout=STEP_SECONDS)
        except queue.Empty:
            raise AssertionError(
                f"the browser did not answer {command} in {STEP_SECONDS:.0f} s"
            ) from None
        assert line is not None, f"the browser driver ended: {''.join(self.stderr)[-3000:]}"
        answer: dict[str, Any] = json.loads(line)
        assert "error" not in answer, f"{command}: {answer['error']}"
        return answer

    def goto(self, url: str) -> dict[str, Any]:
        return self._ask({"op": "goto", "url": url})

    def click(self, button: str) -> dict[str, Any]:
        """Click the button of that accessible name, as a person does; the page it loads."""
        return self._ask({"op": "click", "name": button})

    def value(self, label: str) -> dict[str, Any]:
        return self._ask({"op": "value", "label": label})

    def text(self, selector: str) -> str:
        return str(self._ask({"op": "text", "selector": selector})["text"])

    def accessible(self, what: str) -> None:
        """axe-core on the page as it is now: no violation (rule ids and the nodes if any)."""
        violations = self._ask({"op": "axe"})["violations"]
        found = [
            f"{v['id']} ({v['impact']}): {v['help']}\n"
            + "\n".join(f"    {n['target']} {n['html']}" for n in v["nodes"])
            for v in violations
        ]
        assert not found, f"axe-core on {what}:\n" + "\n".join(found)

    def close(self) -> dict[str, Any]:
        """The browser closed: every request its pages made, and the page errors it saw."""
        report = self._ask({"op": "close"})
        self.closed = True
        self.proc.wait(timeout=STEP_SECONDS)
        return report

    def __enter__(self) -> Browser:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.proc.poll() is None:  # a step failed: the driver closes Chromium at stdin's end
            assert self.proc.stdin is not None
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
            try:
                self.proc.wait(timeout=STEP_SECONDS)
            except subprocess.TimeoutExpired:
                self.proc.terminate()  # the same, at once
                try:
                    self.proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()


def only_the_sandbox(report: dict[str, Any], origin: str) -> list[dict[str, Any]]:
    """Every request went to the sandbox's loopback origin (none to a third party, none
    aborted for trying), and no page threw or logged an error; the requests."""
    requests: list[dict[str, Any]] = report["requests"]
    assert requests, "the browser made no request"
    elsewhere = [r["url"] for r in requests if origin_of(r["url"]) != origin]
    assert not elsewhere and not report["offOrigin"], (elsewhere, report["offOrigin"])
    assert urlsplit(origin).hostname == "127.0.0.1"
    assert report["pageErrors"] == [] and report["consoleErrors"] == [], report
    return requests


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def on_a_terminal(cli: Cli, *args: str, env: dict[str, str] | None = None) -> pexpect.spawn:
    """`svc ARGS` as a person runs it: a pty, no CI; no desktop unless `env` gives one."""
    desktop = ("BROWSER", "DISPLAY", "WAYLAND_DISPLAY", *SSH_SESSION)
    clean = {k: v for k, v in cli.env.items() if k != "CI" and k not in desktop}
    return pexpect.spawn(
        SVC,
        list(args),
        env={**clean, **(env or {})},
        encoding="utf-8",
        timeout=STEP_SECONDS,
        dimensions=(50, 200),  # the links fit on one line
    )


def ended(child: pexpect.spawn) -> tuple[int, str]:
    """svc's exit code and what it wrote after the last match; STEP_SECONDS at most."""
    child.expect(pexpect.EOF)
    screen = child.before or ""
    child.close()
    assert "Traceback" not in screen, screen
    return int(child.exitstatus if child.exitstatus is not None else -1), screen


def saved_card_payment(cli: Cli) -> str:
    """A submit paid by card, left waiting for a person (exit 6): its request id."""
    rid = unique_request_id()
    args = ["submit", "Pay on the page #complete", "--email", unique_email(), "--request-id", rid]
    saved = cli(*args, "--pay", "card")
    assert saved.returncode == 6, saved.stderr
    return rid


# --- the card page ----------------------------------------------------------------------------


def test_a_person_pays_on_the_card_page_in_chromium_and_svc_pay_card_finishes(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    """The page shows the amount and the recipient svc printed (the link's host, which svc
    pins and its receipt names); its Pay button pays; svc, waiting on the status, sends the
    request with the payment: one charge, by card, of that amount."""
    rid = saved_card_payment(cli)
    child = on_a_terminal(cli, "pay", "card", rid)
    try:
        child.expect(r"Pay (\d+\.\d\d USD) by card on this page: (\S+)")
        amount, link = child.match.group(1), child.match.group(2)
        child.expect(re.escape(NO_BROWSER))  # no desktop here: the person opens the link
        child.expect("waiting for the card payment")
        recipient = urlsplit(link).netloc  # who takes the money, as svc pins it: the link's host
        payment_id = link.split("/")[-2]
        with Browser(sandbox.url, tmp_path / "profile") as browser:
            page = browser.goto(link)
            assert page["status"] == 200 and page["url"] == link
            assert amount == AMOUNT and page["title"].startswith(f"Pay {amount} to {recipient}")
            assert f"Pay {amount}" in page["text"] and payment_id in page["text"]
            assert browser.text("#recipient") == recipient
            browser.accessible("the card page")
            paid = browser.click("Pay")
            assert paid["status"] == 200 and f"{payment_id}: paid" in paid["text"], paid
            assert "You can close this page." in paid["text"]
            browser.accessible("the card page, paid")
            code, screen = ended(child)  # svc saw the payment on its status
            report = browser.close()
    finally:
        child.close(force=True)
    assert code == 0, screen
    assert "card payment complete" in screen
    assert f"billing: charged {amount} by card (payment {payment_id})" in screen, screen
    requests = only_the_sandbox(report, sandbox.url)
    assert [(r["method"], r["url"]) for r in requests if r["type"] == "document"] == [
        ("GET", link),
        ("POST", link),
    ]
    [charge] = sandbox.charges_for(rid)
    assert charge["method"] == "card" and charge["id"] == payment_id
    assert charge["amount_atomic"] == 1_500_000
    receipt = cli.ok("receipt", rid, "--json").json()
    assert receipt["recipient"] == recipient and receipt["amount_usd"].startswith("1.50")


def test_a_person_declines_on_the_card_page_and_svc_pay_card_stops_with_nothing_paid(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    """The page's other button: svc stops waiting and says nothing was charged (exit 5)."""
    rid = saved_card_payment(cli)
    child = on_a_terminal(cli, "pay", "card", rid)
    try:
        child.expect(r"by card on this page: (\S+)")
        link = child.match.group(1)
        child.expect("waiting for the card payment")
        with Browser(sandbox.url, tmp_path / "profile") as browser:
            browser.goto(link)
            declined = browser.click("Decline")
            assert ": failed" in declined["text"] and "Pay" not in declined["text"].split("\n")
            browser.accessible("the card page, declined")
            code, screen = ended(child)
            only_the_sandbox(browser.close(), sandbox.url)
    finally:
        child.close(force=True)
    assert code == 5, screen
    assert "the card payment failed or was cancelled; nothing was charged" in screen, screen
    assert sandbox.charges_for(rid) == []


# --- the claim page ---------------------------------------------------------------------------


def test_a_person_claims_the_agent_on_the_claim_page_in_chromium(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    """Sign in on the page, type its code into svc's prompt, confirm on the page: svc, which
    waits for the confirmation, exchanges the claimed credential."""
    email = unique_email()
    cli.ok("identity", "register", "--email", email)
    child = on_a_terminal(cli, "identity", "claim")
    try:
        child.expect(f"Claim this agent credential for {re.escape(email)}")
        child.expect(r"Open: (\S+)")
        link = child.match.group(1)
        child.expect(re.escape(NO_BROWSER))
        child.expect("Code shown on the page")
        with Browser(sandbox.url, tmp_path / "profile") as browser:
            page = browser.goto(link)
            assert page["status"] == 200 and f"An agent asks to act for {email}." in page["text"]
            assert browser.value("E-mail") == {"ok": True, "value": email, "editable": False}
            browser.accessible("the claim page")
            signed_in = browser.click("Sign in")
            assert signed_in["url"] == link and f"Signed in as {email}." in signed_in["text"]
            code = browser.text("#user-code")
            assert re.fullmatch(r"[A-Z]{4}-[A-Z]{4}", code), code
            browser.accessible("the claim page, signed in")
            child.sendline(code)  # the person types the code the page shows
            child.expect("waiting for the person to confirm")
            confirmed = browser.click("Confirm")
            assert "Confirmed." in confirmed["text"] and code in confirmed["text"]
            browser.accessible("the claim page, confirmed")
            status, screen = ended(child)  # svc saw the confirmation
            done = browser.goto(link)
            assert "This agent is claimed. You can close this page." in done["text"]
            browser.accessible("the claim page, claimed")
            report = browser.close()
    finally:
        child.close(force=True)
    assert status == 0, screen
    assert f"Claimed for {email}." in screen, screen
    requests = only_the_sandbox(report, sandbox.url)
    path = urlsplit(link).path
    documents = [r for r in requests if r["type"] == "document"]
    assert [(r["method"], urlsplit(r["url"]).path) for r in documents] == [
        ("GET", path),
        ("POST", f"{path}/sign-in"),
        ("GET", path),  # the redirect after signing in
        ("POST", f"{path}/decision"),
        ("GET", path),
        ("GET", path),
    ]
    after = cli.ok("identity", "status").json()
    assert after["claimed"] is True and after["email"] == email


# --- svc pay card opens the person's browser, on a desktop only --------------------------------

# A browser that is the person: records how it was called, then pays on the page it was given
# (a form post, as the page's Pay button sends), so that svc, waiting, sees the payment.
PERSON_BROWSER = """#!{python}
import json, sys, urllib.parse, urllib.request
with open({calls!r}, "a") as fh:
    fh.write(json.dumps(sys.argv[1:]) + "\\n")
link = sys.argv[-1]
urllib.request.urlopen(link, urllib.parse.urlencode({{"action": "pay"}}).encode(), timeout=10)
"""

# What Python's webbrowser may start on Linux, text browsers included: each a fake in the tests.
BROWSERS = (*TEXT_BROWSERS, "gio", "sensible-browser", "firefox", "chromium", "google-chrome")
SSH = {"SSH_CONNECTION": "203.0.113.7 52100 192.0.2.10 22", "SSH_TTY": "/dev/pts/3"}
DESKTOPS = {  # (environment, extra arguments, a browser is opened)
    "x11 display": ({"DISPLAY": ":0"}, (), True),
    "wayland display": ({"WAYLAND_DISPLAY": "wayland-0"}, (), True),
    "BROWSER over ssh": ({"BROWSER": "{person}", **SSH}, (), True),
    "ssh with a forwarded display": ({"DISPLAY": "localhost:10.0", **SSH}, (), False),
    "no display": ({}, (), False),
    "--no-browser on a display": ({"DISPLAY": ":0"}, ("--no-browser",), False),
}


@pytest.mark.parametrize(("env", "extra", "opens"), DESKTOPS.values(), ids=DESKTOPS.keys())
def test_svc_pay_card_opens_the_browser_on_a_desktop_only(
    cli: Cli,
    sandbox: Sandbox,
    tmp_path: Path,
    env: dict[str, str],
    extra: tuple[str, ...],
    opens: bool,
) -> None:
    """Python's webbrowser, with a display or BROWSER (which a remote editor sets to open links
    on the person's own machine): the browser gets the link, nothing else. Over SSH, without a
    desktop, or with --no-browser: no browser (not even a text one taking the terminal), the
    link and a line saying so. Every program webbrowser might start is a fake on PATH that
    records its call; `xdg-settings` says there is no default browser."""
    calls = tmp_path / "calls.txt"
    person = tmp_path / "person-browser"
    person.write_text(PERSON_BROWSER.format(python=sys.executable, calls=str(calls)))
    person.chmod(0o755)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in BROWSERS:
        (bin_dir / name).symlink_to(person)
    (bin_dir / "xdg-settings").write_text("#!/bin/sh\nexit 1\n")
    (bin_dir / "xdg-settings").chmod(0o755)
    desktop = {k: v.format(person=person) for k, v in env.items()}
    desktop["PATH"] = f"{bin_dir}:{cli.env['PATH']}"
    rid = saved_card_payment(cli)
    child = on_a_terminal(cli, "pay", "card", rid, *extra, env=desktop)
    try:
        child.expect(r"by card on this page: (\S+)")
        link = child.match.group(1)
        if not opens:
            says = child.expect([re.escape(NO_BROWSER), "waiting for the card payment"])
            assert says == (1 if extra else 0)  # --no-browser: the person's choice, not said
            # the person opens the link by hand and pays (the page's form post)
            assert httpx.post(link, data={"action": "pay"}, timeout=10).status_code == 200
        code, screen = ended(child)
    finally:
        child.close(force=True)
    assert code == 0, screen
    assert len(sandbox.charges_for(rid)) == 1
    if opens:
        assert [json.loads(line) for line in calls.read_text().splitlines()] == [[link]]
        assert NO_BROWSER not in screen
    else:
        assert not calls.exists(), calls.read_text()


def test_a_claim_over_ssh_with_a_display_opens_no_browser_and_asks_for_the_code(
    cli: Cli, tmp_path: Path
) -> None:
    """The same rule for `svc identity claim`: over SSH, a forwarded display is not the
    person's desktop; the claim shows the link, says why no browser opened, asks for the code."""
    cli.ok("identity", "register", "--email", unique_email())
    calls = tmp_path / "calls.txt"
    bin_dir = fake_programs(tmp_path, BROWSERS, calls)
    env = {"DISPLAY": "localhost:10.0", **SSH, "PATH": f"{bin_dir}:{cli.env['PATH']}"}
    child = on_a_terminal(cli, "identity", "claim", env=env)
    try:
        child.expect(r"Open: (\S+)")
        attempt = child.match.group(1).rsplit("/", 1)[1]
        child.expect(re.escape(NO_BROWSER))
        child.expect("Code shown on the page")
        assert "Press Enter to open" not in (child.before or "")
        person = cli.ok("sandbox", "claim-code", "--attempt", attempt).json()  # signs in, approves
        child.sendline(person["user_code"])
        code, screen = ended(child)
    finally:
        child.close(force=True)
    assert code == 0, screen
    assert not calls.exists(), calls.read_text()
