"""Every setting is written once (issue 33.3): the settings table drives Settings and its
defaults, the config file's keys, `svc help environment`, the completion of `svc config KEY`
and the table of docs/guide/configuration.md. Each test names what a new row must not forget."""

from __future__ import annotations

import dataclasses

import pytest
from tools import settings_doc

from svc import rail_table
from svc import settings as settings_module
from svc.cli import help_topics
from svc.completion.table import TABLE
from svc.errors import UsageError
from svc.settings import PARSERS, Settings
from svc.settings_table import BY_KEY, FILE_KEYS, FLEET_KEYS, SETTINGS, Setting
from svc.store.config import KEYS


def test_every_row_is_a_typed_field_of_settings_with_its_default() -> None:
    fields = {f.name: f for f in dataclasses.fields(Settings)}
    fresh = Settings()
    for row in SETTINGS:
        assert row.key in fields, f"{row.key}: add the typed field to svc.settings.Settings"
        if row.default is not None:
            assert getattr(fresh, row.key) == settings_module.parse(row.key, row.default), row.key


def test_every_kind_has_its_one_parser_and_every_key_is_written_once() -> None:
    assert {row.kind for row in SETTINGS} <= set(PARSERS)
    assert len(BY_KEY) == len(SETTINGS)
    envs = [row.env for row in SETTINGS if row.env]
    assert len(envs) == len(set(envs))
    for row in SETTINGS:
        assert row.help and "\n" not in row.help, row.key
        assert not row.choices or row.default in (None, *row.choices), row.key


def test_the_config_file_takes_exactly_the_rows_that_may_live_there() -> None:
    assert tuple(KEYS) == FILE_KEYS == tuple(row.key for row in SETTINGS if row.in_file)
    assert "profile" not in KEYS  # a profile cannot name the profile it is read from
    assert FLEET_KEYS == ("daily_cap_usd",)


def test_help_environment_names_each_setting_its_flag_key_and_default() -> None:
    documented = dict(help_topics.ENVIRONMENT)
    for row in (row for row in SETTINGS if row.env):
        meaning = documented[str(row.env)]
        assert meaning.startswith(row.help), row.key
        assert (f"config {row.key}" in meaning) == row.in_file
        if row.flag:
            assert row.flag in meaning
        if row.default_words:
            assert f"default {row.default_words}" in meaning


def test_config_keys_complete_from_the_table() -> None:
    config = TABLE["commands"]["config"]["commands"]
    for command in ("get", "set", "unset"):
        assert config[command]["args"][0]["choices"] == list(FILE_KEYS), command


def test_the_configuration_pages_table_is_the_registry() -> None:
    page = settings_doc.PAGE.read_text(encoding="utf-8")
    assert settings_doc.current(page) == settings_doc.render(), (
        "docs/guide/configuration.md's settings table differs from svc/settings_table.py: "
        "run make docs"
    )


def test_a_page_that_lost_or_changed_a_row_is_caught() -> None:
    """The check compares the whole table: a row dropped or reworded by hand is stale."""
    table = settings_doc.render()
    dropped = "\n".join(line for line in table.splitlines() if "`runner`" not in line)
    reworded = table.replace("`1.50`", "`2.00`")
    for page in (dropped, reworded):
        assert settings_doc.current(f"intro\n{page}\nrest") != settings_doc.render()


def test_adding_a_row_reaches_every_face(monkeypatch: pytest.MonkeyPatch) -> None:
    """A new row (the way the lead folds another branch's setting in) reaches the page's table
    with no other change; `resolve` reads it by its kind's parser from the environment."""
    row = Setting("stop_after", "seconds", "stop after this long", env="SVC_STOP_AFTER")
    monkeypatch.setattr(settings_doc, "SETTINGS", (*SETTINGS, row))
    assert "| `stop_after` | `SVC_STOP_AFTER` |  | stop after this long |" in (
        settings_doc.render()
    )
    monkeypatch.setattr(settings_module, "SETTINGS", (*SETTINGS, row))
    monkeypatch.setitem(settings_module.BY_KEY, "stop_after", row)
    monkeypatch.setenv("SVC_STOP_AFTER", "2.5")
    resolved = settings_module.resolve(stdin_is_tty=False)
    assert resolved.stop_after == 2.5  # type: ignore[attr-defined]
    assert resolved.sources["stop_after"] == "env SVC_STOP_AFTER"


@pytest.mark.parametrize("key", ["max_price_usd", "mcp_preapproved_usd", "max_validity_seconds"])
def test_an_empty_limit_in_a_profile_is_refused_not_read_as_unset(key: str) -> None:
    """A limit left empty by a hand edit is a mistake to name, never the default or no limit."""
    with pytest.raises(UsageError) as refused:
        settings_module.resolve(profile_values={key: ""}, stdin_is_tty=False)
    assert refused.value.message.startswith(f"{key} (profile default) must be")


def test_an_empty_name_or_list_is_unset() -> None:
    resolved = settings_module.resolve(
        profile_values={"allowed_rails": [], "runner": "", "auth_base": ""}, stdin_is_tty=False
    )
    assert resolved.allowed_rails == Settings().allowed_rails and resolved.runner is None
    assert resolved.auth_base == resolved.base_url + "/auth"


def test_config_set_completes_the_values_a_key_takes() -> None:
    """`svc config set pay <TAB>` offers the rails, `notify <TAB>` true/false, a free-text key
    nothing (and a typo'd key nothing, rather than some other key's values)."""
    from svc.completion.complete import complete

    assert complete(["config", "set", "pay", ""])[0] == [(n, "") for n in rail_table.NAMES]
    assert complete(["config", "set", "notify", "t"])[0] == [("true", "")]
    assert complete(["config", "set", "email", ""])[0] == []
    assert complete(["config", "set", "payy", ""])[0] == []
