"""Format characters (Unicode category Cf) in server text are shown escaped (issue 30.16).

A zero-width space, a word joiner or a bidi override draws nothing, so `shop\u200b.example`
looked like `shop.example` on the terminal. They become U+FFFD as the controls already do;
the joiners that Persian, Indic scripts and emoji sequences are written with stay when they
sit between two such characters (a spoof needs them next to ASCII, or alone).
"""

from __future__ import annotations

import sys
import unicodedata

import pytest

from svc.sanitize import clean

MARK = "\N{REPLACEMENT CHARACTER}"


def every_format_character() -> list[str]:
    return [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"]


def test_every_format_character_is_escaped_next_to_ascii() -> None:
    shown = [c for c in every_format_character() if clean(f"a{c}b") != f"a{MARK}b"]
    assert not shown, [f"U+{ord(c):04X}" for c in shown]


@pytest.mark.parametrize(
    "raw",
    ["shop\u200b.example", "shop\u2060.example", "\ufeffshop.example", "shop\u00ad.example"],
)
def test_an_invisible_character_in_a_realm_is_visible(raw: str) -> None:
    assert clean(raw, single_line=True) != "shop.example"
    assert MARK in clean(raw, single_line=True)


@pytest.mark.parametrize(
    "text",
    [
        "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",  # Persian: ZWNJ inside a word
        "\u0915\u094d\u200d\u0937",  # Devanagari: ZWJ in a conjunct
        "\U0001f468\u200d\U0001f469\u200d\U0001f467",  # an emoji family (ZWJ sequence)
    ],
)
def test_joiners_inside_a_script_are_kept(text: str) -> None:
    assert clean(text) == text


def test_a_joiner_next_to_ascii_or_alone_is_escaped() -> None:
    assert clean("pay\u200dpal") == f"pay{MARK}pal"
    assert clean("\u200c") == MARK
    assert clean("\u0645\u200c.example") == f"\u0645{MARK}.example"


def test_json_output_escapes_them_and_stays_the_same_value() -> None:
    import json

    from svc.ui.output import json_inert

    doc = {"realm": "shop\u200b.example", "tag": "\U000e0041", "bidi": "\u202ex", "fa": "\u200c"}
    text = json_inert(json.dumps(doc, ensure_ascii=False))
    assert json.loads(text) == doc
    assert not any(c in text for c in every_format_character())
    assert "\\udb40\\udc41" in text  # beyond the BMP: JSON's surrogate pair
