"""Output flags on every command (issue 22.2): a command with a JSON form shapes it with
`--jq` alone (no `--json` needed); one without refuses the flag (exit 2), never ignores it.

The command table is walked, so a new command must be put in one of the two lists below.
"""

from __future__ import annotations

from typing import Any

import pytest
import typer
from tests.conftest import Cli, Sandbox, unique_email
from typer._click import Context

from svc.cli.app import NO_JSON_FORM, app

pytestmark = pytest.mark.e2e

# Every leaf command with a JSON form, with arguments that run it here ("{task}": a real task).
JSON_FORM: dict[str, list[str]] = {
    "submit": ["submit", "Shape me #complete", "--email", "{email}"],
    "poll": ["poll", "{task}"],
    "request": [],  # pays the sandbox's echo: tests/e2e/test_request.py shapes its answer
    "watch": ["watch", "{task}"],
    "reply": [],  # shaped like poll's answer: tests/e2e/test_output_flags.py
    "tasks": ["tasks"],
    "tasks forget": [],  # removes rows: tests/e2e/test_scripts.py shapes its answer
    "tasks prune": ["tasks", "prune", "--gone"],
    "services": ["services"],
    "spend": ["spend"],
    "receipt": ["receipt", "{task}"],
    "pay card": [],  # a card submit first: tests/e2e/test_paid_output.py shapes its answer
    "wallet create": [],  # would replace the test wallet
    "wallet import": [],  # idem
    "wallet address": ["wallet", "address"],
    "wallet list": ["wallet", "list"],
    "budget": ["budget"],
    "budget set": [],  # the paying rows would meet it: tests/e2e/test_budgets.py shapes it
    "budget unset": [],  # needs a budget set first: idem
    "budget reset-breaker": ["budget", "reset-breaker"],
    "identity register": ["identity", "register", "--anonymous"],
    "identity claim": [],  # needs a registered credential pending a claim
    "identity refresh": [],  # idem, with a refresh token
    "identity status": ["identity", "status"],
    "identity logout": [],  # forgets the credential other rows use
    "entitlements": [],  # needs a credential: tests/e2e/test_identity.py
    "quote": ["quote", "Book a table"],
    "guide": ["guide", "Book a table"],
    "api search": ["api", "search", "--all"],
    "api get": ["api", "get", "/svc/tasks"],
    "services show": ["services", "show", "tasks"],
    "manifest": ["manifest"],
    "llms": ["llms"],
    "config path": ["config", "path"],
    "config set": ["config", "set", "notify", "false"],
    "config get": ["config", "get", "base_url"],
    "config unset": ["config", "unset", "notify"],
    "config list": ["config", "list"],
    "doctor": ["doctor"],
    "sandbox mint-id-jag": ["sandbox", "mint-id-jag", "--email", "{email}"],
    "sandbox tags": ["sandbox", "tags"],
    "sandbox approve": [],  # needs an #approval task at its ask
    "sandbox pay-card": [],  # needs a card submit: tests/e2e/test_small_fixes.py
    "sandbox claim-code": [],  # needs a pending claim link
    "completion install": [],  # writes into the home's shell directories
    "help": ["help", "exit-codes"],
}


def leaf_commands() -> list[str]:
    root = typer.main.get_command(app)
    found: list[str] = []

    def walk(command: Any, ctx: Context, path: list[str]) -> None:
        names = command.list_commands(ctx) if hasattr(command, "list_commands") else []
        # A group whose own callback runs (`svc tasks`, `svc services`) is a command too.
        if not names or (path and getattr(command, "invoke_without_command", False)):
            found.append(" ".join(path))
        for name in names:
            sub = command.get_command(ctx, name)
            walk(sub, Context(sub, parent=ctx), [*path, name])

    walk(root, Context(root), [])
    return found


def test_every_command_is_classified() -> None:
    no_form = {" ".join(path) for path in NO_JSON_FORM}
    assert set(leaf_commands()) == set(JSON_FORM) | no_form
    assert not set(JSON_FORM) & no_form


@pytest.mark.parametrize("command", [" ".join(p) for p in NO_JSON_FORM])
@pytest.mark.parametrize("flag", [["--jq", "."], ["--json"], ["--template", "x"]])
def test_a_command_without_a_json_form_refuses_output_flags(
    bare_cli: Cli, command: str, flag: list[str]
) -> None:
    args = [*command.split(), *(["bash"] if command == "completion show" else []), *flag]
    result = bare_cli(*args)
    assert result.returncode == 2, result.stderr
    assert f"svc {command} has no JSON form" in result.stderr.splitlines()[0]


@pytest.mark.parametrize("command", [c for c, args in JSON_FORM.items() if args])
def test_jq_alone_shapes_every_json_form(cli: Cli, sandbox: Sandbox, command: str) -> None:
    task = cli.ok("submit", "Done #complete", "--email", unique_email()).json()["id"]
    sandbox.advance(25)
    fill = {"{task}": task, "{email}": unique_email()}
    args = [fill.get(arg, arg) for arg in JSON_FORM[command]]
    if command == "config unset":
        cli.ok("config", "set", "notify", "false")
    result = cli(*args, "--jq", "type")
    assert result.stdout.strip().splitlines()[-1] in ('"object"', "object", "array"), (
        command,
        result.returncode,
        result.stdout[-500:],
        result.stderr[-500:],
    )
