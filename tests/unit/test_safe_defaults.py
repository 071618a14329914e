"""Safe defaults (issue 29.7 and 29.8): the test network only from loopback, and a daily cap
on a fresh home that only `none` removes."""

from __future__ import annotations

from decimal import Decimal

import pytest
from tests.fakes import MemoryPins

from svc.context import AppContext
from svc.errors import UsageError
from svc.pay.offer import Offer
from svc.pay.policy import PolicyRefusal
from svc.settings import resolve
from svc.ui.output import Output

SEPOLIA = "eip155:84532"
SEPOLIA_USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e"
BASE = "eip155:8453"
BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SVC_BASE_URL", "SVC_DAILY_CAP", "SVC_PROFILE"):
        monkeypatch.delenv(name, raising=False)


def judged(base_url: str, network: str, asset: str, **values: object) -> Offer:
    settings = resolve(base_url=base_url, profile_values=dict(values), stdin_is_tty=False)
    policy = AppContext(settings, Output()).policy()
    policy.pins = MemoryPins()
    return policy.judge([Offer("x402", 1_500_000, PAY_TO, network, asset)])


def test_the_test_network_is_paid_from_loopback_with_no_setting() -> None:
    for url in ("http://127.0.0.1:8402", "http://localhost:9", "http://[::1]:8402"):
        assert judged(url, SEPOLIA, SEPOLIA_USDC).network == SEPOLIA


def test_the_test_network_from_another_origin_is_refused_unless_allowed() -> None:
    with pytest.raises(PolicyRefusal) as refused:
        judged("https://pay.example.com", SEPOLIA, SEPOLIA_USDC)
    assert "network eip155:84532 is not allowed" in refused.value.message
    allowed = judged(
        "https://pay.example.com",
        SEPOLIA,
        SEPOLIA_USDC,
        allowed_networks=[BASE, SEPOLIA],
        allowed_assets=[BASE_USDC, SEPOLIA_USDC],
    )
    assert allowed.network == SEPOLIA


@pytest.mark.parametrize(
    ("network", "asset"),
    [(SEPOLIA, BASE_USDC), (BASE, SEPOLIA_USDC), ("base-sepolia", BASE_USDC)],
    ids=["mainnet-asset-on-testnet", "testnet-asset-on-mainnet", "v1-name-mainnet-asset"],
)
def test_loopback_allows_the_test_pair_only(network: str, asset: str) -> None:
    """Base Sepolia with Sepolia USDC, never one half of it beside a mainnet half."""
    from svc.pay.chains import caip2

    with pytest.raises(PolicyRefusal):
        judged("http://127.0.0.1:8402", caip2(network), asset)


def test_mainnet_stays_allowed_everywhere() -> None:
    for url in ("http://127.0.0.1:8402", "https://pay.example.com"):
        assert judged(url, BASE, BASE_USDC).network == BASE


def test_a_fresh_home_has_a_daily_cap_of_15_usd() -> None:
    settings = resolve(stdin_is_tty=False)
    assert settings.daily_cap_usd == Decimal("15.00")
    assert settings.sources["daily_cap_usd"] == "default"


@pytest.mark.parametrize("spelling", ["none", "None", " NONE "])
def test_none_removes_the_cap_on_purpose(spelling: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve(profile_values={"daily_cap_usd": spelling}).daily_cap_usd is None
    monkeypatch.setenv("SVC_DAILY_CAP", spelling)
    assert resolve().daily_cap_usd is None


@pytest.mark.parametrize("bad", ["", "nil", "-1", "NaN", "off"])
def test_a_cap_that_is_neither_an_amount_nor_none_is_refused(
    bad: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(UsageError) as refused:
        resolve(profile_values={"daily_cap_usd": bad})
    assert "daily_cap_usd" in refused.value.message
