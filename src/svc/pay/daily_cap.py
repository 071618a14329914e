"""The daily cap this process obeys, and where its value came from.

A runner's own value comes from its settings (flag > environment > profile > the default of
15.00 USD; `none` removes it). On a fleet (`ledger_url`), a value set in the fleet's ledger
(`svc config set daily_cap_usd 90 --fleet`) wins for every runner: one cap, not one per
runner. Until the fleet has one, each runner's own value applies, as before.

What a process resolves here is read once (the warning, doctor, `svc spend`'s display); what
a paid request is held against is read again at each hold (`rule`, a `CapRule`: the fleet's
value as stored at that moment), so a long-lived runner obeys an operator's change at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING

from svc.errors import UsageError
from svc.money import for_people, usd_to_atomic
from svc.settings import NO_CAP, Settings, daily_cap, parse
from svc.settings_table import FLEET_KEYS  # the settings a fleet's ledger may hold
from svc.store.ledger.fleet_settings import FLEET, CapRule

if TYPE_CHECKING:
    from svc.store.ledger import LedgerStore

CAP_KEY = "daily_cap_usd"
__all__ = ["CAP_KEY", "FLEET", "DailyCap", "resolve_cap", "set_for_fleet", "shown"]


@dataclass(frozen=True)
class DailyCap:
    usd: Decimal | None  # None: no cap (`none`, said on purpose)
    source: str  # FLEET, or where the runner's own value came from ("default", "env ...")
    own: Decimal | None  # this runner's own value
    own_source: str
    # What a hold reads again, at the hold (the fleet's current value): what decides money
    rule: CapRule = field(default_factory=lambda: CapRule(None, "default"), compare=False)

    @property
    def atomic(self) -> int | None:
        return None if self.usd is None else usd_to_atomic(self.usd)

    def overruled(self) -> str | None:
        """One line for a runner whose own value (set, not the default) the fleet's overrules."""
        if self.source != FLEET or self.own_source == "default" or self.own == self.usd:
            return None
        return (
            f"the fleet's daily cap is {shown(self.usd)} (in the fleet ledger); this runner's "
            f"daily_cap_usd {shown(self.own)} ({self.own_source}) is not used"
        )


def shown(cap: Decimal | None) -> str:
    return NO_CAP if cap is None else for_people(cap)


def resolve_cap(settings: Settings, fleet: LedgerStore | None) -> DailyCap:
    """The cap in effect: the fleet ledger's value if `fleet` (a shared ledger) has one, else
    the runner's own. A fleet value that does not read as a cap refuses to pay (exit 2)."""
    own, own_source = settings.daily_cap_usd, settings.sources.get(CAP_KEY, "default")
    stored = fleet.fleet_setting(CAP_KEY) if fleet is not None else None
    rule = _rule(own, own_source, stored, on_fleet=fleet is not None)
    if stored is None:
        return DailyCap(own, own_source, own, own_source, rule)
    return DailyCap(_fleet_usd(stored), FLEET, own, own_source, rule)


def _rule(own: Decimal | None, own_source: str, stored: str | None, *, on_fleet: bool) -> CapRule:
    """On a fleet, the key each hold reads again; `stored` is only the first guess."""
    own_atomic = None if own is None else usd_to_atomic(own)
    if not on_fleet:  # a single machine: its own config, read per process, is the value
        return CapRule(own_atomic, own_source)
    return CapRule(own_atomic, own_source, CAP_KEY, read=_fleet_atomic, seen=stored)


def _fleet_usd(stored: str) -> Decimal | None:
    """A fleet value that does not read as a cap refuses to pay (exit 2)."""
    return daily_cap(f"the fleet ledger's {CAP_KEY}", stored)


def _fleet_atomic(stored: str) -> int | None:
    usd = _fleet_usd(stored)
    return None if usd is None else usd_to_atomic(usd)


def set_for_fleet(
    settings: Settings, ledger: Callable[[], LedgerStore], key: str, raw: str | None
) -> str | None:
    """Write `key`'s value into the fleet's ledger for every runner, checked as the config
    file checks it (None removes it: each runner's own value applies again). Returns the
    value as stored (`90`, `none`)."""
    if key not in FLEET_KEYS:
        raise UsageError(f"only {', '.join(FLEET_KEYS)} can be set for the whole fleet, not {key}")
    if not settings.ledger_url:
        raise UsageError(
            "a value for the whole fleet goes into its shared ledger, and ledger_url is not set",
            hint="set ledger_url (or SVC_LEDGER_URL) to the fleet's postgresql:// URL, or "
            "set this machine's own value instead",
        )
    value = None if raw is None else _as_stored(key, raw)
    fleet = ledger()
    if value is None and fleet.fleet_setting(key) is None:
        raise UsageError(f"{key} is not set in the fleet ledger")
    fleet.set_fleet_setting(key, value)
    return value


def _as_stored(key: str, raw: str) -> str:
    """Checked by the setting's own parser (the settings table's kind), as the file is."""
    return NO_CAP if parse(key, raw) is None else raw.strip()
