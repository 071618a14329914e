"""Identity end to end: the `svc` executable against the sandbox's identity platform.

Registration of each type, the claim ceremony driven as a person would (open the page, sign
in, read the code, confirm), every claim and registration refusal (exit 4, or 6 when a person
is needed and prompting is off), refresh rotation, bearers on task calls, crash safety, and
that no secret leaks into argv, verbose traces, JSON, the config dir or the ledger.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pexpect
import pytest
from tests.conftest import SVC, Cli, Result, Sandbox, unique_email
from tests.person import TEXT_BROWSERS, fake_programs
from tests.procs import rest_of

pytestmark = pytest.mark.e2e


# --- helpers --------------------------------------------------------------------------------


def mint(sandbox: Sandbox, email: str, **overrides: Any) -> str:
    doc = sandbox.admin("POST", "/identity/id-jag", json={"email": email, **overrides})
    return str(doc["assertion"])


def agent(sandbox: Sandbox, agent_id: str) -> dict[str, Any]:
    return dict(sandbox.admin("GET", f"/identity/agents/{agent_id}"))


def bundle(cli: Cli, sandbox: Sandbox) -> dict[str, Any]:
    """The credential's secrets as stored (the test owns this isolated home)."""
    store = json.loads((cli.home / "config" / "secrets.json").read_text())
    return dict(json.loads(store[f"identity:{sandbox.url}/auth"]))


def register_claimed(cli: Cli, sandbox: Sandbox, email: str | None = None) -> dict[str, Any]:
    assertion = mint(sandbox, email or unique_email())
    return dict(cli.ok("identity", "register", "--assertion-file", "-", input=assertion).json())


def fails(result: Result, exit_code: int, *needles: str) -> None:
    assert result.returncode == exit_code, (result.returncode, result.stderr)
    line = result.stderr
    for needle in needles:
        assert needle in line, (needle, line)


class Person:
    """A person in a browser: opens the link, signs in, reads the code, confirms or denies."""

    def __init__(self, link: str) -> None:
        self.link = link
        self.http = httpx.Client(timeout=10, follow_redirects=True)

    def _action(self, suffix: str) -> str:
        page = self.http.get(self.link).text
        found = re.search(rf'<form method="post" action="([^"]+/{suffix})"', page)
        assert found, page
        return str(httpx.URL(self.link).join(found.group(1)))

    def sign_in(self) -> str:
        page = self.http.get(self.link).text
        assert "Sign in" in page
        hint = re.search(r'name="email" value="([^"]+)"', page)
        assert hint
        after = self.http.post(self._action("sign-in"), data={"email": hint.group(1)}).text
        code = re.search(r'<code id="user-code">([A-Z-]+)</code>', after)
        assert code, after
        return code.group(1)

    def confirm(self) -> None:
        assert (
            "Confirmed"
            in self.http.post(self._action("decision"), data={"decision": "approve"}).text
        )

    def deny(self) -> None:
        self.http.post(self._action("decision"), data={"decision": "deny"})


def claim_link(cli: Cli, *extra: str) -> str:
    result = cli("identity", "claim", *extra)
    assert result.returncode == 6, result.stderr
    doc = result.json()
    assert doc["action_required"] == "claim"
    return str(doc["verification_uri"])


def claim_with_person(
    cli: Cli, *, confirm_late: bool = False, extra: tuple[str, ...] = ()
) -> Result:
    """Run the whole ceremony: link (exit 6), the person signs in, `claim --code` finishes.

    `confirm_late`: the person confirms only once `claim --code` says it is waiting for them
    (a ready marker, not a timer: under load a timer fired before the first poll)."""
    person = Person(claim_link(cli, *extra))
    code = person.sign_in()
    if not confirm_late:
        person.confirm()
        return cli("identity", "claim", "--code", code, *extra)
    args = [SVC, "identity", "claim", "--code", code, *extra]
    proc = subprocess.Popen(
        args, env=cli.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stderr is not None
    seen = []
    for line in proc.stderr:  # the ready marker, then the person confirms
        seen.append(line)
        if "waiting for the person to confirm" in line:
            person.confirm()
            break
    out, rest = rest_of(proc, timeout=60)  # through the stderr reader's buffer
    return Result(args, proc.returncode, out, "".join(seen) + rest)


# --- registration ------------------------------------------------------------------------------


def test_anonymous_registration_is_reused_unless_forced(cli: Cli, sandbox: Sandbox) -> None:
    first = cli.ok("identity", "register", "--anonymous").json()
    assert first["type"] == "anonymous" and first["claimed"] is False and first["reused"] is False
    assert first["has_assertion"] and not first["has_refresh_token"]
    again = cli.ok("identity", "register", "--anonymous").json()
    assert again["reused"] is True and again["id"] == first["id"]
    assert "already stored" in cli("identity", "register", "--anonymous").stderr
    forced = cli.ok("identity", "register", "--anonymous", "--force").json()
    assert forced["id"] != first["id"]
    status = cli.ok("identity", "status").json()
    assert status["id"] == forced["id"] and status["store"] == "file"
    assert agent(sandbox, forced["id"])["type"] == "anonymous"


@pytest.mark.parametrize(
    ("first", "then"),
    [
        (["--anonymous"], ["--email", "EMAIL"]),
        (["--anonymous"], ["--assertion-file", "-"]),
        (["--email", "EMAIL"], ["--anonymous"]),
        (["--email", "EMAIL"], ["--email", "OTHER"]),
    ],
)
def test_register_never_silently_keeps_a_credential_it_was_not_asked_for(
    cli: Cli, sandbox: Sandbox, first: list[str], then: list[str]
) -> None:
    """Issue 30.7: with a credential stored, a registration of another kind or for another
    input was exit 0 with `reused: true`, the given input thrown away. Unattended it is exit 2
    naming --force, and nothing changes."""
    email, other = unique_email(), unique_email()
    words = {"EMAIL": email, "OTHER": other}
    stored = cli.ok("identity", "register", *[words.get(a, a) for a in first]).json()
    stdin = mint(sandbox, other) if "--assertion-file" in then else None
    result = cli("identity", "register", *[words.get(a, a) for a in then], input=stdin)
    fails(result, 2, "--force")
    assert "reused" not in result.stdout
    assert cli.ok("identity", "status").json()["id"] == stored["id"]
    if stdin is not None:  # the ID-JAG was not spent: --force registers with it
        forced = cli.ok("identity", "register", "--force", "--assertion-file", "-", input=stdin)
        assert forced.json()["email"] == other and forced.json()["reused"] is False


def test_register_asks_on_a_terminal_before_replacing(cli: Cli, sandbox: Sandbox) -> None:
    stored = cli.ok("identity", "register", "--anonymous").json()
    email = unique_email()
    env = {k: v for k, v in cli.env.items() if k != "CI"}
    child = pexpect.spawn(
        SVC, ["identity", "register", "--email", email], env=env, encoding="utf-8", timeout=30
    )
    child.expect(r"Replace it with .* for " + re.escape(email) + r"\? \(y/N\)")
    child.sendline("y")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    status = cli.ok("identity", "status").json()
    assert status["id"] != stored["id"] and status["email"] == email


def test_register_with_the_same_input_reuses_the_stored_credential(cli: Cli) -> None:
    email = unique_email()
    first = cli.ok("identity", "register", "--email", email).json()
    again = cli.ok("identity", "register", "--email", email.upper()).json()
    assert again["reused"] is True and again["id"] == first["id"]


def test_id_jag_registration_is_born_claimed(cli: Cli, sandbox: Sandbox) -> None:
    email = unique_email()
    assertion = cli.ok("sandbox", "mint-id-jag", "--email", email).stdout.strip()
    doc = cli.ok("identity", "register", "--assertion-file", "-", input=assertion).json()
    assert doc["claimed"] is True and doc["email"] == email and doc["has_refresh_token"]
    ents = cli.ok("entitlements").json()
    assert ents["claimed"] is True and ents["credential"] == doc["id"]
    assert {p["plan_id"] for p in ents["plans"]} >= {"payg", "included"}


def test_assertion_from_a_file(cli: Cli, sandbox: Sandbox, tmp_path: Path) -> None:
    path = tmp_path / "jag.txt"
    path.write_text(mint(sandbox, unique_email()) + "\n")
    assert cli.ok("identity", "register", "--assertion-file", str(path)).json()["claimed"]
    missing = cli("identity", "register", "--force", "--assertion-file", str(tmp_path / "nope"))
    fails(missing, 2, "no such file")


def test_register_needs_exactly_one_type(cli: Cli) -> None:
    fails(cli("identity", "register"), 2, "choose exactly one")
    fails(cli("identity", "register", "--anonymous", "--email", "a@example.com"), 2, "exactly one")


@pytest.mark.parametrize(
    ("flags", "code", "words"),
    [
        (["--issuer", "untrusted"], "issuer_not_enabled", "not trusted"),
        (["--bad-signature"], "invalid_signature", "signature"),
        (["--aud", "https://elsewhere.example"], "invalid_audience", "aud"),
        (["--exp-seconds", "3600"], "invalid_request", "10 minutes"),
        (["--auth-age-seconds", str(31 * 86400)], "login_required", "30 days"),
        # refused locally, before the single-use assertion is spent
        (["--unverified"], "missing_verified_email", "not verified"),
        (["--typ", "JWT"], "invalid_request", "not an ID-JAG"),
    ],
)
def test_id_jag_refusals(
    cli: Cli, sandbox: Sandbox, flags: list[str], code: str, words: str
) -> None:
    assertion = cli.ok("sandbox", "mint-id-jag", "--email", unique_email(), *flags).stdout.strip()
    result = cli("identity", "register", "--assertion-file", "-", input=assertion)
    fails(result, 4, code, words)
    assert result.json()["error"] == code
    assert "hint:" in result.stderr
    assert cli.ok("identity", "status").json()["registered"] is False


def test_expired_id_jag_is_refused(cli: Cli, sandbox: Sandbox) -> None:
    assertion = mint(sandbox, unique_email(), exp_seconds=60)
    sandbox.advance(120)  # expired on the platform's clock (never behind the real one)
    result = cli("identity", "register", "--assertion-file", "-", input=assertion)
    fails(result, 4, "expired", "mint a fresh")


def test_an_id_jag_is_single_use(cli: Cli, sandbox: Sandbox) -> None:
    assertion = mint(sandbox, unique_email())
    cli.ok("identity", "register", "--assertion-file", "-", input=assertion)
    again = cli("identity", "register", "--force", "--assertion-file", "-", input=assertion)
    fails(again, 4, "replay_detected", "mint a fresh")


def test_not_a_jwt_is_refused_locally(cli: Cli) -> None:
    fails(cli("identity", "register", "--assertion-file", "-", input="hello"), 4, "not a JWT")


@pytest.mark.parametrize(
    ("switch", "flags", "code"),
    [
        ("anonymous_registration", ["--anonymous"], "anonymous_registration_disabled"),
        (
            "service_auth_registration",
            ["--email", "x@example.com"],
            "service_auth_registration_disabled",
        ),
    ],
)
def test_disabled_registration_types(
    cli: Cli, sandbox: Sandbox, switch: str, flags: list[str], code: str
) -> None:
    sandbox.configure(**{switch: False})
    fails(cli("identity", "register", *flags), 4, code, "instead")


def test_malformed_login_hint(cli: Cli) -> None:
    fails(cli("identity", "register", "--email", "not-an-email"), 4, "invalid_login_hint")


def test_id_jag_for_an_account_made_by_a_claim_needs_interaction(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    email = unique_email()
    cli.ok("identity", "register", "--email", email)
    assert claim_with_person(cli).returncode == 0
    other = Cli(
        tmp_path / "other",
        {
            **cli.env,
            "HOME": str(tmp_path / "other"),
            "SVC_CONFIG_DIR": str(tmp_path / "other/config"),
            "SVC_DATA_DIR": str(tmp_path / "other/data"),
        },
    )
    result = other("identity", "register", "--assertion-file", "-", input=mint(sandbox, email))
    fails(result, 4, "interaction_required", "svc identity claim")
    status = other.ok("identity", "status").json()
    assert status["pending_claim"] is True and status["email"] == email
    done = claim_with_person(other)
    assert done.returncode == 0, done.stderr
    assert done.json()["claimed"] is True


# --- the claim ceremony -----------------------------------------------------------------------


def test_claim_ceremony_as_a_person(cli: Cli, sandbox: Sandbox) -> None:
    email = unique_email()
    reg = cli.ok("identity", "register", "--email", email).json()
    assert reg["pending_claim"] and not reg["has_assertion"]
    assert "svc identity claim" in cli("identity", "register", "--email", email, "--force").stderr
    reg = cli.ok("identity", "status").json()
    done = claim_with_person(cli, confirm_late=True)  # `claim --code` waits for the confirmation
    assert done.returncode == 0, done.stderr
    assert "waiting for the person to confirm" in done.stderr
    doc = done.json()
    assert doc["claimed"] is True and doc["email"] == email and doc["has_refresh_token"]
    assert doc["id"] == reg["id"]
    assert agent(sandbox, reg["id"])["exchanges"] == 1  # re-exchanged right after the claim
    assert cli.ok("entitlements").json()["claimed"] is True
    again = cli.ok("identity", "claim").json()
    assert again["claimed"] is True  # nothing left to do


def test_anonymous_credential_claimed_with_an_email(cli: Cli, sandbox: Sandbox) -> None:
    reg = cli.ok("identity", "register", "--anonymous").json()
    fails(cli("identity", "claim"), 2, "--email EMAIL is needed")
    email = unique_email()
    done = claim_with_person(cli, extra=("--email", email))
    assert done.returncode == 0, done.stderr
    assert done.json()["id"] == reg["id"] and done.json()["email"] == email
    assert agent(sandbox, reg["id"])["claimed"] is True


def test_claim_without_a_terminal_prints_action_required_and_exits_6(cli: Cli) -> None:
    cli.ok("identity", "register", "--email", unique_email())
    human = cli("identity", "claim", env={"SVC_NO_INPUT": "1"})
    assert human.returncode == 6
    doc = human.json()
    assert (
        doc["verification_uri"].startswith("http")
        and doc["next"] == "svc identity claim --code CODE"
    )
    assert "a person must open the claim link" in human.stderr


def test_claim_refusals(cli: Cli, sandbox: Sandbox) -> None:
    cli.ok("identity", "register", "--email", unique_email())
    fails(cli("identity", "claim", "--code", "BBBB-BBBB"), 4, "invalid_user_code", "check the code")
    person = Person(claim_link(cli))
    code = person.sign_in()
    person.deny()
    fails(cli("identity", "claim", "--code", code), 4, "claim_denied", "declined")
    person = Person(claim_link(cli))
    code = person.sign_in()
    fails(
        cli("identity", "claim", "--code", code, "--timeout", "1"),
        4,
        "did not confirm the claim in time",
    )


def test_expired_link_mints_a_fresh_one(cli: Cli, sandbox: Sandbox) -> None:
    cli.ok("identity", "register", "--email", unique_email())
    first = Person(claim_link(cli))
    code = first.sign_in()
    sandbox.advance(301)  # claim links live five minutes
    result = cli("identity", "claim", "--code", code)
    assert result.returncode == 6, result.stderr
    assert "expired; minting a fresh one" in result.stderr
    fresh = result.json()["verification_uri"]
    assert fresh != first.link
    person = Person(fresh)
    new_code = person.sign_in()
    person.confirm()
    assert cli.ok("identity", "claim", "--code", new_code).json()["claimed"] is True


def test_too_many_pending_links(cli: Cli) -> None:
    cli.ok("identity", "register", "--email", unique_email())
    for _ in range(3):
        claim_link(cli)
    fails(cli("identity", "claim"), 4, "too_many_attempts", "wait")


def test_plus_aliased_addresses_are_refused_at_claim_time(cli: Cli) -> None:
    cli.ok("identity", "register", "--email", f"me+agents-{uuid.uuid4().hex[:6]}@example.com")
    fails(cli("identity", "claim"), 4, "invalid_login_hint", "plus-aliased")


def test_expired_claim(cli: Cli, sandbox: Sandbox) -> None:
    cli.ok("identity", "register", "--email", unique_email())
    sandbox.advance(3601)
    fails(cli("identity", "claim", "--code", "BBBB-BBBB"), 4, "claim_expired", "register again")
    fails(cli("identity", "claim"), 4, "invalid_claim_token", "register again")


def test_already_claimed_elsewhere(cli: Cli, tmp_path: Path) -> None:
    cli.ok("identity", "register", "--email", unique_email())
    copy = tmp_path / "copy"
    shutil.copytree(cli.home, copy)  # the same pending credential on a second machine
    other = Cli(
        copy,
        {
            **cli.env,
            "HOME": str(copy),
            "SVC_CONFIG_DIR": str(copy / "config"),
            "SVC_DATA_DIR": str(copy / "data"),
        },
    )
    person = Person(claim_link(cli))
    code = person.sign_in()
    person.confirm()
    cli.ok("identity", "claim", "--code", code)
    fails(other("identity", "claim", "--code", code), 4, "already_claimed")


def test_claim_without_credential(cli: Cli) -> None:
    fails(cli("identity", "claim"), 4, "no agent credential to claim", "svc identity register")


# --- refresh and token lifetimes ----------------------------------------------------------------


def test_refresh_rotates_and_the_old_token_is_refused(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    reg = register_claimed(cli, sandbox)
    old = bundle(cli, sandbox)["refresh_token"]
    stale_home = tmp_path / "stale"
    shutil.copytree(cli.home, stale_home)
    doc = cli.ok("identity", "refresh").json()
    assert doc["refreshed"] is True and doc["id"] == reg["id"]
    new = bundle(cli, sandbox)["refresh_token"]
    assert new != old
    refused = httpx.post(
        f"{sandbox.url}/auth/agent/identity", json={"type": "refresh", "refresh_token": old}
    )
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_refresh_token"
    stale = Cli(
        stale_home,
        {
            **cli.env,
            "HOME": str(stale_home),
            "SVC_CONFIG_DIR": str(stale_home / "config"),
            "SVC_DATA_DIR": str(stale_home / "data"),
        },
    )
    fails(stale("identity", "refresh"), 4, "invalid_refresh_token", "register again")
    assert cli.ok("entitlements").json()["credential"] == reg["id"]


def test_refresh_needs_a_claimed_credential(cli: Cli) -> None:
    fails(cli("identity", "refresh"), 4, "no agent credential")
    cli.ok("identity", "register", "--anonymous")
    fails(cli("identity", "refresh"), 4, "no refresh token")


def test_expired_assertion_is_refreshed_transparently(cli: Cli, sandbox: Sandbox) -> None:
    reg = register_claimed(cli, sandbox)
    sandbox.advance(3700)  # the assertion lives an hour; the refresh token a month
    assert cli.ok("entitlements").json()["credential"] == reg["id"]
    assert agent(sandbox, reg["id"])["refreshes"] == 1


def test_dead_anonymous_credential_says_register_again(cli: Cli, sandbox: Sandbox) -> None:
    cli.ok("identity", "register", "--anonymous")
    sandbox.advance(3 * 86400 + 10)
    dead = cli("entitlements")  # both ways out, as `svc doctor` offers them (issue 52)
    fails(dead, 4, "no refresh token", "svc identity register --force", "svc identity logout")


def test_logout_forgets_everything(cli: Cli, sandbox: Sandbox) -> None:
    register_claimed(cli, sandbox)
    assert cli.ok("identity", "logout").json()["logged_out"] is True
    assert cli.ok("identity", "status").json()["registered"] is False
    store = json.loads((cli.home / "config" / "secrets.json").read_text())
    assert not any(key.startswith("identity:") for key in store)
    assert sandbox.url not in (cli.home / "config" / "identity.json").read_text()
    fails(cli("entitlements"), 4, "agent credential", "svc identity register")


# --- bearers on task calls ----------------------------------------------------------------------


def test_bearer_required_then_register_then_retry(cli: Cli, sandbox: Sandbox) -> None:
    sandbox.configure(require_bearer=True)
    email = unique_email()
    rid1, rid2 = f"req_{uuid.uuid4().hex}", f"req_{uuid.uuid4().hex}"
    refused = cli("submit", "Book it #complete", "--email", email, "--request-id", rid1)
    fails(refused, 4, "bearer_required", "svc identity register")
    assert sandbox.charges_for(rid1) == []
    reg = cli.ok("identity", "register", "--anonymous").json()
    task = cli.ok("submit", "Book it #complete", "--email", email, "--request-id", rid2).json()
    assert len(sandbox.charges_for(rid2)) == 1
    assert task["id"] in agent(sandbox, reg["id"])["tasks"]  # the bearer went with the paid call


def test_bearer_moves_to_svc_agent_authorization_when_mpp_pays(cli: Cli, sandbox: Sandbox) -> None:
    """With `Authorization: Payment ...` on the paid retry, the bearer must travel in
    svc-agent-authorization: the sandbox refuses a comma-combined Authorization and requires
    a bearer here, so one paid MPP charge bound to the agent proves the placement."""
    sandbox.configure(require_bearer=True)
    reg = cli.ok("identity", "register", "--anonymous").json()
    rid = f"req_{uuid.uuid4().hex}"
    task = cli.ok(
        "submit",
        "Pay by MPP #complete",
        "--email",
        unique_email(),
        "--request-id",
        rid,
        "--pay",
        "mpp",
        env={"SVC_SPT": f"spt_test_{uuid.uuid4().hex}"},
    ).json()
    charges = sandbox.charges_for(rid)
    assert len(charges) == 1 and charges[0]["method"] == "mpp"
    assert task["id"] in agent(sandbox, reg["id"])["tasks"]
    paid = [r for r in sandbox.admin("GET", "/requests")["requests"] if r.get("request_id") == rid]
    assert any("authorization: Payment" in r["proofs"] for r in paid)


def test_pending_claim_gives_no_bearer(cli: Cli, sandbox: Sandbox) -> None:
    sandbox.configure(require_bearer=True)
    cli.ok("identity", "register", "--email", unique_email())
    fails(cli("submit", "x #complete", "--email", unique_email()), 4, "bearer_required")


def test_poll_is_scoped_to_the_bearer_agent(cli: Cli, sandbox: Sandbox, tmp_path: Path) -> None:
    cli.ok("identity", "register", "--anonymous")
    task = cli.ok("submit", "Mine #complete", "--email", unique_email()).json()
    assert cli.ok("poll", task["id"]).json()["id"] == task["id"]
    home = tmp_path / "someone"
    other = Cli(
        home,
        {
            **cli.env,
            "HOME": str(home),
            "SVC_CONFIG_DIR": str(home / "config"),
            "SVC_DATA_DIR": str(home / "data"),
        },
    )
    other.ok("identity", "register", "--anonymous")
    fails(other("poll", task["id"]), 7, "not_found")


def test_expired_access_token_mid_run_is_reexchanged(cli: Cli, sandbox: Sandbox) -> None:
    reg = cli.ok("identity", "register", "--anonymous").json()
    task = cli.ok("submit", "Long one #complete", "--email", unique_email()).json()
    watch = subprocess.Popen(
        [SVC, "watch", task["id"], "--interval", "1"],
        env=cli.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 20
        while not sandbox.internals(task["id"])["poll_times"]:
            assert time.monotonic() < deadline and watch.poll() is None
            time.sleep(0.1)
        sandbox.advance(301)  # access tokens live five minutes; the task completes meanwhile
        out, err = watch.communicate(timeout=30)
    finally:
        if watch.poll() is None:
            watch.kill()
    assert watch.returncode == 0, err
    assert "Traceback" not in err
    assert json.loads(out.splitlines()[-1])["state"] == "completed"
    # submit: 1 exchange; watch: 1 at start + 1 after token_expired
    assert agent(sandbox, reg["id"])["exchanges"] == 3


# --- crash safety -------------------------------------------------------------------------------


def test_crash_right_after_a_refresh_loses_nothing(cli: Cli, sandbox: Sandbox) -> None:
    reg = register_claimed(cli, sandbox)
    old = bundle(cli, sandbox)["refresh_token"]
    crashed = cli.as_process()(
        "identity", "refresh", env={"SVC_TEST_CRASH_AT": "refresh_persisted"}
    )
    assert crashed.returncode == -signal.SIGKILL and crashed.stdout == ""
    rotated = bundle(cli, sandbox)["refresh_token"]
    assert rotated != old  # written before the crash
    assert cli.ok("identity", "refresh").json()["id"] == reg["id"]  # the new token works
    assert agent(sandbox, reg["id"])["refreshes"] == 2


def test_crash_right_after_a_claim_completion_loses_nothing(cli: Cli, sandbox: Sandbox) -> None:
    reg = cli.ok("identity", "register", "--email", unique_email()).json()
    person = Person(claim_link(cli))
    code = person.sign_in()
    person.confirm()
    crashed = cli.as_process()(
        "identity", "claim", "--code", code, env={"SVC_TEST_CRASH_AT": "claim_persisted"}
    )
    assert crashed.returncode == -signal.SIGKILL
    status = cli.ok("identity", "status").json()
    assert status["claimed"] is True and status["has_refresh_token"] and status["id"] == reg["id"]
    assert cli.ok("entitlements").json()["claimed"] is True


# --- secrets stay secret --------------------------------------------------------------------------

BROWSER_SCRIPT = """#!{python}
import json, re, sys, urllib.parse, urllib.request
link = sys.argv[-1]
with open({argv_file!r}, "w") as fh:
    json.dump(sys.argv, fh)
page = urllib.request.urlopen(link).read().decode()
action = re.search(r'action="([^"]+/sign-in)"', page).group(1)
hint = re.search(r'name="email" value="([^"]+)"', page).group(1)
data = urllib.parse.urlencode({{"email": hint}}).encode()
after = urllib.request.urlopen(urllib.parse.urljoin(link, action), data).read().decode()
code = re.search(r'<code id="user-code">([A-Z-]+)</code>', after).group(1)
with open({code_file!r}, "w") as fh:
    fh.write(code)
"""


def test_interactive_claim_opens_the_browser_and_reads_the_code(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    """On a terminal: link + QR on screen, Enter opens the browser (the person), code typed in."""
    email = unique_email()
    cli.ok("identity", "register", "--email", email)
    argv_file, code_file = tmp_path / "argv.json", tmp_path / "code.txt"
    browser = tmp_path / "browser.py"
    browser.write_text(
        BROWSER_SCRIPT.format(
            python=sys.executable, argv_file=str(argv_file), code_file=str(code_file)
        )
    )
    browser.chmod(0o755)
    env = {k: v for k, v in cli.env.items() if k != "CI"}
    env["BROWSER"] = str(browser)
    child = pexpect.spawn(
        SVC, ["identity", "claim"], env=env, encoding="utf-8", timeout=30, dimensions=(60, 160)
    )
    child.expect("Claim this agent credential for")
    child.expect(r"Open: (\S+)")
    link = child.match.group(1)
    child.expect("█")  # the QR code
    child.expect("Press Enter to open the link in your browser")
    child.sendline("")
    child.expect("Code shown on the page")
    code = code_file.read_text()
    child.sendline(code)
    child.expect("waiting for the person to confirm")
    Person(link).confirm()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    assert f"Claimed for {email}" in (child.before or "")
    argv = json.loads(argv_file.read_text())
    assert argv == [str(browser), link]  # the child saw the link, nothing else
    secrets = bundle(cli, sandbox)
    for secret in (secrets["assertion"], secrets["refresh_token"], code):
        assert secret not in json.dumps(argv)


def test_no_secret_in_output_traces_config_or_ledger(cli: Cli, sandbox: Sandbox) -> None:
    seen: list[str] = []

    def run(*args: str, expect: int = 0, **kwargs: Any) -> Result:
        result = cli("-v", "--json", *args, **kwargs)
        assert result.returncode == expect, result.stderr
        seen.extend([result.stdout, result.stderr])
        return result

    secrets: set[str] = set()
    email = unique_email()
    run("identity", "register", "--email", email)
    secrets.add(bundle(cli, sandbox)["claim_token"])
    link = run("identity", "claim", expect=6).json()["verification_uri"]
    person = Person(link)
    code = person.sign_in()
    person.confirm()
    secrets.add(code)
    run("identity", "claim", "--code", "-", input=code + "\n")  # the code never in argv
    secrets.update(bundle(cli, sandbox)[k] for k in ("assertion", "refresh_token"))
    run("identity", "refresh")
    secrets.update(bundle(cli, sandbox)[k] for k in ("assertion", "refresh_token"))
    task = run("submit", "Secretless #complete", "--email", email).json()
    run("poll", task["id"])
    run("entitlements")
    run("identity", "status")
    assertion = mint(sandbox, unique_email())
    secrets.add(assertion)
    run("identity", "register", "--force", "--assertion-file", "-", input=assertion)
    secrets.update(bundle(cli, sandbox)[k] for k in ("assertion", "refresh_token"))

    config_dir = cli.home / "config"
    stored = [
        (config_dir / "identity.json").read_text(),
        *(p.read_text() for p in config_dir.glob("*.toml")),
    ]
    ledger = b"".join(p.read_bytes() for p in (cli.home / "data").rglob("*") if p.is_file())
    texts = [*seen, *stored, ledger.decode("latin-1")]
    for text in texts:
        for secret in secrets:
            assert secret not in text
        assert "svcat_" not in text  # no access token, ever
    assert "Authorization: [redacted]" in "".join(seen).replace("authorization", "Authorization")


def test_poll_without_identity_costs_nothing(cli: Cli) -> None:
    """No marker file, no identity code beyond the marker check, no keyring."""
    task = cli.ok("submit", "Lean #complete", "--email", unique_email()).json()
    env = {k: v for k, v in cli.env.items() if k != "SVC_KEYRING"}
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "svc", "poll", task["id"], "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    loaded = {
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert "svc.identity.session" not in loaded and "keyring" not in loaded
    assert not os.path.exists(cli.home / "config" / "identity.json")


def test_without_a_graphical_session_no_browser_is_started(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    """Over SSH (no DISPLAY, no BROWSER) Python's webbrowser would start lynx full screen: the
    claim shows the link and the QR code, says no browser was opened, and asks for the code."""
    cli.ok("identity", "register", "--email", unique_email())
    calls = tmp_path / "calls.txt"
    bin_dir = fake_programs(tmp_path, TEXT_BROWSERS, calls)
    env = {k: v for k, v in cli.env.items() if k not in ("CI", "DISPLAY", "WAYLAND_DISPLAY")}
    env["PATH"] = f"{bin_dir}:{env['PATH']}"
    env.pop("BROWSER", None)
    child = pexpect.spawn(
        SVC, ["identity", "claim"], env=env, encoding="utf-8", timeout=30, dimensions=(60, 160)
    )
    child.expect(r"Open: (\S+)")
    link = child.match.group(1)
    child.expect("█")  # the QR code is the way in
    child.expect("no graphical session here, so no browser was opened")
    child.expect("Code shown on the page")
    person = Person(link)
    child.sendline(person.sign_in())
    child.expect("waiting for the person to confirm")
    person.confirm()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    assert "Press Enter to open" not in (child.before or "")
    assert not calls.exists(), calls.read_text()  # no text browser took the terminal
