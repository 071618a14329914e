"""`svc spend` for people on a shared ledger: today's exposure against the cap, by runner."""

from __future__ import annotations

import io

from svc.store.ledger import Authorization
from svc.store.spend import cap_section, spend_report
from svc.ui import views
from svc.ui.output import Output


def auth(runner: str, amount: int, status: str = "spent") -> Authorization:
    return Authorization(
        id=1,
        request_id="req_" + runner,
        rail="x402",
        amount_atomic=amount,
        origin="http://127.0.0.1:8402",
        signed_at=0.0,
        valid_before=None,
        fingerprint=None,
        pay_to=None,
        network=None,
        status=status,
        refunded_atomic=0,
        updated_at=0.0,
        runner=runner,
    )


def drawn(doc: dict[str, object]) -> str:
    screen = io.StringIO()
    views.spend(Output(stdout=screen, stderr=io.StringIO()), doc)
    return " ".join(screen.getvalue().split())


def test_the_cap_line_names_every_runner_and_what_is_left() -> None:
    cap = cap_section([auth("ci-1", 1_500_000), auth("ci-2", 3_000_000, "live")], 9_000_000)
    assert cap["left_today_usd"] == "4.500000"
    assert cap["by_runner"] == {"ci-1": "1.500000", "ci-2": "3.000000"}
    text = drawn({**spend_report([]), "cap": cap})
    assert "today ██████████░░░░░░░░░░ 4.50 USD exposed of the daily cap 9.00 USD" in text
    assert ": 4.50 USD left (ci-1 1.50 USD, ci-2 3.00 USD)" in text


def test_a_void_authorization_holds_nothing_and_without_a_cap_no_bar_is_drawn() -> None:
    cap = cap_section([auth("me", 1_500_000, "void")], None)
    assert cap["exposed_today_usd"] == "0.000000" and cap["by_runner"] == {}
    text = drawn({**spend_report([]), "cap": cap})
    assert "today: 0.00 USD exposed, no daily cap" in text and "█" not in text


def test_a_runner_name_from_the_shared_ledger_is_shown_inert() -> None:
    hostile = "ci\x1b]0;pwned\x07\x1b[2J\u202e"  # another machine wrote this row
    cap = cap_section([auth(hostile, 1_500_000), auth("ci-2", 1_500_000)], 9_000_000)
    text = drawn({**spend_report([]), "cap": cap})
    assert "3.00 USD exposed of the daily cap" in text and "ci-2 1.50 USD" in text
    assert not any(ch in text for ch in ("\x1b", "\x07", "\u202e"))


def test_a_refused_authorization_says_it_counts_until_it_expires() -> None:
    """Exposure the server did not charge is named, with the time it stops counting."""
    import time
    from dataclasses import replace

    from svc.ui import views_budget
    from svc.ui.output import Output as Out

    now = time.time()
    expires = now + 600
    refused = replace(auth("me", 3_000_000, "refused"), valid_before=expires)
    cap = cap_section([auth("me", 1_500_000), refused], 15_000_000)
    assert cap["exposed_today_usd"] == "4.500000"
    assert cap["signed_not_charged_usd"] == "3.000000"
    clock = time.strftime("%H:%M UTC", time.gmtime(expires))
    if time.gmtime(expires)[:3] != time.gmtime(now)[:3]:
        clock = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(expires))
    text = drawn({**spend_report([]), "cap": cap})
    assert f"3.00 USD signed but not charged counts until {clock}, when it expires" in text
    screen = io.StringIO()
    budgets = {"budgets": [], "breaker": {"open": False, "after": 0}, **cap}
    views_budget.draw(Out(stdout=screen, stderr=io.StringIO()), budgets)
    assert f"counts until {clock}, when it expires: the budgets count it too" in " ".join(
        screen.getvalue().split()
    )


def test_an_expired_or_charged_authorization_is_not_called_not_charged() -> None:
    from dataclasses import replace

    expired = replace(auth("me", 3_000_000, "refused"), valid_before=1.0)
    cap = cap_section([auth("me", 1_500_000), expired], 15_000_000)
    assert cap["signed_not_charged_usd"] == "0.000000"
    assert "not charged" not in drawn({**spend_report([]), "cap": cap})
