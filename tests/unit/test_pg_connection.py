"""The fleet ledger's connection (psycopg's), where the ledger answers for it: a password the
server asks for, or one libpq finds in ~/.pgpass, as docs/guide/fleet.md promises; a wrong
password and a server that never answers are the contract's exit 9 ("nothing paid"), within
the connect timeout and without the password; and a kept connection reads on once another runner's
migration changed a table under a statement psycopg keeps prepared."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.pg_cluster import Cluster
from tests.pg_cluster import start as start_cluster

from svc.errors import LedgerUnavailableError
from svc.store.ledger import postgres
from svc.store.ledger.pg_api import PgConnection, PgError
from svc.store.ledger.pg_psycopg import PLAN_CHANGED

ROLES = {"svc_scram": "scram-sha-256", "svc_md5": "md5", "svc_clear": "password"}
PASSWORD = "pw-1-ok"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """A throw-away cluster of its own whose pg_hba.conf asks each role for its password."""
    import psycopg

    made = start_cluster()
    try:
        with psycopg.connect(made.url(), autocommit=True) as admin:
            for role, method in ROLES.items():
                stored = "md5" if method == "md5" else "scram-sha-256"
                admin.execute(f"SET password_encryption = '{stored}'")
                admin.execute(f"CREATE ROLE {role} LOGIN PASSWORD '{PASSWORD}'")
        lines = [f"local all {made.user} trust"]
        lines += [f"local all {role} {method}" for role, method in ROLES.items()]
        (made.root / "data" / "pg_hba.conf").write_text("\n".join(lines) + "\n")
        reloaded = made.run("pg_ctl", "-D", str(made.root / "data"), "reload")
        assert reloaded.returncode == 0, reloaded.stderr
        _until_passwords_are_asked(made)
        yield made
    finally:
        made.stop()


def _until_passwords_are_asked(cluster: Cluster) -> None:
    import psycopg

    deadline = time.monotonic() + 30
    while True:
        try:
            psycopg.connect(_url(cluster, "svc_scram", ""), connect_timeout=2).close()
        except psycopg.OperationalError:
            return  # the new pg_hba.conf is read: trust is gone for the role
        assert time.monotonic() < deadline, "pg_hba.conf was not reloaded"
        time.sleep(0.1)


def _url(cluster: Cluster, role: str, password: str | None = PASSWORD) -> str:
    given = f"&password={password}" if password is not None else ""
    return f"postgresql:///postgres?host={cluster.socket_dir}&user={role}{given}"


@pytest.mark.parametrize("role", list(ROLES))
def test_a_password_is_answered_and_a_wrong_one_is_the_servers_refusal(
    cluster: Cluster, role: str
) -> None:
    conn = postgres.connect(_url(cluster, role))
    try:
        assert conn.execute("SELECT current_user").fetchone()[0] == role
    finally:
        conn.close()
    with pytest.raises(LedgerUnavailableError) as caught:
        postgres.connect(_url(cluster, role, "wrong-one"))
    message = caught.value.message
    assert caught.value.exit_code == 9
    assert "cannot reach" in message and "password authentication failed" in message
    assert "wrong-one" not in message


def test_a_password_from_pgpass_is_found_by_libpq(
    cluster: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = _url(cluster, "svc_scram", None)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.delenv("PGPASSFILE", raising=False)
    with pytest.raises(LedgerUnavailableError):  # no ~/.pgpass yet
        postgres.connect(url)
    pgpass = tmp_path / ".pgpass"
    pgpass.write_text(f"*:*:*:svc_scram:{PASSWORD}\n")
    pgpass.chmod(0o600)
    conn = postgres.connect(url)
    try:
        assert conn.execute("SELECT current_user").fetchone()[0] == "svc_scram"
    finally:
        conn.close()


def test_a_silent_server_is_given_up_at_the_connect_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A server that takes the connection and never answers: exit 9 once the connect timeout
    (libpq's shortest, 2 s) is over, never a hang."""
    monkeypatch.setattr(postgres, "CONNECT_TIMEOUT_SECONDS", 2)
    with socket.create_server(("127.0.0.1", 0)) as silent:  # its backlog takes the connection
        port = silent.getsockname()[1]
        url = f"postgresql://svc:secret@127.0.0.1:{port}/db?sslmode=disable"
        started = time.monotonic()
        with pytest.raises(LedgerUnavailableError) as caught:
            postgres.connect(url).close()
        waited = time.monotonic() - started
    assert caught.value.exit_code == 9 and "cannot reach the fleet ledger" in caught.value.message
    assert "secret" not in caught.value.message
    assert 1.9 < waited < 5, waited


# --- a statement psycopg keeps prepared, and a table changed under it ------------------

READ = "SELECT * FROM things WHERE id = %s"


@pytest.fixture
def conns(pg_url: str) -> Iterator[tuple[PgConnection, PgConnection]]:
    """A ledger connection that has read a table often enough for psycopg to keep the read
    prepared in the server, and a second session beside it (another runner)."""
    first, other = postgres.connect(pg_url), postgres.connect(pg_url)
    try:
        other.execute("CREATE TABLE things (id BIGINT PRIMARY KEY, name TEXT)")
        other.execute("INSERT INTO things (id, name) VALUES (%s, %s)", (1, "one"))
        for _ in range(6):
            assert dict(first.execute(READ, (1,)).fetchall()[0]) == {"id": 1, "name": "one"}
        prepared = first.execute("SELECT statement FROM pg_prepared_statements").fetchall()
        assert [row[0] for row in prepared] == [READ.replace("%s", "$1")]
        yield first, other
    finally:
        first.close()
        other.close()


def test_a_column_added_by_another_session_is_read_with_a_new_plan(
    conns: tuple[PgConnection, PgConnection],
) -> None:
    conn, other = conns
    other.execute("ALTER TABLE things ADD COLUMN colour TEXT")
    # The server refuses the kept plan (its result changed): outside a transaction the read is
    # sent again, planned anew, and sees the new column
    for _ in range(7):
        assert dict(conn.execute(READ, (1,)).fetchall()[0]) == {
            "id": 1,
            "name": "one",
            "colour": None,
        }
    assert conn.idle and not conn.closed


def test_inside_a_transaction_the_changed_plan_is_the_error_and_the_next_one_reads(
    conns: tuple[PgConnection, PgConnection],
) -> None:
    conn, other = conns
    other.execute("ALTER TABLE things ADD COLUMN colour TEXT")
    conn.execute("BEGIN")
    with pytest.raises(PgError) as failed:
        conn.execute(READ, (1,))  # the caller's transaction is spoilt: never sent again
    assert failed.value.sqlstate == PLAN_CHANGED
    conn.execute("ROLLBACK")
    assert conn.idle
    assert dict(conn.execute(READ, (1,)).fetchall()[0])["colour"] is None
