"""Which ledger URLs the lean client takes: the common local case only, read as libpq reads it.

Taken: a Unix-socket directory, or plain TCP to a loopback address (127.0.0.0/8, ::1,
`localhost`) with sslmode absent, disable, allow or prefer (cleartext on loopback only, svc's
rule everywhere), one host, and no parameter or libpq environment variable it does not know.
Everything else is None here, and goes through psycopg (libpq) unchanged: a remote host, TLS,
a service file, a password file, several hosts, any option. In doubt, None.
"""

from __future__ import annotations

import os
import pwd
import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import unquote_to_bytes

from svc.origin import is_loopback_host

DEFAULT_SOCKET_DIR = "/var/run/postgresql"  # libpq's (pg_config --configure), psycopg-binary's
DEFAULT_PORT = 5432
PARAMS = frozenset(
    {"host", "port", "user", "password", "dbname", "sslmode", "connect_timeout", "application_name"}
)
ENVIRON = {"PGHOST": "host", "PGPORT": "port", "PGUSER": "user", "PGDATABASE": "dbname",
           "PGPASSWORD": "password", "PGAPPNAME": "application_name",
           "PGCONNECT_TIMEOUT": "connect_timeout"}  # fmt: skip
PLAIN_SSLMODES = (None, "disable", "allow", "prefer")
_ESCAPES = re.compile(r"%(?![0-9A-Fa-f]{2})")


@dataclass(frozen=True)
class Target:
    socket_path: str | None  # a Unix socket's file, or None for TCP
    host: str
    port: int
    user: str
    database: str
    password: str | None
    application_name: str | None
    sslmode: str | None


def _decoded(text: str) -> str | None:
    """libpq's percent-decoding; None where libpq would refuse (a stray %, a NUL, not UTF-8)."""
    if _ESCAPES.search(text):
        return None
    raw = unquote_to_bytes(text)
    if b"\0" in raw:
        return None
    try:
        return raw.decode()
    except UnicodeDecodeError:
        return None


def _split_url(url: str) -> dict[str, str] | None:
    """The URL's settings by libpq's keywords, or None for a form the lean client leaves to
    libpq."""
    scheme, sep, rest = url.partition("://")
    if not sep or scheme not in ("postgresql", "postgres") or "#" in rest:
        return None
    head, _, query = rest.partition("?")
    netloc, _, path = head.partition("/")
    found: dict[str, str] = {}
    if "@" in netloc:
        userinfo, _, netloc = netloc.partition("@")
        user, colon, password = userinfo.partition(":")
        found["user"], found["password"] = user, password
        if not colon:
            del found["password"]
    if "@" in netloc or "," in netloc:
        return None
    if netloc.startswith("["):
        host, bracket, port = netloc[1:].partition("]")
        if not bracket or (port and not port.startswith(":")):
            return None
        port = port[1:]
    else:
        host, _, port = netloc.partition(":")
    found |= {"host": host} if host else {}
    found |= {"port": port} if port else {}
    found |= {"dbname": path} if path else {}
    given: dict[str, str] = {}  # a query's parameter overrides the URL's part, as in libpq
    for key, eq, value in (pair.partition("=") for pair in query.split("&") if query):
        if not eq or key in given:
            return None
        given[key] = value
    return _all_decoded(found | given)


def _all_decoded(found: dict[str, str]) -> dict[str, str] | None:
    out = {}
    for key, value in found.items():
        plain_key, plain = _decoded(key), _decoded(value)
        if plain_key is None or plain is None:
            return None
        out[plain_key] = plain
    return out


def lean_target(url: str, environ: Mapping[str, str] | None = None) -> Target | None:
    """Where the lean client connects for `url`, or None: libpq's (psycopg's) route."""
    env = os.environ if environ is None else environ
    if any(k.startswith("PG") and k not in ENVIRON for k in env):
        return None  # PGSERVICE, PGSSLMODE, PGPASSFILE, ...: libpq's to read
    settings = _split_url(url)
    if settings is None or not set(settings) <= PARAMS:
        return None
    for name, key in ENVIRON.items():
        if name in env:
            if not env[name]:
                return None
            settings.setdefault(key, env[name])
    return _target(settings)


def _os_user() -> str | None:
    try:
        return pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:
        return None


def _target(settings: dict[str, str]) -> Target | None:
    host = settings.get("host") or DEFAULT_SOCKET_DIR
    port_text = settings.get("port") or str(DEFAULT_PORT)
    sslmode = settings.get("sslmode")
    user = settings.get("user") or _os_user()
    if not port_text.isdigit() or not 0 < int(port_text) < 65536 or sslmode not in PLAIN_SSLMODES:
        return None
    password = settings.get("password") or None  # empty: none, as libpq reads it
    if user is None or "," in host or (password and not password.isascii()):
        return None  # several hosts; a password SCRAM would first normalize (SASLprep)
    port = int(port_text)
    if host.startswith("/"):
        path: str | None = f"{host.rstrip('/') or ''}/.s.PGSQL.{port}"
    elif _loopback(host):
        path = None
    else:
        return None
    return Target(
        socket_path=path,
        host=host,
        port=port,
        user=user,
        database=settings.get("dbname") or user,
        password=password,
        application_name=settings.get("application_name"),
        sslmode=sslmode,
    )


def _loopback(host: str) -> bool:
    """The one rule (svc.origin): a loopback literal, or `localhost` naming only loopback."""
    return is_loopback_host(host) and not host.startswith("[")
