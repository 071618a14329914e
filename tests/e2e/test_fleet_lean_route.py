"""Which client a paid submit on the fleet ledger takes, seen from outside (issue 34): on a
local socket the lean one, and psycopg is never imported (`-X importtime` lists every import
of the process); with a libpq setting the lean client does not read (here PGSSLMODE), psycopg,
and the submit is paid the same, once."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import Cli, Sandbox, unique_email, unique_request_id
from tests.e2e.test_fast_start import loaded
from tests.e2e.test_fleet import runner_env

pytestmark = pytest.mark.e2e


def _imports_of_a_paid_submit(
    cli: Cli, sandbox: Sandbox, pg_url: str, tmp_path: Path, extra: dict[str, str]
) -> set[str]:
    env = runner_env(cli, tmp_path, "runner-r", pg_url, sandbox) | extra
    rid = unique_request_id()
    argv = ["submit", "Routed", "--email", unique_email(), "--request-id", rid, "--json"]
    imported, _ = loaded(["-m", "svc", *argv], env, timeout=120)
    assert len(sandbox.charges_for(rid)) == 1  # paid, once
    return imported


def test_a_paid_submit_on_a_local_socket_never_imports_psycopg(
    cli: Cli, sandbox: Sandbox, pg_url: str, tmp_path: Path
) -> None:
    imported = _imports_of_a_paid_submit(cli, sandbox, pg_url, tmp_path, {})
    assert "svc.store.ledger.pg_conn" in imported  # the fleet ledger was opened
    assert not [name for name in imported if name.startswith("psycopg")]


def test_a_libpq_setting_sends_the_same_submit_through_psycopg(
    cli: Cli, sandbox: Sandbox, pg_url: str, tmp_path: Path
) -> None:
    imported = _imports_of_a_paid_submit(cli, sandbox, pg_url, tmp_path, {"PGSSLMODE": "disable"})
    assert "psycopg" in imported
