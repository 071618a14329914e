"""The engines the faces now call (issue 32.3), in-process against the sandbox: each returns
the data its command used to fetch or change itself, prints nothing, and names no flag (a face
adds the words that do)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.conftest import Sandbox
from tests.inproc import captured, isolate_home

from svc.context import AppContext
from svc.engines import config_edit, discovery, sandbox_admin, wallet
from svc.engines.mcp_token import TokenCheck
from svc.engines.quote_body import QuoteFieldError, quote_body
from svc.errors import UsageError

Captured = tuple[AppContext, io.StringIO, io.StringIO]  # the context, its stdout and stderr


@pytest.fixture
def app(sandbox: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Captured]:
    isolate_home(tmp_path, monkeypatch)
    context, out, err = captured(sandbox.url)
    yield context, out, err
    context.close()


def _silent(out: io.StringIO, err: io.StringIO) -> None:
    assert out.getvalue() == "" and err.getvalue() == "", "an engine printed"


def test_discovery_returns_the_documents_and_prints_nothing(app: Captured) -> None:
    context, out, err = app
    assert [s["slug"] for s in discovery.services(context)["services"]] == ["tasks"]
    assert discovery.manifest(context)["plans"][0]["rates"][0]["priceUsd"] == "1.500000"
    guide = discovery.llms_text(context, full=False)
    assert guide.url == context.settings.base_url + "/llms.txt"
    assert guide.text.startswith("# Task-execution service (sandbox)\n")
    doc, found = discovery.matching_operations(context, "/svc/tasks", "POST")
    assert [(verb, path) for verb, path, _ in found] == [("POST", "/svc/tasks")]
    assert "/svc/tasks" in doc["paths"]
    assert discovery.matching_operations(context, "/nowhere", None)[1] == []
    _silent(out, err)


def test_config_edit_writes_reads_and_refuses_in_its_own_words(app: Captured) -> None:
    context, out, err = app
    assert config_edit.set_value(context, "max_price_usd", "1.5") == "1.5"
    listing = config_edit.every_setting(context)
    assert listing["profiles"] == ["default"]
    assert {row["key"] for row in listing["settings"]} >= {"base_url", "max_price_usd"}
    assert config_edit.setting(context, "base_url")["value"] == context.settings.base_url
    config_edit.unset_value(context, "max_price_usd")
    with pytest.raises(UsageError, match="max_price_usd is not set in profile default"):
        config_edit.unset_value(context, "max_price_usd")
    with pytest.raises(UsageError, match="unknown config key 'max_prise_usd'"):
        config_edit.setting(context, "max_prise_usd")
    assert config_edit.shown("ledger_url", "postgresql://u:pw@db/x") == "postgresql://u:***@db/x"
    _silent(out, err)


def test_no_card_page_is_refused_without_a_hint_the_face_adds_it(app: Captured) -> None:
    context, out, err = app
    with pytest.raises(sandbox_admin.NoCardPageError) as refused:
        sandbox_admin.press_card_page(context, "req_nothing1", decline=False)
    assert refused.value.message == "no card payment page is waiting for request req_nothing1"
    assert refused.value.hint is None and refused.value.exit_code == 7
    _silent(out, err)


def test_wallet_keeps_one_key_unless_told_to_replace_it(app: Captured) -> None:
    context, out, err = app
    made = wallet.create(context, replace=False)
    assert made.address.startswith("0x") and wallet.stored_key(context).address == made.address
    with pytest.raises(wallet.KeyAlreadyStoredError) as refused:
        wallet.create(context, replace=False)
    assert "--force" not in refused.value.message
    assert wallet.create(context, replace=True).address != made.address
    _silent(out, err)


def test_a_quote_body_out_of_bounds_names_its_field_not_a_flag() -> None:
    assert quote_body({"goal": "g", "budgetUsd": None}) == {"goal": "g"}
    with pytest.raises(QuoteFieldError) as refused:
        quote_body({"goal": "g", "budgetUsd": "12.5.0"})
    assert refused.value.field == "budgetUsd" and refused.value.code == "validation_error"
    assert refused.value.problem.startswith("must be a USD amount like 12.50")
    assert refused.value.message.startswith("invalid quote: budgetUsd: ")


def test_the_token_check_reads_the_bearer_from_the_authorization_header() -> None:
    check = TokenCheck(lambda: "svcmcp_right")
    assert check.authorizes({"authorization": "Bearer svcmcp_right"})
    assert check.authorizes({"authorization": "bearer svcmcp_right"})
    assert not check.authorizes({"authorization": "Bearer svcmcp_wrong"})
    assert not check.authorizes({"authorization": "Basic svcmcp_right"})
    assert not check.authorizes({"authorization": "Bearer "})
    assert not check.authorizes({})
    assert not TokenCheck(lambda: None).authorizes({"authorization": "Bearer x"})
