"""The lean client's authentication against a real server (a throw-away cluster of its own:
its pg_hba.conf is rewritten here): SCRAM-SHA-256, MD5 and a cleartext password, a wrong
password refused, and a password the URL does not give found by libpq in ~/.pgpass, as the
README promises (the lean client hands such a connection to psycopg)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.pg_cluster import Cluster
from tests.pg_cluster import start as start_cluster

from svc.errors import LedgerUnavailableError
from svc.store.ledger import pg_auth, postgres
from svc.store.ledger.pg_conn import LeanConnection
from svc.store.ledger.pg_psycopg import PsycopgConnection
from svc.store.ledger.pg_route import lean_target

ROLES = {"svc_scram": "scram-sha-256", "svc_md5": "md5", "svc_clear": "password"}
PASSWORD = "pw-1-ok"  # ASCII: one SCRAM would normalize first (SASLprep) is libpq's


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
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


def _spied(monkeypatch: pytest.MonkeyPatch, name: str) -> list[Any]:
    calls: list[Any] = []
    real: Callable[..., Any] = getattr(pg_auth, name)

    def spy(*args: Any) -> Any:
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(pg_auth, name, spy)
    return calls


@pytest.mark.parametrize(("role", "answer"), [("svc_md5", "md5"), ("svc_clear", "cleartext")])
def test_a_password_the_server_asks_for_is_answered(
    cluster: Cluster, role: str, answer: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _spied(monkeypatch, answer)
    url = _url(cluster, role)
    assert lean_target(url, {}) is not None
    conn = postgres.connect(url)
    try:
        assert isinstance(conn, LeanConnection) and len(calls) == 1
        assert conn.execute("SELECT current_user").fetchone()[0] == role
    finally:
        conn.close()


def test_scram_is_verified_both_ways(cluster: Cluster) -> None:
    conn = postgres.connect(_url(cluster, "svc_scram"))
    try:
        assert isinstance(conn, LeanConnection)
        assert conn.execute("SELECT current_user").fetchone()[0] == "svc_scram"
    finally:
        conn.close()


@pytest.mark.parametrize("role", list(ROLES))
def test_a_wrong_password_is_the_servers_refusal(cluster: Cluster, role: str) -> None:
    with pytest.raises(LedgerUnavailableError) as caught:
        postgres.connect(_url(cluster, role, "wrong-one"))
    message = caught.value.message
    assert "cannot reach" in message and "password authentication failed" in message
    assert "wrong-one" not in message


def test_a_password_from_pgpass_goes_through_libpq(
    cluster: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = _url(cluster, "svc_scram", None)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("PGPASSWORD", raising=False)
    with pytest.raises(LedgerUnavailableError):  # no ~/.pgpass yet: libpq has none either
        postgres.connect(url)
    pgpass = tmp_path / ".pgpass"
    pgpass.write_text(f"*:*:*:svc_scram:{PASSWORD}\n")
    pgpass.chmod(0o600)
    conn = postgres.connect(url)
    try:
        assert isinstance(conn, PsycopgConnection)
        assert conn.execute("SELECT current_user").fetchone()[0] == "svc_scram"
    finally:
        conn.close()
