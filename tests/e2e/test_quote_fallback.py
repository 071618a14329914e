"""A quote the advisor could not give (503) is never taken for one (issue 52): `svc quote`
exits 9 (the contract's "service unavailable") with the wallet-free guide in its JSON error
object, marked `"source": "fallback"`; a real quote stays the service's object as returned;
`svc mcp`'s quote tool says `"source"` either way, and the library raises exit 9 as the CLI."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pexpect
import pytest
from tests.conftest import SVC, Cli, Sandbox, has_jq
from tests.e2e.test_advisor import plain, spawn
from tests.e2e.test_mcp import run, served
from tests.inproc import library_home

import svc
from svc import Client

pytestmark = pytest.mark.e2e

DOWN = "Renew my books #advisor-down"


def test_a_script_piping_into_jq_tells_the_fallback_from_a_quote(
    cli: Cli, sandbox: Sandbox
) -> None:
    assert has_jq(), "jq is part of the test toolchain (make tools installs it)"

    def piped(goal: str) -> tuple[int, str]:
        shell = f"{SVC} quote '{goal}' | jq -r '.source // \"advisor\"'; exit ${{PIPESTATUS[0]}}"
        done = subprocess.run(
            ["bash", "-c", shell], capture_output=True, text=True, env=cli.env, check=False
        )
        return done.returncode, done.stdout.strip()

    assert piped("Renew my books") == (0, "advisor")
    assert piped(DOWN) == (9, "fallback")


def test_the_fallback_json_is_an_error_object_that_carries_the_guide(
    cli: Cli, sandbox: Sandbox
) -> None:
    result = cli("quote", DOWN, "--json")
    assert result.returncode == 9
    doc = result.json()
    assert doc["source"] == "fallback"
    assert (doc["error"], doc["exit_code"]) == ("advisor_unavailable", 9)
    assert "not a quote" in doc["detail"] and doc["guide"].startswith("# Quote")
    assert result.stderr.startswith("svc: the advisor is unavailable (503)")
    # With --jq, stdout stays empty on a failure (the contract): the code says it.
    shaped = cli("quote", DOWN, "--jq", ".guide")
    assert (shaped.returncode, shaped.stdout) == (9, "")
    # A real quote is the service's object as returned: its four fields, exit 0.
    real = cli.ok("quote", "Renew my books", "--json").json()
    assert set(real) == {"status", "priceUsd", "guide", "guideUrl"}


def test_a_person_sees_the_guide_then_the_line_and_exit_9(cli: Cli, sandbox: Sandbox) -> None:
    child = spawn(cli, "quote", DOWN)
    child.expect(pexpect.EOF)
    child.close()
    screen = plain(child.before or "")
    assert child.exitstatus == 9
    assert "Quote: quoted" in screen and "# Quote" not in screen  # rendered
    assert screen.index("Quote: quoted") < screen.index("svc: the advisor is unavailable (503)")


def test_the_mcp_quote_tool_names_its_source(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    async def body() -> None:
        async with served(cli, svc_mcp) as (session, _):
            quoted = await session.call_tool("quote", {"goal": "Renew my books"})
            down = await session.call_tool("quote", {"goal": DOWN})
        assert not quoted.is_error and not down.is_error
        assert quoted.structured_content is not None and down.structured_content is not None
        assert quoted.structured_content["source"] == "advisor"
        assert quoted.structured_content["quote"]["status"] == "quoted"
        assert down.structured_content["source"] == "fallback"
        assert down.structured_content["guide"]["guide"].startswith("# Quote")
        assert "quote" not in down.structured_content

    run(body)


def test_the_library_raises_exit_9_as_the_cli_exits(
    cli: Cli, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    home: Path = library_home(cli.home, sandbox.url, monkeypatch)
    assert home.exists()
    with Client() as client, pytest.raises(svc.Unavailable) as caught:
        client.quote(DOWN)
    assert int(caught.value.exit_code) == 9 == cli("quote", DOWN).returncode
    assert caught.value.code == "advisor_unavailable"
