"""`svc quote` and `svc guide` against the sandbox's free advisor."""

from __future__ import annotations

import json
import re
import socket

import pexpect
import pytest
from tests.conftest import SVC, TEST_ADDRESS, Cli, Sandbox

pytestmark = pytest.mark.e2e


def requests_seen(sandbox: Sandbox) -> int:
    return int(sandbox.admin("GET", "/requests")["count"])


def plain(screen: str) -> str:
    """The screen without style escapes (bold stays even with NO_COLOR)."""
    return re.sub(r"\x1b\[[0-9;]*m", "", screen)


def spawn(cli: Cli, *args: str) -> pexpect.spawn:
    env = {k: v for k, v in cli.env.items() if k != "CI"}
    return pexpect.spawn(
        SVC, list(args), env=env, encoding="utf-8", timeout=30, dimensions=(50, 160)
    )


@pytest.mark.parametrize(
    ("goal", "status"),
    [
        ("Renew my library books", "quoted"),
        ("Renew my library books #ready", "ready"),
        ("Renew my library books #needs-input", "needs_input"),
        ("Renew my library books #blocked", "blocked"),
        ("Renew my library books #unknown", "unknown"),
        ("Renew my library books #unsupported", "unsupported"),
        ("Renew my library books #unavailable", "unavailable"),
    ],
)
def test_each_quote_status(cli: Cli, sandbox: Sandbox, goal: str, status: str) -> None:
    doc = cli.ok("quote", goal).json()
    assert doc["status"] == status
    assert doc["priceUsd"] == "0"
    assert set(doc) == {"status", "priceUsd", "guide", "guideUrl"}
    assert doc["guide"].startswith(f"# Quote: {status}")


def test_402_then_zero_amount_proof_then_200_and_nothing_charged(
    cli: Cli, sandbox: Sandbox
) -> None:
    before_books = sandbox.books()
    balance = sandbox.admin("GET", f"/wallets/{TEST_ADDRESS}")["balance_atomic"]
    before = requests_seen(sandbox)
    result = cli.ok("quote", "Renew my books", "--quantity", "2", "--budget", "10", "-v")
    assert result.json()["status"] == "quoted"
    seen = sandbox.admin("GET", "/requests")
    assert seen["count"] - before == 2  # the 402, then the same request with the proof
    assert [r["path"] for r in seen["requests"][-2:]] == ["/svc/agent/quote"] * 2
    assert "< 402" in result.stderr and "< 200" in result.stderr
    assert (
        "Payment-Signature: [redacted]" in result.stderr
        or "payment-signature: [redacted]" in result.stderr
    )
    assert sandbox.books() == before_books  # no charge, no settlement failure
    assert sandbox.admin("GET", f"/wallets/{TEST_ADDRESS}")["balance_atomic"] == balance


def test_quote_body_carries_every_flag(cli: Cli, sandbox: Sandbox) -> None:
    doc = cli.ok(
        "quote",
        "Buy 3 tickets",
        "--quantity",
        "3",
        "--budget",
        "4",
        "--budget-exclusive",
        "--review-after",
        "2",
        "--requirements",
        "Aisle seats only",
        "--no-human-available",
        "--payment",
        "card",
    ).json()
    assert doc["status"] == "blocked"  # 3 x 1.50 = 4.50 does not fit a 4 USD budget
    guide = doc["guide"]
    assert "Aisle seats only" in guide and "after 2 call(s)" in guide
    assert "anonymous" in guide and "Card payment" in guide


def test_policy_refuses_a_non_zero_advisor_price(cli: Cli, sandbox: Sandbox) -> None:
    # A quote must never sign more than 0, whatever the wallet or the config allow.
    sandbox.configure(network="eip155:1")  # a network the policy does not allow
    result = cli("quote", "Renew my books")
    assert result.returncode == 5
    assert "refusing to pay" in result.stderr


def test_503_falls_back_to_the_guide(cli: Cli, sandbox: Sandbox) -> None:
    """Exit 9 with the guide in the error object, marked as the fallback (issue 52)."""
    before = sandbox.books()
    result = cli("quote", "Renew my books #advisor-down")
    assert result.returncode == 9
    assert "advisor is unavailable (503)" in result.stderr
    assert "wallet-free guide" in result.stderr
    doc = result.json()
    assert doc["guide"].startswith("# Quote: quoted")
    assert (doc["source"], doc["error"], doc["exit_code"]) == ("fallback", "advisor_unavailable", 9)
    assert sandbox.books() == before
    last = sandbox.admin("GET", "/requests")["requests"][-2:]
    assert [r["path"] for r in last] == ["/svc/agent/quote", "/svc/agent/guide"]


def test_503_from_the_fault_queue_falls_back_once(cli: Cli, sandbox: Sandbox) -> None:
    before = requests_seen(sandbox)
    sandbox.faults({"kind": "status", "status": 503, "path": "/svc/agent/quote", "count": 1})
    result = cli("quote", "Renew my books #ready")
    assert result.returncode == 9 and "advisor is unavailable (503)" in result.stderr
    assert result.json()["status"] == "ready"  # the guide's own answer
    assert result.json()["source"] == "fallback"  # and never taken for a quote (issue 52)
    paths = [r["path"] for r in sandbox.admin("GET", "/requests")["requests"]]
    assert requests_seen(sandbox) - before == 2  # one quote (not retried), one guide
    assert paths[-2:] == ["/svc/agent/quote", "/svc/agent/guide"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["quote", ""], "invalid GOAL: string should have at least 1 character"),
        (
            ["quote", "g" * 2001],
            "invalid GOAL: string should have at most 2000 characters (got 2001",
        ),
        (
            ["quote", "x", "--quantity", "0"],
            "invalid --quantity: input should be greater than or equal to 1",
        ),
        (
            ["quote", "x", "--quantity", "1000001"],
            "invalid --quantity: input should be less than or equal to 1000000",
        ),
        (
            ["quote", "x", "--review-after", "0"],
            "invalid --review-after: input should be greater than or equal to 1",
        ),
        (
            ["quote", "x", "--review-after", "1000001"],
            "invalid --review-after: input should be less than or equal to 1000000",
        ),
        (["quote", "x", "--budget", "01"], "invalid --budget: must be a USD amount like 12.50"),
        (
            ["quote", "x", "--budget", "1.1234567"],
            "invalid --budget: must be a USD amount like 12.50",
        ),
        (
            ["quote", "x", "--budget", "1234567890"],
            "invalid --budget: must be a USD amount like 12.50",
        ),
        (
            ["quote", "x", "--requirements", ""],
            "invalid --requirements: string should have at least 1 character",
        ),
        (
            ["quote", "x", "--requirements", "r" * 301],
            "invalid --requirements: string should have at most 300 characters",
        ),
        (["quote", "x", "--payment", "cash"], "invalid --payment: must be one of x402, mpp, card"),
        (
            ["quote", "x", "--quantity", "many"],
            "Invalid value for '--quantity': Input should be a valid integer",
        ),
        (["quote", "x", "--colour", "red"], "No such option: --colour"),  # no unknown fields
    ],
)
def test_each_validation_rule_exits_2_and_sends_nothing(
    cli: Cli, sandbox: Sandbox, args: list[str], message: str
) -> None:
    before = requests_seen(sandbox)
    result = cli(*args)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr
    assert requests_seen(sandbox) == before


def test_validation_error_in_json_mode_is_one_object(cli: Cli, sandbox: Sandbox) -> None:
    result = cli("quote", "x", "--budget", "01", "--json")
    assert result.returncode == 2
    assert result.json() == {
        "error": "validation_error",
        "detail": "invalid --budget: must be a USD amount like 12.50 (up to 9 integer digits, "
        "6 decimals) (got '01')",
        "exit_code": 2,
    }


def test_quote_on_a_terminal_explains_the_status_and_renders_the_guide(
    cli: Cli, sandbox: Sandbox
) -> None:
    child = spawn(cli, "quote", "Renew my library books #needs-input")
    child.expect(pexpect.EOF)
    child.close()
    screen = plain(child.before or "")
    assert child.exitstatus == 0
    assert "Status: needs_input" in screen
    assert "details are missing: ask the user for them before submitting" in screen
    assert "# Quote" not in screen  # the Markdown was rendered, not printed raw
    assert "Quote: needs_input" in screen and "Next steps" in screen
    assert "Wallet-free guide:" in screen


def test_guide_get_piped_is_raw_markdown(cli: Cli, sandbox: Sandbox) -> None:
    result = cli.ok("guide", "Renew my library books #unsupported")
    assert result.stdout.startswith("# Quote: unsupported\n")
    last = sandbox.admin("GET", "/requests")["requests"][-1]
    assert (last["method"], last["path"]) == ("GET", "/svc/agent/guide")


def test_guide_json_is_the_object_as_returned(cli: Cli, sandbox: Sandbox) -> None:
    doc = cli.ok("guide", "Café & crème #ready?", "--json").json()
    assert doc["status"] == "ready"
    # the goal travelled URL-encoded and came back intact in the guide's link
    assert doc["guideUrl"].endswith("?goal=Caf%C3%A9%20%26%20cr%C3%A8me%20%23ready%3F")


def test_long_goal_guide_is_posted(cli: Cli, sandbox: Sandbox) -> None:
    goal = "Renew my library books. " * 90  # about 2,200 bytes as a URL
    result = cli.ok("guide", goal)
    assert result.stdout.startswith("# Quote: quoted")
    last = sandbox.admin("GET", "/requests")["requests"][-1]
    assert (last["method"], last["path"]) == ("POST", "/svc/agent/guide")


def test_long_non_ascii_goal_is_posted_by_its_encoded_length(cli: Cli, sandbox: Sandbox) -> None:
    """1,000 characters of Japanese are 9,000 bytes once URL-encoded (issue 25.3): the length
    that decides GET or POST is the URL's, not the goal's."""
    goal = "図書館の本を更新してください。" * 67  # 1,005 characters
    result = cli.ok("guide", goal, "--json")
    assert result.json()["status"] == "quoted"
    last = sandbox.admin("GET", "/requests")["requests"][-1]
    assert (last["method"], last["path"]) == ("POST", "/svc/agent/guide")


def test_a_request_line_the_sandbox_cannot_read_is_answered_in_json(sandbox: Sandbox) -> None:
    """The HTTP server's own 400 (a request line too long or broken) is JSON like every other
    error the sandbox answers, with the spec's `invalid_request` code."""
    host, port = sandbox.url.removeprefix("http://").rsplit(":", 1)
    for request_line in (b"GET /svc/tasks/\x00 HTTP/1.1 extra", b"NOT HTTP AT ALL"):
        with socket.create_connection((host, int(port)), timeout=10) as conn:
            conn.sendall(request_line + b"\r\nHost: x\r\n\r\n")
            answer = b""
            while chunk := conn.recv(65536):
                answer += chunk
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 400 "), head
        assert b"content-type: application/json" in head.lower(), head
        doc = json.loads(body)
        assert doc["error"] == "invalid_request" and doc["detail"], doc


def test_guide_on_a_terminal_is_rendered(cli: Cli, sandbox: Sandbox) -> None:
    child = spawn(cli, "guide", "Renew my library books")
    child.expect(pexpect.EOF)
    child.close()
    screen = plain(child.before or "")
    assert child.exitstatus == 0
    assert "Quote: quoted" in screen and "# Quote" not in screen


def test_empty_guide_goal_is_refused(cli: Cli, sandbox: Sandbox) -> None:
    before = requests_seen(sandbox)
    result = cli("guide", "  ")
    assert result.returncode == 2
    assert "the goal is empty" in result.stderr
    assert requests_seen(sandbox) == before


def test_guide_needs_no_wallet(bare_cli: Cli, sandbox: Sandbox) -> None:
    env = {"SVC_BASE_URL": sandbox.url}
    result = bare_cli("guide", "Renew my books", env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("# Quote: quoted")


# --- the free quote by MPP (issue 30.17) ---------------------------------------------------
# The spec: the quote "requires only a signed zero-amount wallet proof (x402 or MPP)". The
# sandbox's 402 offers both; svc proves with the rail the person has (the wallet, else the MPP
# token), and `--pay` picks when both exist. (`--payment` is the quote body's own field: how
# the eventual purchase will be paid. It does not choose the proof.)


def quote_proofs(sandbox: Sandbox, since: int) -> list[list[str]]:
    """The proof headers each quote request carried, in order, after `since` requests."""
    seen = sandbox.admin("GET", "/requests")
    fresh = seen["requests"][len(seen["requests"]) - (seen["count"] - since) :]
    return [r["proofs"] for r in fresh if r["path"] == "/svc/agent/quote"]


def test_a_person_with_only_an_mpp_token_gets_a_quote(bare_cli: Cli, sandbox: Sandbox) -> None:
    env = {"SVC_BASE_URL": sandbox.url, "SVC_SPT": "spt_test_quote_only"}
    before, books = requests_seen(sandbox), sandbox.books()
    doc = bare_cli.ok("quote", "Renew my books #ready", env=env).json()
    assert doc["status"] == "ready" and doc["priceUsd"] == "0"
    assert quote_proofs(sandbox, before) == [[], ["authorization: Payment"]]
    assert sandbox.books() == books  # a zero-amount proof: nothing charged, nothing booked
    # ... and the token was not spent: it still pays the task it is for (SPTs are single use).
    paid = bare_cli("submit", "t #complete", "--email", "a@example.com", "--pay", "mpp", env=env)
    assert paid.returncode == 0, paid.stderr


def test_with_a_wallet_and_a_token_pay_picks_the_proof(cli: Cli, sandbox: Sandbox) -> None:
    env = {"SVC_SPT": "spt_test_quote_both"}
    before = requests_seen(sandbox)
    cli.ok("quote", "Renew my books", env=env)  # the wallet first
    cli.ok("quote", "Renew my books", "--pay", "mpp", env=env)
    cli.ok("quote", "Renew my books", "--pay", "x402", env=env)
    proofs = quote_proofs(sandbox, before)
    assert proofs == [
        [],
        ["payment-signature"],
        [],
        ["authorization: Payment"],
        [],
        ["payment-signature"],
    ]


def test_a_quote_with_neither_says_so_in_one_line(bare_cli: Cli, sandbox: Sandbox) -> None:
    result = bare_cli("quote", "Book a table", env={"SVC_BASE_URL": sandbox.url})
    assert result.returncode == 5, result.stderr
    line, hint = result.stderr.splitlines()[:2]
    assert line.startswith("svc: the quote is free") and "nothing is paid" in line, line
    assert "wallet" in line and "MPP" in line, line
    assert "svc wallet create" in hint and "SVC_SPT" in hint and "svc guide GOAL" in hint, hint


def test_quote_pay_names_only_a_rail_that_can_prove_nothing(bare_cli: Cli) -> None:
    result = bare_cli("quote", "Book a table", "--pay", "card")
    assert result.returncode == 2, result.stderr
    assert "--pay" in result.stderr and "x402" in result.stderr and "mpp" in result.stderr
    assert "Traceback" not in result.stderr


def test_pay_mpp_without_a_token_names_where_to_get_one(cli: Cli, sandbox: Sandbox) -> None:
    result = cli("quote", "Book a table", "--pay", "mpp")
    assert result.returncode == 5, result.stderr
    assert "shared payment token" in result.stderr and "SVC_SPT" in result.stderr
