"""Proxies and CAs as curl and pip read them (issue 29.5): svc's own transport must not make
them disappear, and the size and time bounds stay on every route."""

from __future__ import annotations

import ssl
from pathlib import Path

import httpx
import pytest

from svc.api import proxies
from svc.api.cleartext import CleartextGuard
from svc.api.http import Http
from svc.api.transport import ProxyRouter, tls_context
from svc.errors import ExitCode, UntrustedURLError, UsageError

PROXY = "http://proxy.corp:3128"
LOCAL_PROXY = "http://127.0.0.1:3128"


def test_each_scheme_has_its_variable_and_all_proxy_is_the_fallback() -> None:
    env = proxies.from_environment({"HTTPS_PROXY": "https://tls.corp", "ALL_PROXY": "all.corp:1"})
    assert env.https is not None and env.https.url == "https://tls.corp"
    assert env.http is not None and env.http.url == "http://all.corp:1"  # no scheme: http://
    assert env.http.variable == "ALL_PROXY"
    assert env.proxy_for("https://pay.example/x") == env.https
    assert env.proxy_for("http://127.0.0.1:8402/") == env.http  # loopback is not exempt (curl)


def test_lowercase_wins_and_empty_is_unset() -> None:
    env = proxies.from_environment(
        {"http_proxy": "http://low:1", "HTTP_PROXY": "http://up:1", "https_proxy": ""}
    )
    assert env.http is not None and env.http.url == "http://low:1"
    assert env.https is None


def test_httpoxy_a_cgi_request_cannot_choose_the_proxy() -> None:
    env = proxies.from_environment({"HTTP_PROXY": "http://attacker:1", "REQUEST_METHOD": "GET"})
    assert env.http is None


@pytest.mark.parametrize(
    ("no_proxy", "host", "direct"),
    [
        ("example.com", "example.com", True),
        ("example.com", "api.example.com", True),
        ("example.com", "badexample.com", False),
        (".example.com", "example.com", True),
        (".example.com", "a.b.example.com", True),
        ("EXAMPLE.com.", "Api.Example.COM", True),
        ("localhost, 127.0.0.1", "127.0.0.1", True),
        ("localhost 127.0.0.1", "localhost", True),
        ("127.0.0.0/8", "127.9.9.9", True),
        ("10.0.0.0/8", "11.0.0.1", False),
        ("::1", "[::1]", True),
        ("[::1]", "[0:0::1]", True),
        ("*", "anything.example", True),
        ("foo, *", "anything.example", True),
        ("", "example.com", False),
        ("127.0.0.1", "127.0.0.1.evil.com", False),
    ],
)
def test_no_proxy_as_curl_reads_it(no_proxy: str, host: str, direct: bool) -> None:
    env = proxies.from_environment({"HTTP_PROXY": PROXY, "NO_PROXY": no_proxy})
    assert (env.proxy_for(f"http://{host}/x") is None) is direct


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("http://user:s3cret@[::1/", "invalid host or port"),
        ("http://user:s3cret@proxy:99999", "invalid host or port"),
        ("socks5://user:s3cret@proxy:1080", "SOCKS"),
        ("ftp://user:s3cret@proxy", "not an http:// or https://"),
        ("http://user:s3cret@", "no host"),
        ("http://user:s3cret@proxy :1", "not a proxy URL svc can read"),
        ("http://user:s3cret@proxy:0", "invalid host or port"),
    ],
)
def test_a_malformed_proxy_is_one_line_without_its_password(value: str, said: str) -> None:
    with pytest.raises(UsageError) as caught:
        proxies.from_environment({"HTTPS_PROXY": value})
    error = caught.value
    assert error.exit_code == ExitCode.USAGE
    assert said in error.message and "HTTPS_PROXY" in error.message
    assert "s3cret" not in error.message + (error.hint or "")


def test_a_proxy_password_is_masked_for_people() -> None:
    proxy = proxies.Proxy("http://ana:s3cret@proxy.corp:3128", "HTTPS_PROXY")
    assert proxy.shown() == "http://ana:***@proxy.corp:3128"
    assert proxies.Proxy(PROXY, "HTTP_PROXY").shown() == PROXY


def test_the_router_sends_each_request_by_its_route(monkeypatch: pytest.MonkeyPatch) -> None:
    env = proxies.from_environment({"HTTP_PROXY": PROXY, "NO_PROXY": "direct.example"})
    router = ProxyRouter(5.0, env)
    assert router.via[PROXY].inner._pool.__class__.__name__ == "HTTPProxy"
    seen: list[str] = []
    routes = (
        ("cleartext", router.cleartext),
        ("direct", router.direct),
        ("proxy", router.via[PROXY]),
    )
    for name, transport in routes:
        monkeypatch.setattr(
            transport.inner,
            "handle_request",
            lambda request, name=name: seen.append(name) or httpx.Response(200),
        )
    router.handle_request(httpx.Request("GET", "http://direct.example/"))
    router.handle_request(httpx.Request("GET", "https://direct.example/"))
    router.handle_request(httpx.Request("GET", "http://other.example/"))
    router.handle_request(httpx.Request("GET", "https://other.example/"))
    assert seen == ["cleartext", "direct", "proxy", "direct"]  # HTTP_PROXY only: https direct
    # The deadline wraps the proxy pool's sockets too.
    backend = router.via[PROXY].inner._pool._network_backend
    assert type(backend).__name__ == "_DeadlineBackend"


def test_http_reads_the_proxy_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://ana:s3cret@proxy.corp:3128")
    http = Http(timeout=1.0)
    proxy = http.router.route("https://pay.example/")
    assert proxy is not None and proxy.host == "proxy.corp"
    monkeypatch.setenv("HTTPS_PROXY", "socks5h://proxy.corp")
    with pytest.raises(UsageError, match="SOCKS"):
        Http(timeout=1.0)


def test_an_unreadable_ca_file_is_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "missing.pem"))
    with pytest.raises(UsageError, match=r"SSL_CERT_FILE .*cannot be read as CA certificates"):
        tls_context()
    (tmp_path / "junk.pem").write_text("not a certificate\n")
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "junk.pem"))
    # Read when the first request that may use TLS is routed (issue 34.3: not on a loopback
    # poll), and refused there, before any connection is made.
    router = Http(timeout=1.0).router
    with pytest.raises(UsageError, match="SSL_CERT_FILE"):
        router.handle_request(httpx.Request("GET", "https://pay.example/"))


def test_a_cleartext_route_loads_no_ca_and_can_verify_nothing() -> None:
    """The plain-http route never loads the CA bundle, and its TLS context trusts no CA: a
    handshake through it could only fail, never pass unverified."""
    router = ProxyRouter(5.0, proxies.from_environment({}))
    assert router._direct is None  # nothing loaded until a request may need TLS
    context = router.cleartext.inner._pool._ssl_context
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    assert context.cert_store_stats()["x509_ca"] == 0
    assert context.get_ca_certs() == []


# --- the cleartext guard on every request as it leaves ------------------------------------------


def _guard(allowed: bool, env: dict[str, str] | None = None) -> tuple[CleartextGuard, list[str]]:
    said: list[str] = []
    route = proxies.from_environment(env or {}).proxy_for
    return CleartextGuard(route, allowed, said.append), said


PAID = {"x-payment": "proof"}


@pytest.mark.parametrize(
    "headers",
    [
        PAID,
        {"Authorization": "Bearer t"},
        {"svc-agent-authorization": "Bearer t"},
        {"Payment-Signature": "p"},
        {"svc-payment-id": "pi_1"},
    ],
)
def test_no_credential_to_a_cleartext_host(headers: dict[str, str]) -> None:
    guard, said = _guard(allowed=False)
    with pytest.raises(UntrustedURLError, match=r"plain http:// to pay\.example\.invalid"):
        guard.check(httpx.Request("GET", "http://pay.example.invalid/tasks", headers=headers))
    assert said == []


def test_a_discovered_endpoint_on_cleartext_is_refused_too() -> None:
    guard, _ = _guard(allowed=False)
    token = httpx.Request("POST", "HTTP://127.0.0.1.evil.com/token", data={"assertion": "jwt"})
    with pytest.raises(UntrustedURLError) as caught:
        guard.check(token)
    assert caught.value.exit_code == ExitCode.UNAVAILABLE


def test_what_carries_nothing_and_what_stays_local_passes() -> None:
    guard, said = _guard(allowed=False)
    guard.check(httpx.Request("GET", "http://pay.example.invalid/manifest.json"))
    guard.check(httpx.Request("POST", "http://127.0.0.1:8402/tasks", headers=PAID, json={}))
    guard.check(httpx.Request("POST", "https://pay.example/tasks", headers=PAID, json={}))
    assert said == []


def test_loopback_through_a_proxy_elsewhere_leaves_the_machine() -> None:
    guard, _ = _guard(allowed=False, env={"HTTP_PROXY": "http://ana:s3cret@proxy.corp:3128"})
    with pytest.raises(UsageError) as caught:
        guard.check(httpx.Request("POST", "http://127.0.0.1:8402/tasks", json={"t": 1}))
    assert "NO_PROXY" in (caught.value.hint or "") and "s3cret" not in caught.value.message
    local, _ = _guard(allowed=False, env={"HTTP_PROXY": LOCAL_PROXY})
    local.check(httpx.Request("POST", "http://127.0.0.1:8402/tasks", headers=PAID, json={}))


def test_allowed_cleartext_warns_at_each_payment_and_once_a_host_otherwise() -> None:
    guard, said = _guard(allowed=True)
    for _ in range(2):
        guard.check(httpx.Request("POST", "http://pay.example.invalid/tasks", headers=PAID))
        guard.check(
            httpx.Request("GET", "http://pay.example.invalid/t", headers={"Authorization": "B x"})
        )
    paying = "paying over cleartext http to pay.example.invalid: anyone on the path can read or change it"
    assert said.count(paying) == 2
    assert len(said) == 3 and all("\n" not in line for line in said)


def test_a_router_is_freed_with_its_client_without_a_collection() -> None:
    """No cycle between the client and its routes: a client left unclosed is freed (and its
    sockets closed) by reference counting alone."""
    import gc
    import weakref

    gc.disable()
    try:
        http = Http(timeout=1.0)
        assert http.router.cleartext is not None  # the lazy route, built
        router = weakref.ref(http.router)
        del http
        assert router() is None
    finally:
        gc.enable()
