"""One rule for "is this field a secret?" (svc.replies.is_secret), read by every face: the
terminal's form hides it, the reply engine marks it sensitive, `svc mcp` asks the person for it,
and the library types it as a SecretAsk. A second copy of the rule is what let the faces drift
(the terminal hid a field only when the service flagged it)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from svc.replies import is_secret

SRC = Path(__file__).resolve().parents[2] / "src" / "svc"


@pytest.mark.parametrize(
    ("name", "marked", "secret"),
    [
        ("sms_code", None, True),  # the name decides without a flag
        ("nickname", True, True),  # the service's flag decides without the name
        ("nickname", "yes", False),  # only a true flag: the spec's boolean
        ("nickname", 1, False),
        ("nickname", None, False),
        (None, True, True),
        (None, None, False),
        (42, None, False),
    ],
)
def test_the_rule(name: object, marked: object, secret: bool) -> None:
    assert is_secret(name, marked) is secret


def test_no_face_decides_on_its_own() -> None:
    """Only svc/replies.py reads a `sensitive` flag of an ask or matches secret-looking names;
    a face that needs the answer calls is_secret."""
    deciding = re.compile(
        r"""(plain|payload|ask)\.get\(["']sensitive["']\)|_SECRET_NAME|looks_secret"""
    )
    found = [
        str(path.relative_to(SRC))
        for path in SRC.rglob("*.py")
        if path.name != "replies.py" and deciding.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []
