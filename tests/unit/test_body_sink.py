"""A body written to a terminal (svc request): decoded as it comes and made inert; one cut
inside a character still shows where it ended."""

from __future__ import annotations

import io

from svc.ui.body import BodySink


def _on_a_terminal(chunks: list[bytes]) -> bytes:
    screen = io.BytesIO()
    BodySink(screen, terminal_text=True).body(chunks)
    return screen.getvalue()


def test_a_character_split_across_chunks_is_whole_on_the_screen() -> None:
    assert _on_a_terminal([b"caf\xc3", b"\xa9 ok"]).decode() == "café ok"


def test_a_body_that_ends_inside_a_character_shows_a_replacement_not_nothing() -> None:
    shown = _on_a_terminal([b"price: 5\xe2\x82"]).decode()  # a euro sign cut off
    assert shown.startswith("price: 5") and shown != "price: 5"


def test_escape_sequences_from_the_server_are_made_inert() -> None:
    assert b"\x1b" not in _on_a_terminal([b"\x1b]52;c;aGk=\x07 hi \x1b[2J"])
