"""A command's options read from its request model (svc.cli.options): spellings, short forms,
hidden flags, the CLI's own hooks, and pydantic's metadata kept away from Typer."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
import typer
from pydantic import Field
from typer.testing import CliRunner

from svc.cli.options import plain, with_options_of
from svc.operations.fields import Flag, NotIn, Positional, Rail, Request, SecretInput


class Sample(Request):
    name: Annotated[str, Positional("NAME", help="Whom.")]
    email: Annotated[str | None, Flag("--email", "EMAIL", short="-e")] = Field(
        None, min_length=3, description="An address."
    )
    pay: Rail | None = Field(None, description="A rail.")
    notify: Annotated[bool, Flag("--notify/--no-notify")] = True
    secret_switch: Annotated[bool, Flag("--old", hidden=True)] = False
    program_only: Annotated[int, NotIn(("cli",))] = 3


def _app(hooks: dict[str, dict[str, Any]] | None = None) -> tuple[typer.Typer, list[Any]]:
    seen: list[Any] = []
    app = typer.Typer(rich_markup_mode=None)

    def command(**given: Any) -> None:
        seen.append(given)

    app.command()(with_options_of(Sample, command, hooks))
    return app, seen


def test_the_request_is_the_commands_signature() -> None:
    app, seen = _app()
    result = CliRunner().invoke(app, ["ana", "-e", "a@b.c", "--pay", "mpp", "--no-notify"])
    assert result.exit_code == 0, result.output
    assert seen == [
        {"name": "ana", "email": "a@b.c", "pay": "mpp", "notify": False, "secret_switch": False}
    ]


def test_help_shows_spellings_and_hides_the_hidden() -> None:
    app, _ = _app()
    text = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "120"}).output
    assert "-e" in text and "EMAIL" in text and "--notify" in text and "--no-notify" in text
    assert "--old" not in text and "program" not in text and "Whom." in text


def test_hooks_reach_typer_and_a_hook_for_no_field_is_refused() -> None:
    calls: list[str] = []

    def check(value: str | None) -> str | None:
        calls.append(str(value))
        return value

    app, _ = _app({"email": {"callback": check}})
    CliRunner().invoke(app, ["ana", "--email", "x@y.z"])
    assert calls == ["x@y.z"]
    with pytest.raises(TypeError, match="nothing"):
        _app({"nothing": {}})
    with pytest.raises(TypeError, match="program_only"):  # a field the CLI does not offer
        _app({"program_only": {"min": 0}})


class WithASecret(Request):
    code: Annotated[str | None, SecretInput()] = None


def test_a_secret_field_is_never_a_cli_option() -> None:
    def command(**given: Any) -> None:
        pass

    with pytest.raises(TypeError, match="secret fields as CLI options: \\['code'\\]"):
        with_options_of(WithASecret, command)


def test_plain_strips_pydantic_metadata_inside_unions() -> None:
    assert plain(Annotated[str, Field(min_length=1)] | None) == str | None
    assert plain(Annotated[int, "x"]) is int
    assert plain(list[str] | None) == list[str] | None
