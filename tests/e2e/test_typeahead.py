"""A yes that spends money is never answered by what was typed before its question showed
(a pty, as a person types): an Enter or `y` meant for something earlier is dropped."""

from __future__ import annotations

import pytest
from tests.conftest import Cli, Sandbox, unique_email
from tests.person import finish, spawn_person

pytestmark = pytest.mark.e2e


def test_typeahead_does_not_answer_submit_and_pay_again(cli: Cli, sandbox: Sandbox) -> None:
    email = unique_email()
    cli.ok("submit", "Typed ahead #complete", "--email", email)
    books = len(sandbox.books()["charges"])
    child = spawn_person(cli, "submit", "Typed ahead #complete", "--email", email)
    child.send("y\r")  # typed before the question exists: svc is still starting
    child.expect(r"Submit and pay again\? \(y/N\): ")
    child.send("n\r")  # the answer given to the question itself
    child.expect("not submitted")
    assert finish(child) == 2
    assert len(sandbox.books()["charges"]) == books  # nothing paid a second time
