"""A proxy's extra trust (host_app/logic/trust.py): a chain served for a host is accepted only
when it leads to one of the session's roots, names the host and is valid now."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from bridge_protocol.identity import ProxyTrust
from host_app.logic import trust

from ..certs import NOW, ca, leaf

ROOT = ca("Proxy Root")
INTER = ca("Proxy Intermediate", ROOT, path_length=0)
OTHER = ca("Someone Else's Root")
HOST = "shop.example"


def test_a_chain_through_an_intermediate_to_the_bundle_is_accepted() -> None:
    served = leaf(INTER, [HOST, "www.shop.example"])
    assert trust.chain_verifies([served.der, INTER.der], HOST, [ROOT.cert])
    assert trust.chain_verifies([served.der, INTER.der], "WWW.Shop.Example.", [ROOT.cert])
    # a leaf signed by the root directly
    assert trust.chain_verifies([leaf(ROOT, [HOST]).der], HOST, [ROOT.cert])
    # one root of a bundle of several is enough
    assert trust.chain_verifies([served.der, INTER.der], HOST, [OTHER.cert, ROOT.cert])


def test_an_ip_address_host_is_matched_against_ip_sans() -> None:
    served = leaf(ROOT, ["127.0.0.1"])
    assert trust.chain_verifies([served.der], "127.0.0.1", [ROOT.cert])
    assert not trust.chain_verifies([served.der], "127.0.0.2", [ROOT.cert])


def test_the_wrong_host_is_rejected() -> None:
    served = leaf(INTER, ["other.example"])
    assert not trust.chain_verifies([served.der, INTER.der], HOST, [ROOT.cert])
    # a wildcard covers one label only
    wild = leaf(ROOT, ["*.example"])
    assert trust.chain_verifies([wild.der], HOST, [ROOT.cert])
    assert not trust.chain_verifies([wild.der], "a.shop.example", [ROOT.cert])


def test_an_expired_or_not_yet_valid_leaf_is_rejected() -> None:
    expired = leaf(ROOT, [HOST], not_before=NOW - timedelta(days=30), not_after=NOW - timedelta(1))
    assert not trust.chain_verifies([expired.der], HOST, [ROOT.cert])
    future = leaf(ROOT, [HOST], not_before=NOW + timedelta(days=2))
    assert not trust.chain_verifies([future.der], HOST, [ROOT.cert])
    # the same chain is judged at the time given
    ok = leaf(ROOT, [HOST])
    assert not trust.chain_verifies([ok.der], HOST, [ROOT.cert], NOW + timedelta(days=400))


def test_another_root_or_a_served_root_is_not_trusted() -> None:
    served = leaf(INTER, [HOST])
    assert not trust.chain_verifies([served.der, INTER.der], HOST, [OTHER.cert])
    # serving the root alongside does not make it trusted
    foreign = ca("Served Root")
    forged = leaf(foreign, [HOST])
    assert not trust.chain_verifies([forged.der, foreign.der], HOST, [ROOT.cert])
    # an intermediate missing from what was served leaves no path
    assert not trust.chain_verifies([served.der], HOST, [ROOT.cert])
    # a leaf certificate in the bundle does not sign anything
    fake = leaf(leaf(ROOT, ["ca.example"]), [HOST])
    assert not trust.chain_verifies([fake.der], HOST, [ROOT.cert])


def test_nothing_to_verify_is_a_rejection() -> None:
    served = leaf(ROOT, [HOST])
    assert not trust.chain_verifies([], HOST, [ROOT.cert])
    assert not trust.chain_verifies([served.der], HOST, [])
    assert not trust.chain_verifies([served.der], "", [ROOT.cert])
    assert not trust.chain_verifies([b"not a certificate"], HOST, [ROOT.cert])


def test_the_roots_of_a_sessions_trust(tmp_path: Path) -> None:
    bundle = ROOT.pem + OTHER.pem
    assert [c.subject for c in trust.roots_of(ProxyTrust(certificates=bundle), None)] == [
        ROOT.cert.subject,
        OTHER.cert.subject,
    ]
    assert trust.roots_of(None, ROOT.pem) == []
    assert trust.roots_of(ProxyTrust(mode="system"), ROOT.pem) == []
    assert trust.roots_of(ProxyTrust(mode="providery"), ROOT.pem) == [ROOT.cert]
    # no provider Y CA installed: nothing beyond the system store
    assert trust.roots_of(ProxyTrust(mode="providery"), None) == []
    assert trust.roots_of(ProxyTrust(certificates="garbage"), None) == []
    ca_file = tmp_path / "providery_ca.pem"
    assert trust.read_providery_ca(ca_file) is None
    ca_file.write_text(ROOT.pem)
    assert trust.read_providery_ca(ca_file) == ROOT.pem
