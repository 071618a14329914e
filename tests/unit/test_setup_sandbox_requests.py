"""The set-up, sandbox and discovery commands read their options from their requests
(svc.operations.setup, sandbox, discovery): what the shell alone adds (bounds, completion)
still reaches Typer, and a flag spelled otherwise than its route's field is turned back."""

from __future__ import annotations

from typing import Any

import typer
from typer import _click as click

from svc.cli.app import app
from svc.commands.sandbox.mint_id_jag import route_fields
from svc.operations.sandbox import SandboxMintIdJagRequest


def _params(path: str) -> dict[str, Any]:
    command: Any = typer.main.get_command(app)
    ctx = click.Context(command)
    for name in path.split():
        command = command.get_command(ctx, name)
    return {p.name: p for p in command.params}


def test_mint_id_jag_asks_the_route_in_its_own_names() -> None:
    asked = route_fields(SandboxMintIdJagRequest.model_construct(email="a@b.c", unverified=True))
    assert asked == {
        "email": "a@b.c",
        "issuer": "a",
        "aud": None,
        "email_verified": False,
        "exp_seconds": 300,
        "auth_age_seconds": 60,
        "typ": "oauth-id-jag+jwt",
        "bad_signature": False,
    }
    assert route_fields(SandboxMintIdJagRequest.model_construct(email="x"))["email_verified"]


def test_the_shells_own_checks_reach_typer() -> None:
    serve = _params("sandbox serve")
    assert (serve["port"].min, serve["port"].max) == (0, 65535)
    assert serve["clock_speed"].min == 0.01 and serve["quiet"].opts == ["--quiet", "-q"]
    assert (_params("mcp")["port"].min, _params("mcp")["port"].max) == (0, 65535)
    assert _params("api search")["page"].min == 1
    assert _params("sandbox mint-id-jag")["auth_age_seconds"].min == 0


def _completed(param: Any, incomplete: str) -> list[str]:
    return [item.value for item in param._custom_shell_complete(None, param, incomplete)]


def test_key_and_topic_complete_from_the_command_modules() -> None:
    for path in ("config get", "config set", "config unset"):
        assert "base_url" in _completed(_params(path)["key"], "base")
    assert _completed(_params("help")["topic"], "exit") == ["exit-codes"]
