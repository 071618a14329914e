"""One duplicate rule for every face (engines.submit.refuse_duplicate): the same task and
e-mail within the window is refused in a script and CI as in the library and `svc mcp`, unless
the caller says so (`--allow-duplicate`, `allow_duplicate=True`, a given request id); on a
terminal the person is asked. The refusal names each face's way around it."""

from __future__ import annotations

import uuid
from pathlib import Path

import pexpect
import pytest
from tests.conftest import SVC, Cli, Sandbox, unique_email
from tests.inproc import library_home

import svc

pytestmark = pytest.mark.e2e


def test_a_script_is_refused_a_second_payment_unless_it_allows_one(
    cli: Cli, sandbox: Sandbox
) -> None:
    task, email = f"Renew my books {uuid.uuid4().hex[:6]}", unique_email()
    first = cli.ok("submit", task, "--email", email).json()
    again = cli("submit", task, "--email", email, "--json")
    assert again.returncode == 2, again.stderr
    doc = again.json()
    assert doc["error"] == "duplicate_submission"
    assert doc["next"] == {
        "action": "allow_duplicate",
        "request_id": doc["next"]["request_id"],
        "task_id": first["id"],
    }
    assert f"svc watch {first['id']}" in doc["hint"] and "--allow-duplicate" in doc["hint"]
    assert len(sandbox.books()["charges"]) >= 1
    paid = cli("submit", task, "--email", email, "--allow-duplicate", "--json")
    assert paid.returncode == 0, paid.stderr
    assert paid.json()["id"] != first["id"]


def test_on_a_terminal_the_person_is_asked(cli: Cli, sandbox: Sandbox) -> None:
    task, email = f"Renew my books {uuid.uuid4().hex[:6]}", unique_email()
    cli.ok("submit", task, "--email", email)
    env = {k: v for k, v in cli.env.items() if k != "CI"}
    asked = pexpect.spawn(
        SVC, ["submit", task, "--email", email], env=env, encoding="utf-8", timeout=30
    )
    asked.expect("Submit and pay again")
    asked.sendline("n")
    asked.expect(pexpect.EOF)
    asked.close()
    assert asked.exitstatus == 2
    assert "--allow-duplicate" in (asked.before or "")


def test_the_library_says_its_argument_in_str_of_the_error(
    cli: Cli, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    library_home(cli.home, sandbox.url, monkeypatch)
    task, email = f"Renew my books {uuid.uuid4().hex[:6]}", unique_email()
    with svc.Client() as client:
        first = client.submit(task, email)
        with pytest.raises(svc.UsageError) as caught:
            client.submit(task, email)
        assert caught.value.code == "duplicate_submission"
        assert f"watch({first.id!r})" in str(caught.value)
        assert "allow_duplicate=True" in str(caught.value)
        assert client.submit(task, email, allow_duplicate=True).id != first.id


@pytest.mark.parametrize(
    "amount", [1.5, 2, True, float("nan")], ids=["float", "int", "bool", "nan"]
)
def test_the_library_takes_no_float_or_int_for_money(
    cli: Cli, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, amount: object
) -> None:
    library_home(cli.home, sandbox.url, monkeypatch)
    before = len(sandbox.books()["charges"])
    with pytest.raises(TypeError, match="max_price must be a Decimal or a str"):
        svc.Client(max_price=amount)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="daily_cap must be a Decimal or a str"):
        svc.Client(daily_cap=amount)  # type: ignore[arg-type]
    with svc.Client() as client, pytest.raises(TypeError):
        client.submit("Renew my books", unique_email(), max_price=amount)  # type: ignore[call-overload]
    assert len(sandbox.books()["charges"]) == before


def test_a_decimal_nan_cap_is_a_usage_error(
    cli: Cli, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    from decimal import Decimal

    library_home(cli.home, sandbox.url, monkeypatch)
    with pytest.raises(svc.UsageError):
        svc.Client(max_price=Decimal("NaN"))


def test_a_cap_with_spaces_is_exit_2(cli: Cli, sandbox: Sandbox, tmp_path: Path) -> None:
    refused = cli("submit", "Renew my books", "--email", unique_email(), "--max-price", "1.00 ")
    assert refused.returncode == 2, refused.stderr
    assert "--max-price must be" in refused.stderr
