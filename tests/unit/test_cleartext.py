"""No money or credential in cleartext (issue 29.4): what counts as loopback is judged on the
host a socket would really reach, never on how the URL text begins."""

from __future__ import annotations

import ipaddress
import socket
from pathlib import Path
from typing import Any

import pytest

from svc import origin, settings
from svc.errors import ExitCode, UsageError
from svc.store.config import ConfigFile

# Each of these reaches (or may reach) another machine: never loopback, whatever it looks like.
NOT_LOOPBACK = [
    "http://127.0.0.1.evil.com/",
    "http://127.evil/",
    "http://localhost.evil.com/",
    "http://evil.com/127.0.0.1",
    "http://127.0.0.1@evil.com/",
    "http://localhost:8402@evil.com/",
    "http://evil.com#@127.0.0.1",
    "http://evil.com?@127.0.0.1",
    "HTTP://pay.example.invalid/",
    "http://0.0.0.0:8402/",
    "http://[::ffff:10.0.0.1]/",
    "http://10.0.0.1/",
    "http://2130706433/",  # a resolver may read it as 127.0.0.1: refusing is the safe side
    "http://127.1/",
    "http://[::1/",  # unparseable: never loopback
    "",
]
LOOPBACK = [
    "http://127.0.0.1:8402",
    "http://127.5.6.7/",
    "http://LOCALHOST:8402/",
    "http://localhost.:8402/",
    "http://[::1]:8402/",
    "http://[0:0::1]/",
    "http://[::ffff:127.0.0.1]:8402/",
    "HTTP://127.0.0.1/",
]


@pytest.mark.parametrize("url", NOT_LOOPBACK)
def test_what_only_looks_local_is_not_loopback(url: str) -> None:
    assert not origin.is_loopback_url(url)
    assert not settings.is_loopback_url(url)


@pytest.mark.parametrize("url", LOOPBACK)
def test_loopback_in_every_spelling(url: str) -> None:
    assert origin.is_loopback_url(url)
    assert not origin.is_cleartext(url)


@pytest.mark.parametrize(
    "url", ["http://pay.example.invalid", "HTTP://127.0.0.1.evil.com", "http://[::ffff:10.0.0.1]"]
)
def test_cleartext_is_http_to_another_machine(url: str) -> None:
    assert origin.is_cleartext(url)


@pytest.mark.parametrize("url", ["https://pay.example", "HTTPS://10.0.0.1", "http://127.0.0.1"])
def test_https_and_loopback_are_not_cleartext(url: str) -> None:
    assert not origin.is_cleartext(url)


def _no_svc_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SVC_BASE_URL", "SVC_AUTH_BASE", "SVC_ALLOW_INSECURE_HTTP"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(
    ("kwargs", "env", "profile", "named"),
    [
        ({"base_url": "http://pay.example.invalid"}, {}, {}, "base_url (flag)"),
        ({"auth_base": "http://id.example.invalid"}, {}, {}, "auth_base (flag)"),
        ({}, {"SVC_BASE_URL": "HTTP://127.0.0.1.evil.com"}, {}, "env SVC_BASE_URL"),
        ({}, {"SVC_AUTH_BASE": "http://localhost.evil.com"}, {}, "env SVC_AUTH_BASE"),
        ({}, {}, {"base_url": "http://10.0.0.1:8402"}, "profile default"),
        ({}, {}, {"auth_base": "http://[::ffff:10.0.0.1]/auth"}, "profile default"),
    ],
)
def test_a_cleartext_setting_is_a_usage_error_wherever_given(
    monkeypatch: pytest.MonkeyPatch,
    kwargs: dict[str, str],
    env: dict[str, str],
    profile: dict[str, str],
    named: str,
) -> None:
    _no_svc_env(monkeypatch)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(UsageError) as caught:
        settings.resolve(profile_values=profile, stdin_is_tty=False, **kwargs)
    error = caught.value
    assert error.exit_code == ExitCode.USAGE
    assert named in error.message
    assert "https://" in error.message
    assert "\n" not in error.message
    assert "allow_insecure_http" in (error.hint or "")


def test_a_cleartext_base_url_is_allowed_on_purpose(monkeypatch: pytest.MonkeyPatch) -> None:
    _no_svc_env(monkeypatch)
    monkeypatch.setenv("SVC_ALLOW_INSECURE_HTTP", "1")
    s = settings.resolve(base_url="http://pay.example.invalid", stdin_is_tty=False)
    assert s.allow_insecure_http
    assert s.base_url == "http://pay.example.invalid"
    monkeypatch.delenv("SVC_ALLOW_INSECURE_HTTP")
    profile = {"allow_insecure_http": "true", "base_url": "http://pay.example.invalid"}
    assert settings.resolve(profile_values=profile, stdin_is_tty=False).allow_insecure_http


def test_allow_insecure_http_is_strict(monkeypatch: pytest.MonkeyPatch) -> None:
    _no_svc_env(monkeypatch)
    monkeypatch.setenv("SVC_ALLOW_INSECURE_HTTP", "maybe")
    with pytest.raises(UsageError, match=r"allow_insecure_http .*true or false"):
        settings.resolve(stdin_is_tty=False)


def test_the_sandbox_needs_no_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    _no_svc_env(monkeypatch)
    for url in LOOPBACK:
        assert settings.resolve(base_url=url, stdin_is_tty=False).is_loopback
    assert not settings.resolve(stdin_is_tty=False).allow_insecure_http


def _localhost_names(monkeypatch: pytest.MonkeyPatch, *addresses: str) -> None:
    """As an /etc/hosts that names these addresses `localhost`."""
    real = socket.getaddrinfo

    def resolve(host: Any, *args: Any, **kwargs: Any) -> Any:
        if str(host).lower() != "localhost":
            return real(host, *args, **kwargs)
        family = {4: socket.AF_INET, 6: socket.AF_INET6}
        return [
            (family[ipaddress.ip_address(a).version], socket.SOCK_STREAM, 6, "", (a, 0))
            for a in addresses
        ]

    monkeypatch.setattr(socket, "getaddrinfo", resolve)


@pytest.mark.parametrize("addresses", [("192.0.2.7",), ("127.0.0.1", "192.0.2.7"), ()])
def test_localhost_that_names_another_machine_is_cleartext(
    monkeypatch: pytest.MonkeyPatch, addresses: tuple[str, ...]
) -> None:
    """`localhost` is loopback by what it resolves to, not by its name: a proof or a bearer to
    http://localhost would cross the network in cleartext (found in review)."""
    _no_svc_env(monkeypatch)
    _localhost_names(monkeypatch, *addresses)
    assert not origin.is_loopback_host("localhost")
    assert origin.is_cleartext("http://localhost:8402/svc/tasks")
    with pytest.raises(UsageError) as caught:
        settings.resolve(base_url="http://localhost:8402", stdin_is_tty=False)
    assert caught.value.exit_code == ExitCode.USAGE


def test_localhost_that_names_only_loopback_is_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    _no_svc_env(monkeypatch)
    _localhost_names(monkeypatch, "127.0.0.1", "::1")
    assert origin.is_loopback_host("LOCALHOST.")
    assert settings.resolve(base_url="http://localhost:8402", stdin_is_tty=False).is_loopback


def test_config_set_refuses_a_cleartext_url(tmp_path: Path) -> None:
    config = ConfigFile(tmp_path / "config.toml")
    with pytest.raises(UsageError, match=r"https://") as caught:
        config.set("default", "base_url", "http://pay.example.invalid")
    assert caught.value.exit_code == ExitCode.USAGE
    assert config.profile("default") == {}
    stored = config.set("default", "base_url", "http://pay.example.invalid", cleartext_ok=True)
    assert stored == "http://pay.example.invalid"
    assert config.set("default", "auth_base", "http://[::1]:8402/auth") == "http://[::1]:8402/auth"


def test_a_hand_edited_file_with_both_keys_reads(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        '[profiles.default]\nallow_insecure_http = true\nbase_url = "http://pay.example.invalid"\n'
    )
    values = ConfigFile(path).profile("default")
    assert values["allow_insecure_http"] is True
