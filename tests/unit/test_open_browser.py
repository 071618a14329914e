"""A browser is opened only where one shows a page beside the terminal: a display that Python's
webbrowser finds only a text browser for (lynx, w3m: a container's stray DISPLAY) opens none,
so nothing takes over the terminal the person reads the link on."""

from __future__ import annotations

import time
import webbrowser
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.person import fake_programs

from svc.origin import configured
from svc.ui.views import open_browser

LINK = configured("https://pay.example.com/checkout/pay_1", "base_url")


@pytest.fixture
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """webbrowser looks for browsers again, on the PATH the test sets."""
    monkeypatch.setattr(webbrowser, "_browsers", {})
    monkeypatch.setattr(webbrowser, "_tryorder", None)
    for name in ("BROWSER", "WAYLAND_DISPLAY", "SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DISPLAY", ":0")
    yield


def test_a_display_with_only_a_text_browser_opens_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_registry: None
) -> None:
    log = tmp_path / "calls.log"
    bin_dir = fake_programs(tmp_path, ("w3m", "lynx"), log)
    monkeypatch.setenv("PATH", str(bin_dir))
    assert open_browser(LINK) is False
    assert not log.exists()


def test_a_display_with_a_desktop_opener_opens_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_registry: None
) -> None:
    log = tmp_path / "calls.log"
    bin_dir = fake_programs(tmp_path, ("xdg-open", "w3m"), log)
    monkeypatch.setenv("PATH", str(bin_dir))
    open_browser(LINK)  # True while the opener still runs: this fake is done at once
    for _ in range(200):  # xdg-open runs in the background
        if log.exists() and "---" in log.read_text():
            break
        time.sleep(0.05)
    assert log.read_text().splitlines()[:2] == [str(bin_dir / "xdg-open"), str(LINK)]


def test_browser_named_by_the_person_is_theirs_even_a_text_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_registry: None
) -> None:
    log = tmp_path / "calls.log"
    bin_dir = fake_programs(tmp_path, ("w3m",), log)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("BROWSER", "w3m")
    assert open_browser(LINK) is True
    assert log.read_text().splitlines()[:2] == [str(bin_dir / "w3m"), str(LINK)]
