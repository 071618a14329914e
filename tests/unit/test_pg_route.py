"""Which ledger URLs the lean client takes (pg_route): the local case only, read as libpq
reads it; every other URL, and every libpq setting it does not know, is psycopg's."""

from __future__ import annotations

import os
import pwd
import socket

import pytest

from svc.store.ledger.pg_route import lean_target

ME = pwd.getpwuid(os.geteuid()).pw_name


@pytest.mark.parametrize(
    ("url", "where", "user", "database", "password"),
    [
        (
            "postgresql:///db?host=/tmp/sock&user=u",
            ("/tmp/sock/.s.PGSQL.5432", 5432),
            "u",
            "db",
            None,
        ),
        ("postgresql://u:p%40ss@127.0.0.1:6000/d%20b", (None, 6000), "u", "d b", "p@ss"),
        ("postgres://localhost", (None, 5432), ME, ME, None),
        ("postgresql://[::1]:5433/x?sslmode=prefer", (None, 5433), ME, "x", None),
        ("postgresql://127.8.9.10/x?sslmode=allow&application_name=a", (None, 5432), ME, "x", None),
        (
            "postgresql://%2Fvar%2Frun%2Fpg:5555/x",
            ("/var/run/pg/.s.PGSQL.5555", 5555),
            ME,
            "x",
            None,
        ),
        ("postgresql:///x", ("/var/run/postgresql/.s.PGSQL.5432", 5432), ME, "x", None),
        ("postgresql://u:@localhost/x?sslmode=disable", (None, 5432), "u", "x", None),
        ("postgresql://a@localhost/x?user=b&password=c", (None, 5432), "b", "x", "c"),
    ],
)
def test_local_urls_take_the_lean_route(
    url: str, where: tuple[str | None, int], user: str, database: str, password: str | None
) -> None:
    target = lean_target(url, {})
    assert target is not None
    assert (target.socket_path, target.port) == where
    assert (target.user, target.database, target.password) == (user, database, password)


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://db.example.com/x",  # a remote host: libpq, TLS as configured
        "postgresql://10.0.0.5/x",
        "postgresql://127.0.0.1/x?sslmode=require",
        "postgresql://127.0.0.1/x?sslmode=verify-full",
        "postgresql:///x?host=/tmp&sslmode=require",
        "postgresql:///x?service=ledger",
        "postgresql://127.0.0.1/x?sslcert=/c.pem",
        "postgresql://127.0.0.1/x?gssencmode=require",
        "postgresql://127.0.0.1/x?target_session_attrs=read-write",
        "postgresql://127.0.0.1/x?options=-c%20search_path%3Dx",
        "postgresql://127.0.0.1,127.0.0.2/x",  # several hosts
        "postgresql:///x?host=/a,/b",
        "postgresql://127.0.0.1/x?hostaddr=127.0.0.1",
        "postgresql://127.0.0.1/x?passfile=/p",
        "postgresql://127.0.0.1/x?ssl=true",
        "postgresql://127.0.0.1:abc/x",
        "postgresql://127.0.0.1/x?port=0",
        "postgresql://127.0.0.1/x%zz",  # libpq refuses a stray %
        "postgresql://127.0.0.1/x%00",
        "postgresql://127.0.0.1/x#frag",
        "postgresql://127.0.0.1/x?sslmode=disable&sslmode=require",
        "postgresql://u:p\u00e9@127.0.0.1/x",  # a password SCRAM would normalize first
        "postgresql://@abstract/x",
        "postgresql://localhost.example.com/x",
        "mysql://127.0.0.1/x",
    ],
)
def test_every_other_url_goes_to_libpq(url: str) -> None:
    assert lean_target(url, {}) is None


@pytest.mark.parametrize(
    "name", ["PGSERVICE", "PGSSLMODE", "PGPASSFILE", "PGHOSTADDR", "PGOPTIONS", "PGSSLCERT"]
)
def test_a_libpq_variable_it_does_not_read_sends_every_url_to_libpq(name: str) -> None:
    assert lean_target("postgresql:///x?host=/tmp", {name: "anything"}) is None


def test_the_variables_it_reads_are_read_as_libpq_reads_them() -> None:
    env = {"PGHOST": "127.0.0.1", "PGPORT": "6543", "PGUSER": "u", "PGPASSWORD": "pw"}
    target = lean_target("postgresql:///", env | {"PGDATABASE": "d", "PGAPPNAME": "a"})
    assert target is not None and target.socket_path is None
    assert (target.host, target.port, target.user, target.password) == (
        "127.0.0.1",
        6543,
        "u",
        "pw",
    )
    assert (target.database, target.application_name) == ("d", "a")
    url_wins = lean_target("postgresql://v:q@localhost:7000/e", env)
    assert url_wins is not None
    assert (url_wins.port, url_wins.user, url_wins.password, url_wins.database) == (
        7000,
        "v",
        "q",
        "e",
    )
    assert lean_target("postgresql:///x", {"PGHOST": "db.example.com"}) is None
    assert lean_target("postgresql:///x", {"PGHOST": ""}) is None  # in doubt: libpq's


def test_localhost_is_loopback_only_when_it_resolves_so(monkeypatch: pytest.MonkeyPatch) -> None:
    assert lean_target("postgresql://localhost/x", {}) is not None
    lying = [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.1.2.3", 0))]
    monkeypatch.setattr(socket, "getaddrinfo", lambda *args, **kwargs: lying)
    assert lean_target("postgresql://localhost/x", {}) is None  # an /etc/hosts that says so
