"""Which scope `svc budget set|unset` names, from their flags: --runner NAME, --fleet, else
the profile in effect (the global --profile NAME picks another)."""

from __future__ import annotations

from svc.engines.budget import Target, fleet_target, profile_target
from svc.errors import UsageError
from svc.ui.face import FaceContext


def target(ctx: FaceContext, runner: str | None, fleet: bool) -> Target:
    if runner is not None and fleet:
        raise UsageError("--runner and --fleet each name the budget's scope: choose one")
    if fleet:
        return fleet_target(ctx)
    if runner is None:
        return profile_target(ctx)
    name = runner.strip()
    if not name or len(name) > 64 or not name.isprintable():
        raise UsageError("--runner must be a printable name of 1 to 64 characters")
    return Target("runner", name)
