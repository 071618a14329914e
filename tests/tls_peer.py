"""Throw-away TLS for loopback tests: a CA and server certificates made at test time (the
`cryptography` package; nothing downloaded), trusted through SSL_CERT_FILE as a user would
trust a private CA, and the hostile peers a TLS client must refuse (a plain-http server on the
https port, a trickled handshake, a close mid-handshake)."""

from __future__ import annotations

import datetime
import ipaddress
import socket
import ssl
import time
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from tests.raw_peer import Listener

_DAY = datetime.timedelta(days=1)


@dataclass(frozen=True)
class Pki:
    """The test CA (`ca`: the PEM file SSL_CERT_FILE names) and one server context per kind."""

    ca: Path
    good: ssl.SSLContext  # for 127.0.0.1 and localhost, signed by the CA
    wrong_host: ssl.SSLContext  # signed by the CA, for another name
    expired: ssl.SSLContext  # signed by the CA, for 127.0.0.1, expired yesterday
    untrusted: ssl.SSLContext  # for 127.0.0.1, signed by a CA nobody trusts


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _ca(common: str) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name(common))
        .issuer_name(_name(common))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - _DAY)
        .not_valid_after(now + _DAY)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), False)
        .sign(key, hashes.SHA256())
    )
    return cert, key


def _server(
    where: Path,
    label: str,
    ca: tuple[x509.Certificate, ec.EllipticCurvePrivateKey],
    names: list[x509.GeneralName],
    expired: bool = False,
) -> ssl.SSLContext:
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    ca_cert, ca_key = ca
    start, end = (now - 3 * _DAY, now - _DAY) if expired else (now - _DAY, now + _DAY)
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name(label))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(end)
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False
        )
        .sign(ca_key, hashes.SHA256())
    )
    pem = where / f"{label}.pem"
    pem.write_bytes(
        cert.public_bytes(serialization.Encoding.PEM)
        + key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(pem)
    return context


def make_pki(where: Path) -> Pki:
    ca = _ca("svc test CA")
    other = _ca("nobody's CA")
    loopback: list[x509.GeneralName] = [
        x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
        x509.DNSName("localhost"),
    ]
    path = where / "ca.pem"
    path.write_bytes(ca[0].public_bytes(serialization.Encoding.PEM))
    return Pki(
        ca=path,
        good=_server(where, "good", ca, loopback),
        wrong_host=_server(where, "wrong-host", ca, [x509.DNSName("other.example")]),
        expired=_server(where, "expired", ca, loopback, expired=True),
        untrusted=_server(where, "untrusted", other, loopback),
    )


class HostilePeer(Listener):
    """A loopback listener on an https URL that never completes a handshake: `kind` is
    "plain http" (answers the ClientHello with an HTTP error, as a plain-http server on the
    https port does), "trickle" (a TLS record header, then a byte every `gap` seconds) or
    "close" (reads the ClientHello and closes)."""

    def __init__(self, kind: str, gap: float = 0.2) -> None:
        self.kind = kind
        self.gap = gap
        super().__init__("https")

    def _serve(self, conn: socket.socket, number: int) -> None:
        with conn:
            try:
                conn.recv(65536)  # the ClientHello
                if self.kind == "plain http":
                    conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
                elif self.kind == "trickle":
                    conn.sendall(b"\x16\x03\x03\x40\x00")  # a 16 KiB handshake record
                    while not self.closing.is_set():
                        time.sleep(self.gap)
                        conn.sendall(b"\x00")
            except OSError:
                return
