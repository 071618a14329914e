"""The origin gate through the `svc` executable (issue 21): every URL a server hands svc, and
every destination of a credential, passes one gate (svc.origin).

The service is tests/hostile_links.LinksPeer; a second peer on another port is the thief, and
a test passes only if the thief saw nothing and nothing was shown, opened or drawn for a
refused link.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import Cli, _base_env
from tests.hostile_links import LinksPeer
from tests.person import finish, spawn_person

UNAVAILABLE = 9


def peer_cli(tmp_path: Path, peer: LinksPeer) -> Cli:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {**_base_env(home), "SVC_BASE_URL": peer.url, "SVC_AUTH_BASE": peer.auth}
    return Cli(home, env)


# --- identity: credentials never follow discovery elsewhere --------------------------------------


@pytest.mark.parametrize(
    "key",
    ["token_endpoint", "registration_endpoint", "entitlements_endpoint", "claim_endpoint"],
)
def test_identity_endpoints_on_another_host_are_refused_before_anything_is_sent(
    tmp_path: Path, links_peers: tuple[LinksPeer, LinksPeer], key: str
) -> None:
    peer, thief = links_peers
    peer.config.endpoints[key] = f"{thief.auth}/steal"
    cli = peer_cli(tmp_path, peer)
    result = cli("identity", "register", "--anonymous")
    assert result.returncode == UNAVAILABLE, result.stderr
    assert thief.url.removeprefix("http://") in result.stderr and "not on" in result.stderr
    assert thief.books == []
    assert peer.paths("POST") == []  # not even the registration left


@pytest.mark.parametrize(
    "doc",
    [
        {"resource": "{peer}", "authorization_servers": ["{thief}/auth"]},
        {"resource": "{thief}", "authorization_servers": ["{peer}/auth"]},
        {"resource": "{peer}", "authorization_servers": "{peer}/auth"},
    ],
    ids=["another-authorization-server", "another-resource", "not-a-list"],
)
def test_a_protected_resource_document_that_does_not_bind_the_two_is_refused(
    tmp_path: Path, links_peers: tuple[LinksPeer, LinksPeer], doc: dict[str, object]
) -> None:
    peer, thief = links_peers
    text = json.dumps(doc).replace("{peer}", peer.url).replace("{thief}", thief.url)
    peer.config.protected_resource = json.loads(text)
    result = peer_cli(tmp_path, peer)("identity", "register", "--anonymous")
    assert result.returncode == UNAVAILABLE, result.stderr
    assert "protected-resource document" in result.stderr
    assert peer.paths("POST") == [] and thief.books == []


def test_a_protected_resource_document_that_binds_them_is_accepted(
    tmp_path: Path, links_peers: tuple[LinksPeer, LinksPeer]
) -> None:
    peer, _ = links_peers
    peer.config.protected_resource = {"resource": peer.url, "authorization_servers": [peer.auth]}
    peer_cli(tmp_path, peer).ok("identity", "register", "--anonymous")
    assert peer.paths("POST") == ["/auth/agent/identity"]


def test_a_stored_credential_pointing_elsewhere_sends_its_bearer_only_home(
    tmp_path: Path, links_peers: tuple[LinksPeer, LinksPeer]
) -> None:
    """A hostile or old secret file: the endpoints kept with a credential pass the gate again."""
    peer, thief = links_peers
    cli = peer_cli(tmp_path, peer)
    cli.ok("identity", "register", "--anonymous")
    secrets_file = cli.home / "config" / "secrets.json"
    stored = json.loads(secrets_file.read_text())
    for name, value in stored.items():
        if '"endpoints"' in value:
            bundle = json.loads(value)
            bundle["endpoints"] = {k: f"{thief.auth}/steal" for k in bundle["endpoints"]}
            stored[name] = json.dumps(bundle)
    secrets_file.write_text(json.dumps(stored))
    cli.ok("entitlements", "--json")
    assert thief.books == []
    assert "/auth/agent/entitlements" in peer.paths("GET")


# --- links for people: claim -------------------------------------------------------------------


def _claim(cli: Cli) -> object:
    cli.ok("identity", "register", "--anonymous")
    return cli("identity", "claim", "--email", "ana@example.com", "--no-input", "--json")


@pytest.mark.parametrize(
    ("link", "said"),
    [
        ("http://{auth_host}@evil.example/verify", "user name or password"),
        ("https://evil.example/verify", "evil.example, not on {auth_host}"),
        ("http://{auth_host}/verify/\u202etxt.exe", "U+202E"),
        ("http://{auth_host}/verify/\u200bx", "U+200B"),
        ("http://evil.example\\@{auth_host}/verify", "U+005C"),
        ("http://{auth_host}/verify\x1b]8;;http://evil.example\x07", "U+001B"),
        ("javascript:alert(1)", "not an http(s) URL"),
    ],
    ids=["userinfo", "foreign-host", "bidi", "zero-width", "backslash", "osc8", "javascript"],
)
def test_a_claim_link_that_fails_the_gate_is_never_shown(
    tmp_path: Path, links_peers: tuple[LinksPeer, LinksPeer], link: str, said: str
) -> None:
    peer, _ = links_peers
    auth_host = peer.url.removeprefix("http://")
    peer.config.verification_uri = link.replace("{auth_host}", auth_host)
    result = _claim(peer_cli(tmp_path, peer))
    assert result.returncode == UNAVAILABLE, result.stderr
    assert said.replace("{auth_host}", auth_host) in result.stderr
    assert "verification_uri" not in result.stdout and "/verify" not in result.stdout
    assert "Open " not in result.stderr


def test_a_claim_link_on_its_own_origin_is_handed_to_the_script(
    tmp_path: Path, links_peers: tuple[LinksPeer, LinksPeer]
) -> None:
    peer, _ = links_peers
    result = _claim(peer_cli(tmp_path, peer))
    assert result.returncode == 6, result.stderr
    assert result.json()["verification_uri"] == f"{peer.auth}/verify/att_1"


def test_a_person_confirms_a_foreign_link_host_once_and_sees_it_in_ascii(
    tmp_path: Path, links_peers: tuple[LinksPeer, LinksPeer]
) -> None:
    """An IDN link: the person is asked about its punycode host, once; then it is pinned."""
    peer, _ = links_peers
    peer.config.verification_uri = "https://bücher.example/verify"
    cli = peer_cli(tmp_path, peer)
    cli.ok("identity", "register", "--anonymous")
    args = ("identity", "claim", "--email", "ana@example.com", "--no-browser", "--timeout", "1")
    child = spawn_person(cli, *args)
    child.expect_exact("Trust xn--bcher-kva.example for links from")
    child.sendline("y")
    child.expect_exact("Open: https://xn--bcher-kva.example/verify")
    child.expect_exact("Code shown on the page")
    child.sendline("ABCD-EFGH")
    assert finish(child) == 4  # never confirmed: the claim times out
    # Pinned: a script now gets the link, in ASCII, with no question asked.
    result = cli("identity", "claim", "--email", "ana@example.com", "--no-input", "--json")
    assert result.returncode == 6, result.stderr
    assert result.json()["verification_uri"] == "https://xn--bcher-kva.example/verify"


def test_a_person_who_declines_the_foreign_host_gets_nothing_drawn(
    tmp_path: Path, links_peers: tuple[LinksPeer, LinksPeer]
) -> None:
    peer, _ = links_peers
    peer.config.verification_uri = "https://evil.example/verify"
    cli = peer_cli(tmp_path, peer)
    cli.ok("identity", "register", "--anonymous")
    child = spawn_person(cli, "identity", "claim", "--email", "ana@example.com")
    child.expect_exact("Trust evil.example for links from")
    child.sendline("n")
    child.expect_exact("refused the claim link")
    before = child.before or ""
    assert finish(child) == UNAVAILABLE
    assert "Open:" not in before and "▀" not in before and "█" not in before  # no QR either


# --- links for people: card ----------------------------------------------------------------------


def _card_submit(cli: Cli) -> object:
    return cli("submit", "Buy it", "--email", "ana@example.com", "--pay", "card", "--no-input")


@pytest.mark.parametrize(
    ("field", "link", "said"),
    [
        ("pay_url", "http://127.0.0.1:1@evil.example/pay", "user name or password"),
        ("pay_url", "https://evil.example/pay", "evil.example, not on"),
        ("status_url", "https://evil.example/status", "evil.example, not on"),
        ("checkout_url", "https://evil.example/checkout", "evil.example, not on"),
        ("checkout_url", "http://{host}@evil.example/checkout", "user name or password"),
    ],
    ids=["payurl-userinfo", "payurl-foreign", "statusurl-foreign", "page-foreign", "page-userinfo"],
)
def test_a_card_link_that_fails_the_gate_is_never_shown_or_posted(
    tmp_path: Path, links_peers: tuple[LinksPeer, LinksPeer], field: str, link: str, said: str
) -> None:
    peer, thief = links_peers
    setattr(peer.config, field, link.replace("{host}", peer.url.removeprefix("http://")))
    result = _card_submit(peer_cli(tmp_path, peer))
    assert result.returncode == UNAVAILABLE, result.stderr
    assert said in result.stderr
    assert "by card on this page" not in result.stderr
    assert "evil.example/" not in result.stdout
    if field != "checkout_url":  # the page link comes from payUrl's answer: nothing posted
        assert "/svc/payments/pay_1/pay" not in peer.paths("POST")
    assert thief.books == []


def test_a_card_page_on_its_own_origin_is_shown_and_waits_for_a_person(
    tmp_path: Path, links_peers: tuple[LinksPeer, LinksPeer]
) -> None:
    peer, _ = links_peers
    peer.config.checkout_url = f"{peer.url}/checkout/pay_1"
    result = _card_submit(peer_cli(tmp_path, peer))
    assert result.returncode == 6, result.stderr
    assert f"by card on this page: {peer.url}/checkout/pay_1" in result.stderr


# --- links for people: the quote's guide -------------------------------------------------------


@pytest.mark.parametrize(
    "link", ["http://{host}@evil.example/guide", "https://evil.example/guide", "data:text/html,x"]
)
def test_a_quote_whose_guide_link_fails_the_gate_is_refused(
    tmp_path: Path, links_peers: tuple[LinksPeer, LinksPeer], link: str
) -> None:
    peer, _ = links_peers
    peer.config.guide_url = link.replace("{host}", peer.url.removeprefix("http://"))
    cli = peer_cli(tmp_path, peer)
    for args in ((), ("--json",)):
        result = cli("quote", "Renew my library books", *args)
        assert result.returncode == UNAVAILABLE, result.stderr
        assert "guideUrl" in result.stderr and "evil.example/guide" not in result.stdout


def test_a_quote_whose_guide_link_is_home_is_shown(
    tmp_path: Path, links_peers: tuple[LinksPeer, LinksPeer]
) -> None:
    peer, _ = links_peers
    result = peer_cli(tmp_path, peer).ok("quote", "Renew my library books", "--json")
    assert result.json()["guideUrl"] == f"{peer.url}/svc/agent/guide?goal=x"


# --- the person's own URLs ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "url", ["http://ana:hunter2@127.0.0.1:9", "http://127.0.0.1:9/\u202e", "ftp://127.0.0.1"]
)
def test_a_base_url_that_fails_the_gate_is_a_usage_error_that_never_echoes_it(
    bare_cli: Cli, url: str
) -> None:
    result = bare_cli("poll", "task_abc", "--base-url", url)
    assert result.returncode == 2, result.stderr
    assert "hunter2" not in result.stderr + result.stdout
    assert len(result.stderr.strip().splitlines()) <= 2
