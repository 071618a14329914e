"""The global options are declared once (issue 17.2): Typer's root and commands, the poll fast
path and the completion table all come from `svc.cli.globals.GLOBALS`; and the `--json FIELDS`
rule never swallows a command name, an id or a task text."""

from __future__ import annotations

import re

import pytest
from tests.unit.test_ledger_rows_for_people import row

from svc.api.models import TaskDetail
from svc.cli.globals import (
    GLOBALS,
    LEDGER_ROW_FIELDS,
    SPEND_FIELDS,
    TASK_FIELDS,
    lone_json_field,
    split_json_fields,
)
from svc.completion.table import TABLE
from svc.store.spend import load_spend

COMMANDS = frozenset({"poll", "tasks", "submit"})


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--json", "poll", "task_1"], ["--json", "poll", "task_1"]),
        (["poll", "--json", "task_abc123"], ["poll", "--json", "task_abc123"]),
        (["poll", "--json", "id,state", "t"], ["poll", "--json", "--json-fields", "id,state", "t"]),
        (["tasks", "--json=id"], ["tasks", "--json", "--json-fields", "id"]),
        (["submit", "--json", "milk, eggs"], ["submit", "--json", "milk, eggs"]),
        (["--json", "poll,tasks"], ["--json", "--json-fields", "poll,tasks"]),
        (["--json", "tasks"], ["--json", "tasks"]),
        (["submit", "--", "--json", "a,b"], ["submit", "--", "--json", "a,b"]),
    ],
)
def test_json_fields_are_split_only_when_unambiguous(argv: list[str], expected: list[str]) -> None:
    assert split_json_fields(argv, COMMANDS) == expected


def test_the_completion_table_offers_every_visible_global() -> None:
    offered = {name for option in TABLE["globals"] for name in option["names"]}
    declared = {flag for option in GLOBALS if not option.hidden for flag in option.flags}
    assert declared <= offered
    assert "--json-fields" not in offered  # hidden: only `--json=F` spells it


def test_the_field_tables_of_the_json_hint_are_the_outputs_fields() -> None:
    """`--json state` gets `hint: one field needs '='` from these tables (issue 30.3): they
    must name what the outputs really carry."""
    assert set(TaskDetail.model_fields) == TASK_FIELDS
    assert set(row("journaled").public_dict()) | {"refresh_error"} == LEDGER_ROW_FIELDS
    assert set(load_spend(None, None)) == SPEND_FIELDS


@pytest.mark.parametrize(
    ("argv", "command", "field"),
    [
        (["poll", "task_1", "--json", "state"], "poll", "state"),
        (["--json", "state", "poll", "task_1"], "poll", "state"),
        (["poll", "--json=state", "task_1"], "poll", None),
        (["poll", "--json", "task_1"], "poll", None),
        (["tasks", "--json", "state"], "tasks", "state"),
        (["quote", "--json", "state"], "quote", None),
    ],
)
def test_a_lone_json_field_is_found_only_where_it_is_one(
    argv: list[str], command: str, field: str | None
) -> None:
    assert lone_json_field(argv, command) == field


@pytest.mark.parametrize(
    ("path", "hidden", "shown"),
    [
        (
            ["sandbox", "serve"],
            ("--json", "--jq", "--template", "--base-url", "--auth-base", "--no-pager"),
            ("--host", "--port", "--quiet"),
        ),
        (["mcp"], ("--json", "--jq", "--template", "--no-pager"), ("--profile", "--base-url")),
        (["poll"], (), ("--json", "--jq", "--template", "--base-url", "--auth-base")),
    ],
)
def test_help_lists_only_the_globals_a_command_honours(
    path: list[str], hidden: tuple[str, ...], shown: tuple[str, ...]
) -> None:
    """Issue 30.13: `svc sandbox serve --help` and `svc mcp --help` listed output flags they
    refuse and base URLs they ignore."""
    from click.testing import CliRunner
    from typer.main import get_command

    from svc.cli.app import app

    result = CliRunner().invoke(get_command(app), [*path, "--help"], prog_name="svc")
    assert result.exit_code == 0, result.output
    listed = set(re.findall(r"(?<![\w-])--?[a-z][\w-]*", result.output))
    assert not listed & set(hidden), listed & set(hidden)
    assert set(shown) <= listed
