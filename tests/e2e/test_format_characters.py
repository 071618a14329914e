"""An invisible character in a server's words is visible on the terminal (issue 30.16).

The issue's case: an MPP challenge whose realm is `shop\\u200b.example` (a zero-width space)
was named in the paying note as `shop.example`. Format characters (Unicode category Cf) are
now shown escaped as the controls are; every other command is swept by
tests/e2e/test_hostile_sweep.py, whose server puts them in every string.
"""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from tests.conftest import SVC, _base_env
from tests.hostile_peer import mpp_challenge
from tests.inproc import task_doc
from tests.loopback import Loopback, send

pytestmark = pytest.mark.e2e

REALM = "shop\u200b.example"


def test_a_zero_width_space_in_an_mpp_realm_is_shown(tmp_path: Path) -> None:
    import subprocess

    def answer(handler: BaseHTTPRequestHandler) -> None:
        if handler.headers.get("authorization", "").startswith("Payment "):
            send(handler, json.dumps(task_doc(id="task_zw", state="pending")).encode(), status=202)
            return
        # HTTP header values are bytes: the realm goes as UTF-8, which svc reads back as such.
        realm = REALM.encode("utf-8").decode("latin-1")
        send(
            handler,
            b'{"error": "payment_required"}',
            status=402,
            headers={"WWW-Authenticate": mpp_challenge(realm)},
        )

    home = tmp_path / "home"
    home.mkdir()
    with Loopback(answer) as server:
        env = {**_base_env(home), "SVC_BASE_URL": server.url, "SVC_SPT": "spt_test_zw"}
        proc = subprocess.run(
            [SVC, "submit", "t", "--email", "a@b.co", "--pay", "mpp"],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )
    assert proc.returncode == 0, proc.stderr
    assert "with MPP (stripe) to shop\N{REPLACEMENT CHARACTER}.example" in proc.stderr, proc.stderr
    assert "\u200b" not in proc.stderr
