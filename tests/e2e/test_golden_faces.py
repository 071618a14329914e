"""What the faces show stays what it was: `tools/list` of `svc mcp` and `--help` of every command,
held against golden copies taken before the operations were declared once.

A change to either is a decision: regenerate with `SVC_UPDATE_GOLDEN=1 pytest
tests/e2e/test_golden_faces.py` and say in the commit what changed and why. `tools/list` is
compared as JSON (a dict's key order is not part of the protocol), with each tool's order and
each schema's property order held too: hosts show them in that order.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import Cli
from tests.e2e.test_mcp_signals import _stdio_server
from tests.mcp_wire import INITIALIZED, initialize, tools_list
from tools.docgen import command_tree, walk

pytestmark = pytest.mark.e2e

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
UPDATE = os.environ.get("SVC_UPDATE_GOLDEN") == "1"


def _matches(path: Path, actual: str) -> bool:
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual)
    return path.read_text() == actual


def _listed_tools(cli: Cli) -> list[dict[str, Any]]:
    proc = _stdio_server(cli)
    assert proc.stdin is not None and proc.stdout is not None
    try:  # stdin stays open until the answer is read: at its end the server stops serving
        for message in (initialize("golden"), INITIALIZED, tools_list(2)):
            proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()
        listed: dict[str, Any] = {}
        while listed.get("id") != 2:
            listed = json.loads(proc.stdout.readline())
    finally:
        proc.kill()
        proc.communicate()
    return list(listed["result"]["tools"])


def _property_orders(tools: list[dict[str, Any]]) -> list[tuple[str, list[str], list[str]]]:
    return [
        (
            tool["name"],
            list(tool["inputSchema"].get("properties", {})),
            list(tool.get("outputSchema", {}).get("properties", {})),
        )
        for tool in tools
    ]


def test_tools_list_is_the_golden_copy(cli: Cli) -> None:
    tools = _listed_tools(cli)
    path = GOLDEN / "tools_list.json"
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(tools, indent=2, ensure_ascii=False) + "\n")
    golden = json.loads(path.read_text())
    assert tools == golden
    assert _property_orders(tools) == _property_orders(golden)


def _pages() -> list[list[str]]:
    return [node.path[1:] for node in walk(command_tree())]


@pytest.mark.parametrize("path", _pages(), ids=lambda p: " ".join(p) or "svc")
def test_help_is_the_golden_copy(cli: Cli, path: list[str]) -> None:
    result = cli(*path, "--help", env={"COLUMNS": "100", "NO_COLOR": "1", "TERM": "dumb"})
    assert result.returncode == 0, result.stderr
    name = "-".join(["svc", *path]) + ".txt"
    assert _matches(GOLDEN / "help" / name, result.stdout), f"`svc {' '.join(path)} --help` changed"
