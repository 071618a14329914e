"""`SandboxState.get_config` hands out a copy with `dataclasses.replace` (issue 34: `asdict`'s
deep copy ran twice per paid submit): equal to the config, never the same object, and a
shallow copy is a whole one only while every field is a scalar."""

from __future__ import annotations

from dataclasses import asdict, fields

from svc_sandbox.state.config import SandboxConfig
from svc_sandbox.state.sandbox import SandboxState


def test_every_config_field_is_a_scalar() -> None:
    config = SandboxConfig()
    for field in fields(config):
        assert isinstance(getattr(config, field.name), int | str | bool | float | None), field.name


def test_get_config_is_an_equal_copy_that_changes_apart() -> None:
    state = SandboxState()
    state.update_config({"price_atomic": 2_000_000})
    copy = state.get_config()
    assert copy is not state.config and asdict(copy) == asdict(state.config)
    copy.price_atomic = 1
    assert state.get_config().price_atomic == 2_000_000
