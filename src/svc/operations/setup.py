"""The machine's set-up: the config file, the check, completion, the MCP server, help.

Operations of the CLI alone (or written by hand on the library): their requests and declarations.
"""

from __future__ import annotations

from typing import Any

from svc.operations.declare import CLI, SERVER, SETUP, Operation, by_hand

SETUP_OPERATIONS: tuple[Operation[Any], ...] = (
    by_hand("config get", SETUP),
    by_hand("config set", SETUP),
    by_hand("config unset", SETUP),
    by_hand("config list", SETUP),
    by_hand("config path", SETUP),
    by_hand("doctor", SETUP, written_as="doctor"),
    by_hand("mcp", SERVER),
)
LAST: tuple[Operation[Any], ...] = (
    by_hand("completion show", SETUP),
    by_hand("completion install", SETUP),
    by_hand("help", CLI),
)
