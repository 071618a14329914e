"""`request_origins` written by `svc config set` is read back by every command: the file holds
it as a TOML list, as it holds the other list settings (it held a list the reader refused, and
every command of the profile, `config unset` included, exited 2)."""

from __future__ import annotations

import pytest
from tests.conftest import Cli

pytestmark = pytest.mark.e2e


def test_request_origins_round_trips_through_the_config_file(cli: Cli) -> None:
    cli.ok("config", "set", "request_origins", "https://a.example,http://127.0.0.1:9")
    got = cli.ok("config", "get", "request_origins", "--json").json()
    assert "https://a.example" in str(got) and "http://127.0.0.1:9" in str(got)
    cli.ok("tasks", "--json")  # any command reads the profile
    cli.ok("config", "unset", "request_origins")
    cli.ok("tasks", "--json")
