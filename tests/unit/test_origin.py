"""The origin gate's rules, one by one (svc.origin): shapes, origins, links for people."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from svc import origin
from svc.errors import ExitCode, UntrustedURLError, UsageError
from svc.origin import TrustedURL, configured, from_server, on_origin

BASE = configured("http://127.0.0.1:8402", "the base URL")


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        ("http://127.0.0.1:8402@evil.example/pay", "user name or password"),
        ("https://user:pw@evil.example/", "user name or password"),
        ("http://evil.example\\@127.0.0.1/", "U+005C"),
        ("http://127.0.0.1/\u202egnp.exe", "U+202E"),
        ("http://127.0.0.1/\u200b", "U+200B"),
        ("http://127.0.0.1/\u2028", "U+2028"),
        ("http://127.0.0.1/a b", "U+0020"),
        ("http://127.0.0.1/\x1b[31m", "U+001B"),
        ("http://127.0.0.1/\x00", "U+0000"),
        ("javascript:alert(1)", "not an http(s) URL"),
        ("file:///etc/passwd", "not an http(s) URL"),
        ("http:///path", "no valid host"),
        ("http://exa_mple.com/", "no valid host"),
        ("http://127.0.0.1:99999/", "invalid port"),
        ("http://[::1/", "invalid IPv6 host"),
        ("http://" + "ü" * 70 + ".example/", "not a valid name"),
        (42, "not a URL"),
        ("", "not a URL"),
        ("http://a.example/" + "a" * 9000, "longer than"),
    ],
)
def test_shapes_the_gate_refuses(raw: object, said: str) -> None:
    with pytest.raises(UntrustedURLError) as caught:
        on_origin(raw, BASE, "the link")
    assert said in caught.value.message
    assert caught.value.exit_code == ExitCode.UNAVAILABLE


def test_an_idn_host_is_kept_and_shown_in_ascii() -> None:
    url = from_server("https://Bücher.example/päth?q=1", BASE, "the link", lambda *_: True)
    assert str(url) == "https://xn--bcher-kva.example/päth?q=1"
    assert url.host == url.netloc == "xn--bcher-kva.example"


def test_one_server_is_one_origin_whatever_its_spelling() -> None:
    same = ["http://LOCALHOST:8402/", "http://localhost.:8402/x", "http://127.0.0.1:8402/a?b"]
    assert {on_origin(u, BASE, "u").origin for u in same} == {BASE.origin}
    for other in ("http://127.0.0.1:8403", "https://127.0.0.1:8402", "http://127.0.0.2:8402"):
        with pytest.raises(UntrustedURLError, match=r"not on 127\.0\.0\.1:8402"):
            on_origin(other, BASE, "u")


def test_ipv6_literals_keep_their_brackets_and_port() -> None:
    url = configured("http://[0:0::1]:8402/x", "u")
    assert url.netloc == "[::1]:8402" and url.origin == "http://[::1]:8402"


def test_a_foreign_link_asks_the_trust_question_with_both_hosts() -> None:
    asked: list[tuple[str, str, str]] = []

    def trusts(served_by: str, host: str, what: str) -> bool:
        asked.append((served_by, host, what))
        return False

    with pytest.raises(UntrustedURLError) as caught:
        from_server("https://pay.example:8443/p", BASE, "the card page", trusts)
    assert asked == [("http://127.0.0.1:8402", "pay.example:8443", "the card page")]
    assert "pay.example:8443, not on 127.0.0.1:8402" in caught.value.message
    assert caught.value.code == "foreign_link"
    assert from_server("https://pay.example/p", BASE, "p", lambda *_: True).host == "pay.example"


def test_only_the_gate_makes_a_trusted_url() -> None:
    with pytest.raises(TypeError):
        TrustedURL("http://evil.example", "http://evil.example:80", "evil.example", "e", None)


def test_what_is_built_on_a_trusted_url_stays_on_its_origin() -> None:
    assert str(BASE.join("/svc/tasks/task_1")) == "http://127.0.0.1:8402/svc/tasks/task_1"
    assert BASE.join("//evil.example/x").origin == BASE.origin  # a path, never a host
    with pytest.raises(UntrustedURLError):
        BASE.derive("http://evil.example/svc/tasks")


def test_a_setting_is_a_usage_error_that_never_echoes_a_password() -> None:
    with pytest.raises(UsageError) as caught:
        origin.setting("http://ana:hunter2@127.0.0.1:8402", "the base URL")
    assert "hunter2" not in caught.value.message and "setting" in caught.value.message
    assert origin.setting(" http://127.0.0.1:8402/ ", "the base URL") == "http://127.0.0.1:8402"


@given(st.text(max_size=80))
def test_whatever_a_server_sends_the_gate_answers_or_refuses_cleanly(text: str) -> None:
    for raw in (text, "http://" + text, "https://127.0.0.1:8402/" + text):
        try:
            url = from_server(raw, BASE, "the link", lambda *_: False)
        except UntrustedURLError:
            continue
        shown = str(url)
        assert "@" not in url.netloc and shown.isprintable() and " " not in shown
        assert url.origin == BASE.origin


def test_the_plain_ascii_shortcut_refuses_what_the_character_check_refuses() -> None:
    """`_plainly_safe` is an AND over characters (isascii, isprintable, no space, no
    backslash), so agreeing with `_unsafe_char` on every ASCII character proves it agrees on
    every ASCII string; anything else takes the character-by-character look."""
    from svc.origin import _plainly_safe, _unsafe_char

    for code in range(128):
        assert _plainly_safe(chr(code)) == (not _unsafe_char(chr(code))), code
    assert not _plainly_safe("https://example.com/é")  # not ASCII: looked at one by one
    for url in ("https://a.example/x\x7f", "https://a.example/ x", "https://a.example\\@b/"):
        with pytest.raises(UntrustedURLError, match="contains the character"):
            configured(url, "the link")


def test_a_remembered_loopback_answer_is_the_same_answer() -> None:
    for _ in range(2):  # the second time from the cache
        assert origin.is_loopback_host("127.0.0.1")
        assert origin.is_loopback_host("[::ffff:127.0.0.2]")
        assert not origin.is_loopback_host("10.0.0.1")
        assert not origin.is_loopback_host("127.0.0.1.nip.io")
