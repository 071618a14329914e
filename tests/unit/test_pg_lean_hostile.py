"""The lean PostgreSQL client against a hostile server on loopback (tests/pg_peer.py): every
lie about a length, every close mid-message, every unknown message or authentication, a
forged SCRAM signature and a silent server end as the contract's exit 9 ("nothing paid"),
promptly, never as a hang, a crash, or a statement sent to a server that did not prove
itself."""

from __future__ import annotations

import socket
import struct
import time

import pytest
from tests.pg_peer import (
    GREETING,
    READY_IDLE,
    PeerConnection,
    PgPeer,
    auth,
    error,
    msg,
    scram_server,
)

from svc.errors import LedgerUnavailableError
from svc.store.ledger import postgres
from svc.store.ledger.pg_api import PgError
from svc.store.ledger.pg_conn import LeanConnection
from svc.store.ledger.pg_psycopg import PsycopgConnection
from svc.store.ledger.pg_route import lean_target


def _refused(peer: PgPeer, url: str | None = None) -> LedgerUnavailableError:
    where = url or peer.ledger_url()
    assert lean_target(where) is not None  # the lean route, not libpq's
    started = time.monotonic()
    with pytest.raises(LedgerUnavailableError) as caught:
        postgres.connect(where).close()
    assert time.monotonic() - started < 4  # under the connect timeout: nothing waited on
    assert caught.value.exit_code == 9 and "cannot reach the fleet ledger" in caught.value.message
    assert "secret" not in caught.value.message
    return caught.value


def _after_startup(reply: bytes, *, close: bool = True) -> PgPeer:
    def script(peer: PeerConnection) -> None:
        peer.startup()
        peer.send(reply)
        if not close:
            peer.read()  # keeps the socket open until the client gives up

    return PgPeer(script)


def test_a_message_longer_than_the_cap_is_refused_unread() -> None:
    with _after_startup(b"R" + struct.pack("!i", 17 * 1024 * 1024), close=False) as peer:
        assert "message of 17825792 bytes" in _refused(peer).message


def test_a_negative_length_is_refused() -> None:
    with _after_startup(b"R" + struct.pack("!i", -5), close=False) as peer:
        assert "message of -5 bytes" in _refused(peer).message


def test_an_end_of_stream_mid_message_is_refused() -> None:
    with _after_startup(b"R" + struct.pack("!i", 8) + b"\0\0") as peer:
        assert "closed the connection" in _refused(peer).message


def test_an_unknown_authentication_method_is_refused() -> None:
    with _after_startup(auth(99), close=False) as peer:
        assert "authentication svc does not speak (99)" in _refused(peer).message


def test_an_unexpected_message_at_startup_is_refused() -> None:
    with _after_startup(auth(0) + msg(b"D", b"\0\0"), close=False) as peer:
        assert "unexpected message b'D'" in _refused(peer).message


def test_an_error_at_startup_is_the_servers_words() -> None:
    fatal = error("3D000", 'database "db" does not exist', "FATAL")
    with _after_startup(fatal) as peer:
        assert 'database "db" does not exist' in _refused(peer).message


def test_a_forged_scram_signature_is_refused_and_no_statement_is_sent() -> None:
    with PgPeer(lambda peer: scram_server(peer, "secret", forge=True)) as peer:
        assert "SCRAM signature is wrong" in _refused(peer).message
        peer.done.wait(5)
        sent = [kind for kind, _ in peer.peers[0].received]
        assert sent == [b"p", b"p"]  # the SASL messages, then nothing: no Parse, no Query


def test_the_true_scram_signature_is_accepted() -> None:
    """The forged test's control: the same server, its signature right, is spoken to."""
    with PgPeer(lambda peer: scram_server(peer, "secret")) as peer:
        conn = postgres.connect(peer.ledger_url())
        try:
            assert isinstance(conn, LeanConnection) and conn.backend_pid == 4242
            assert conn.execute("SELECT 1 WHERE false").fetchall() == []
        finally:
            conn.close()


def test_scram_ended_without_the_servers_proof_is_refused() -> None:
    def script(peer: PeerConnection) -> None:
        peer.startup()
        peer.send(auth(10, b"SCRAM-SHA-256\0\0"))
        _, first = peer.read()
        nonce = first.decode().split("r=", 1)[1]
        peer.send(auth(11, f"r={nonce}x,s=c2FsdA==,i=4096".encode()))
        peer.read()
        peer.send(GREETING)  # AuthenticationOk with no SASLFinal: skipping the proof
        peer.read()

    with PgPeer(script) as peer:
        assert "without proving itself" in _refused(peer).message


def test_a_stalled_server_is_given_up_at_the_connect_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(postgres, "CONNECT_TIMEOUT_SECONDS", 1)

    def silent(peer: PeerConnection) -> None:
        peer.startup()
        peer.read()  # says nothing; waits for the client to leave

    with PgPeer(silent) as peer:
        started = time.monotonic()
        assert "timeout expired" in _refused(peer).message
        assert 0.9 < time.monotonic() - started < 3


def test_an_unknown_column_type_is_an_error_and_the_connection_is_dropped() -> None:
    description = struct.pack("!h", 1) + b"x\0" + struct.pack("!ihihih", 0, 0, 600, 16, -1, 0)

    def script(peer: PeerConnection) -> None:
        peer.startup()
        peer.send(GREETING)
        peer.until_sync()
        peer.send(msg(b"1") + msg(b"2") + msg(b"T", description) + msg(b"D", b"\0\1\0\0\0\3(1)"))
        peer.send(msg(b"C", b"SELECT 1\0") + READY_IDLE)
        peer.read()

    with PgPeer(script) as peer:
        conn = postgres.connect(peer.ledger_url())
        with pytest.raises(PgError) as caught:
            conn.execute("SELECT point '(1,1)'")
        assert "type OID 600" in str(caught.value) and conn.closed


def test_an_error_mid_transaction_is_rolled_back_and_the_ledger_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The server fails a statement inside svc's transaction (ReadyForQuery 'E'): the ledger
    says so as exit 9, sends ROLLBACK, and the connection is idle and usable again."""
    done = msg(b"1") + msg(b"2") + msg(b"n")

    def script(peer: PeerConnection) -> None:
        peer.startup()
        peer.send(GREETING)
        assert peer.until_sync() == ["BEGIN"]
        peer.send(done + msg(b"C", b"BEGIN\0") + msg(b"Z", b"T"))
        assert peer.until_sync()[0].startswith("INSERT")
        peer.send(msg(b"1") + error("23505", "duplicate key value") + msg(b"Z", b"E"))
        assert peer.until_sync() == ["ROLLBACK"]
        peer.send(done + msg(b"C", b"ROLLBACK\0") + READY_IDLE)
        assert peer.until_sync() == ["SELECT 1"]
        peer.send(done + msg(b"C", b"SELECT 0\0") + READY_IDLE)
        peer.read()

    with PgPeer(script) as peer:
        url = peer.ledger_url()
        monkeypatch.setattr(postgres, "_CURRENT", {url})  # no schema check: the script's
        db = postgres.PgDatabase(url)
        try:
            with pytest.raises(LedgerUnavailableError) as caught, db.write():
                db.execute("INSERT INTO settings (name) VALUES (?)", ("x",))
            assert "failed a statement: duplicate key value" in caught.value.message
            assert db._conn.idle and not db._conn.closed
            assert db.execute("SELECT 1").fetchall() == []
        finally:
            db.close()


@pytest.mark.parametrize(
    "answer",
    [
        msg(b"T", struct.pack("!h", 2) + b"x\0"),  # two columns described, half of one sent
        msg(b"T", struct.pack("!h", 1) + b"x"),  # a name without its end
        msg(b"T", struct.pack("!h", 1) + b"x\0" + struct.pack("!ihihih", 0, 0, 23, 4, -1, 0))
        + msg(b"D", struct.pack("!hi", 1, 3) + b"abc"),  # an int4 that is not a number
        msg(b"T", struct.pack("!h", 1) + b"x\0" + struct.pack("!ihihih", 0, 0, 1700, -1, -1, 0))
        + msg(b"D", struct.pack("!hi", 1, 3) + b"1.x"),  # a numeric that is not a number
        msg(b"T", struct.pack("!h", 1) + b"x\0" + struct.pack("!ihihih", 0, 0, 25, -1, -1, 0))
        + msg(b"D", struct.pack("!hi", 1, 2) + b"\xff\xfe"),  # text that is not UTF-8
        msg(b"Z", b"Q"),  # a transaction status that does not exist
    ],
)
def test_a_malformed_answer_is_an_operational_error_and_the_connection_is_dropped(
    answer: bytes,
) -> None:
    def script(peer: PeerConnection) -> None:
        peer.startup()
        peer.send(GREETING)
        peer.until_sync()
        peer.send(msg(b"1") + msg(b"2") + answer + msg(b"C", b"SELECT 1\0") + READY_IDLE)
        peer.read()

    with PgPeer(script) as peer:
        conn = postgres.connect(peer.ledger_url())
        with pytest.raises(PgError) as caught:
            conn.execute("SELECT x FROM t")
        assert caught.value.operational and conn.closed


def test_a_malformed_startup_is_refused() -> None:
    with _after_startup(msg(b"R", b"\0\0"), close=False) as peer:  # a code cut short
        assert "authentication svc does not speak" in _refused(peer).message
    with _after_startup(auth(5, b"\0"), close=False) as peer:  # MD5 without its salt
        _refused(peer, peer.ledger_url())


SSL_REQUEST = struct.pack("!ii", 8, 80877103)


def test_a_loopback_refusal_that_tls_may_lift_is_tried_again_by_libpq() -> None:
    """`no pg_hba.conf entry` on plain TCP while sslmode lets libpq try TLS (prefer): the lean
    client hands the URL to libpq, which asks for TLS first, as it would have from the start."""
    refusal = error("28000", "no pg_hba.conf entry for host", "FATAL")
    first_bytes: list[bytes] = []

    def script(peer: PeerConnection) -> None:
        head = peer.sock.recv(8, socket.MSG_PEEK)
        first_bytes.append(head)
        if head == SSL_REQUEST:
            peer.sock.recv(8)
            peer.send(b"N")  # no TLS here: libpq goes on in the clear
        peer.startup()
        peer.send(refusal)

    with PgPeer(script) as peer:
        url = peer.ledger_url(extra="").replace("?sslmode=disable", "")
        assert "no pg_hba.conf entry" in _refused(peer, url).message
    assert first_bytes[0] != SSL_REQUEST and first_bytes[-1] == SSL_REQUEST
    assert len(first_bytes) >= 2  # the lean client's try, then libpq's


def test_a_client_encoding_other_than_utf8_is_left_to_psycopg() -> None:
    ascii_greeting = GREETING.replace(
        msg(b"S", b"client_encoding\0UTF8\0"), msg(b"S", b"client_encoding\0SQL_ASCII\0")
    )

    def script(peer: PeerConnection) -> None:
        peer.startup()
        seen.append(peer)
        peer.send(ascii_greeting if len(seen) == 1 else GREETING)
        peer.read()

    seen: list[PeerConnection] = []
    with PgPeer(script) as peer:
        conn = postgres.connect(peer.ledger_url())
        try:
            assert isinstance(conn, PsycopgConnection) and len(seen) == 2
        finally:
            conn.close()
