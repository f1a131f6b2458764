"""A proxied session's extra trust (spec 1 §4 Proxies, `tls`): whether a certificate chain the
engine rejected is acceptable for that session alone (no Qt here).

The Qt bindings cannot give a profile extra trusted roots, so the page's `certificateError`
hands the chain over and only a chain that verifies against the session's own roots is
accepted: path building to one of those roots, the host name against the leaf's SAN, every
certificate's validity at `now` (`cryptography.x509.verification`, the checks a browser makes,
with only these roots in the store). Anything else stays rejected: never a blanket accept.
"""

from __future__ import annotations

import ipaddress
from datetime import UTC, datetime
from pathlib import Path

from cryptography import x509
from cryptography.x509.verification import PolicyBuilder, Store, VerificationError

from bridge_protocol.identity import ProxyTrust

# Provider Y's published CA, for `tls.mode: providery`. No public copy of it could be found
# (the provider publishes it in its customer dashboard), so none is shipped: an installation
# puts the PEM here; while the file is absent, `providery` trusts nothing beyond the system
# store. The host's tests point this at a local CA.
PROVIDERY_CA_FILE = Path(__file__).resolve().parent.parent / "providery_ca.pem"

MAX_CERTIFICATES = 16  # the agent validates bundles of 1-16 (spec 1 §4 Proxies)


def load_roots(pem: str) -> list[x509.Certificate]:
    """The certificates of a PEM bundle; none for a bundle that does not parse (the agent
    validated it, so this only guards a file edited by hand)."""
    try:
        return x509.load_pem_x509_certificates(pem.encode())[:MAX_CERTIFICATES]
    except ValueError:
        return []


def roots_of(trust: ProxyTrust | None, providery_pem: str | None) -> list[x509.Certificate]:
    """The extra roots a session's trust names: its proxy's bundle, or provider Y's CA."""
    if trust is None:
        return []
    if trust.certificates is not None:
        return load_roots(trust.certificates)
    if trust.mode == "providery" and providery_pem:
        return load_roots(providery_pem)
    return []


def read_providery_ca(path: Path | None = None) -> str | None:
    try:
        return (path or PROVIDERY_CA_FILE).read_text("utf-8")
    except OSError:
        return None


def chain_verifies(
    chain_der: list[bytes], host: str, roots: list[x509.Certificate], now: datetime | None = None
) -> bool:
    """Does the served chain (leaf first, as the engine hands it over) lead to one of `roots`
    for `host` at `now`? The served intermediates are only candidates for the path: a
    certificate the server sends is never trusted for being sent."""
    if not chain_der or not roots or not host:
        return False
    try:
        certs = [x509.load_der_x509_certificate(der) for der in chain_der]
    except ValueError:
        return False
    name: x509.DNSName | x509.IPAddress
    try:
        name = x509.IPAddress(ipaddress.ip_address(host.strip("[]")))
    except ValueError:
        name = x509.DNSName(host.rstrip(".").lower())
    when = now or datetime.now(UTC)
    verifier = PolicyBuilder().store(Store(roots)).time(when).build_server_verifier(name)
    try:
        verifier.verify(certs[0], certs[1:])
    except (VerificationError, ValueError):
        return False
    return True
