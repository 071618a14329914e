"""AppContext's explicit seams (issue 17.1): has_ledger()/with_overrides() replace the
`__dict__` pokes, and no module in src/svc reads or writes an instance's `__dict__`."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from svc.context import AppContext
from svc.settings import resolve
from svc.ui.output import Output

SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppContext:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("SVC_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("SVC_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("SVC_KEYRING", "file")
    # CI runners set CI=1, which (like SVC_NO_INPUT) forces no_input: the test needs a person
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("SVC_NO_INPUT", raising=False)
    settings = resolve(base_url="http://127.0.0.1:9", no_input=False, stdin_is_tty=True)
    return AppContext(settings, Output(stdout=io.StringIO(), stderr=io.StringIO()))


def test_with_overrides_shares_the_pool_but_never_the_ledger(app: AppContext) -> None:
    app.ledger
    child = app.with_overrides(no_input=True)
    assert child.settings.no_input and not app.settings.no_input
    assert child.http is app.http and child.tasks is app.tasks and child.secrets is app.secrets
    # each worker thread needs its own SQLite link
    assert not child.ledger_is_open()
    assert child.has_ledger()  # the parent created the file
    assert child.ledger is not app.ledger
    child.ledger.close()
    app.close()


def test_has_ledger_does_not_create_one(app: AppContext) -> None:
    assert not app.has_ledger()
    assert not app.ledger_is_open()
    app.close()  # nothing was built: nothing to close, nothing created
    assert not app.has_ledger()


def test_with_overrides_rejects_an_unknown_setting(app: AppContext) -> None:
    with pytest.raises(TypeError):
        app.with_overrides(no_such_setting=1)


def test_no_instance_dict_access_in_src() -> None:
    pattern = re.compile(r"\b__dict__\b")
    offenders = [
        f"{path.relative_to(SRC)}:{number}"
        for path in SRC.rglob("*.py")
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert offenders == []
