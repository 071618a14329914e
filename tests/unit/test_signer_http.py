"""The remote signer's one POST (api/signer_http.py) against hostile peers on loopback: every
answer is bounded as a whole by the signer's timeout, however its bytes arrive."""

from __future__ import annotations

import time
from http.server import BaseHTTPRequestHandler

import pytest
from tests.loopback import Answer, Loopback, send, trickle

from svc.api.signer_http import SignerHttpError, post_json

TIMEOUT = 1.0


def refused(answer: Answer, *, limit: int = 1 << 16) -> SignerHttpError:
    with Loopback(answer) as server, pytest.raises(SignerHttpError) as failed:
        post_json(server.url + "/rpc", b"{}", None, TIMEOUT, limit)
    return failed.value


@pytest.mark.parametrize("in_headers", [True, False], ids=["status line", "body"])
def test_a_trickled_answer_is_cut_at_the_timeout(in_headers: bool) -> None:
    """One byte every 0.2 s never trips a read timeout of 1 s: only a whole-answer bound ends
    it (before, trickled headers were bounded by nothing and a body only between chunks)."""
    server: Loopback

    def answer(handler: BaseHTTPRequestHandler) -> None:
        trickle(server, handler, in_headers=in_headers, gap=0.2)

    with Loopback(answer) as server:
        started = time.monotonic()
        with pytest.raises(SignerHttpError) as failed:
            post_json(server.url + "/rpc", b"{}", None, TIMEOUT, 1 << 16)
        elapsed = time.monotonic() - started
    assert failed.value.kind == "timeout", failed.value.detail
    assert f"within {TIMEOUT:g} s" in failed.value.detail
    assert TIMEOUT <= elapsed < TIMEOUT + 5, elapsed  # the trickle alone would last a minute


def test_a_prompt_answer_within_the_bound_is_read_whole() -> None:
    def answer(handler: BaseHTTPRequestHandler) -> None:
        time.sleep(0.3)
        send(handler, b'{"jsonrpc": "2.0", "id": 1, "result": "0x"}')

    with Loopback(answer) as server:
        data = post_json(server.url + "/rpc", b"{}", None, TIMEOUT, 1 << 16)
    assert data == b'{"jsonrpc": "2.0", "id": 1, "result": "0x"}'


def test_an_answer_over_the_limit_is_refused() -> None:
    def answer(handler: BaseHTTPRequestHandler) -> None:
        send(handler, b" " * 5000)

    error = refused(answer, limit=4096)
    assert error.kind == "too_large"


def test_a_refused_connection_is_unreachable() -> None:
    with Loopback(lambda handler: None) as server:
        url = server.url
    with pytest.raises(SignerHttpError) as failed:
        post_json(url + "/rpc", b"{}", None, TIMEOUT, 1 << 16)
    assert failed.value.kind == "unreachable"
