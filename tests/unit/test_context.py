"""AppContext's explicit seams (issue 17.1): has_ledger()/with_overrides() replace the
`__dict__` pokes, and no module in src/svc reads or writes an instance's `__dict__`."""

from __future__ import annotations

import io
import re
from dataclasses import replace
from pathlib import Path

import pytest

from svc.context import AppContext, FacePrompts
from svc.report import LogReporter
from svc.settings import resolve
from svc.store.ledger import ledger_path
from svc.ui.face import face_context
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


def test_has_ledger_looks_where_the_ledger_is_opened(app: AppContext) -> None:
    """has_ledger() names the file without importing the ledger package: the very file the
    ledger opens, or a poll would stop keeping the cache (or keep one nobody reads)."""
    fresh = AppContext(app.settings, app.report)
    path = ledger_path()
    assert not path.exists() and not fresh.has_ledger()
    app.ledger  # opened, so created
    app.close()
    assert path.exists() and fresh.has_ledger()  # seen by a context that opened nothing
    assert not fresh.ledger_is_open()


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


# --- the face's prompts (issue 32): callbacks, never a terminal of the context's own ---------


def _with_prompts(app: AppContext, prompts: FacePrompts, *, no_input: bool = False) -> AppContext:
    return AppContext(replace(app.settings, no_input=no_input), LogReporter(), prompts=prompts)


def test_a_link_host_is_asked_once_through_the_face_and_pinned(app: AppContext) -> None:
    asked: list[tuple[str, str, str]] = []

    def confirm(served_by: str, host: str, what: str) -> bool:
        asked.append((served_by, host, what))
        return True

    face = _with_prompts(app, FacePrompts(confirm_link_host=confirm))
    origin = "http://127.0.0.1:9"
    assert face.trusts_link_host(origin, "pay.example.com", "the card page")
    assert asked == [("127.0.0.1:9", "pay.example.com", "the card page")]
    # pinned in the ledger: a second context (a new process) does not ask again
    later = _with_prompts(app, FacePrompts(confirm_link_host=confirm))
    assert later.trusts_link_host(origin, "pay.example.com", "the card page")
    assert len(asked) == 1
    assert later.trusts_link_host(origin, "other.example.com", "x")  # another host: asked
    assert len(asked) == 2
    face.close()
    later.close()


def test_without_a_prompt_or_with_no_input_nobody_is_asked_and_the_answer_is_no(
    app: AppContext,
) -> None:
    def never(*args: str) -> bool:
        raise AssertionError("asked with --no-input")

    library = _with_prompts(app, FacePrompts())  # a face with no person at hand
    assert not library.trusts_link_host("http://127.0.0.1:9", "pay.example.com", "page")
    unattended = _with_prompts(app, FacePrompts(never, never), no_input=True)
    assert not unattended.trusts_link_host("http://127.0.0.1:9", "pay.example.com", "page")
    assert not library.has_ledger()  # asking created no ledger
    policy = unattended.policy()
    assert policy.confirm_new_recipient is not None
    assert not policy.confirm_new_recipient("0xold", "0xnew")
    trusting = unattended.policy(trust_recipient=True).confirm_new_recipient
    assert trusting is not None and trusting("0xold", "0xnew")  # the batch's, the flag's


def test_the_engines_reporter_is_the_faces_output(app: AppContext) -> None:
    err = io.StringIO()
    face = face_context(app.settings, Output(stdout=io.StringIO(), stderr=err))
    assert face.report is face.output
    face.report.warn("the ledger is read-only")
    assert err.getvalue() == "warning: the ledger is read-only\n"


def test_a_library_hears_the_engines_through_logging(caplog: pytest.LogCaptureFixture) -> None:
    reporter = LogReporter()
    with caplog.at_level("DEBUG", logger="svc"):
        reporter.note("paying 1.50 USD with x402")
        reporter.warn("the ledger is read-only")
        reporter.progress("waiting for the card payment").done("card payment complete")
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        ("DEBUG", "paying 1.50 USD with x402"),
        ("WARNING", "the ledger is read-only"),
        ("DEBUG", "waiting for the card payment"),
        ("INFO", "card payment complete"),
    ]
