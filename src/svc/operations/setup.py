"""The machine's set-up: the config file, the check, completion, the MCP server, help.

Operations of the CLI alone (or written by hand on the library): their requests and declarations.
"""

from __future__ import annotations

import enum
from typing import Annotated, Any

from pydantic import Field

from svc.operations.declare import CLI, SERVER, SETUP, Operation, by_hand
from svc.operations.fields import Flag, Positional, Request
from svc.settings_table import FLEET_KEYS

_FLEET = ", ".join(FLEET_KEYS)  # the keys a fleet's ledger may hold, as its help names them


class ConfigGetRequest(Request):
    """One setting, by its key (the settings table's; the shell completes them)."""

    key: Annotated[str, Positional("KEY")]


class ConfigSetRequest(Request):
    """A known key and its value, checked now, into the profile in effect or the fleet's ledger."""

    key: Annotated[str, Positional("KEY")]
    value: Annotated[str, Positional("VALUE")]
    fleet: Annotated[bool, Flag("--fleet")] = Field(
        False,
        description=f"Write {_FLEET} into the fleet's shared ledger (ledger_url): every runner "
        "obeys that one value, whatever its own.",
    )


class ConfigUnsetRequest(Request):
    """A key to remove from the profile, or from the fleet's ledger."""

    key: Annotated[str, Positional("KEY")]
    fleet: Annotated[bool, Flag("--fleet")] = Field(
        False,
        description=f"Remove {_FLEET} from the fleet's shared ledger: each runner's own applies.",
    )


class ConfigListRequest(Request):
    """No arguments: every known setting of the profile in effect."""


class ConfigPathRequest(Request):
    """No arguments: the config file's path."""


class DoctorRequest(Request):
    """No arguments: every check of the set-up runs."""


MCP_HOST = "127.0.0.1"
MCP_PORT = 8765


class McpRequest(Request):
    """The profile says which wallet, policy and ledger it serves; these say how (stdio, or
    Streamable HTTP on loopback), or `token` shows the HTTP server's bearer instead."""

    action: Annotated[str | None, Positional("token")] = Field(
        None, description="token: print the HTTP bearer token (made if missing)."
    )
    http: Annotated[bool, Flag("--http")] = Field(
        False, description="Serve Streamable HTTP on loopback instead of stdio."
    )
    host: Annotated[str, Flag("--host", "ADDRESS")] = Field(
        MCP_HOST, description="With --http: a loopback address."
    )
    port: Annotated[int, Flag("--port", "N")] = Field(
        MCP_PORT, description="With --http: 0 picks one."
    )
    rotate: Annotated[bool, Flag("--rotate")] = Field(
        False, description="With token: replace the token (the old one stops working)."
    )


class Shell(enum.StrEnum):
    """The shells svc ships a completion script for."""

    BASH = "bash"
    ZSH = "zsh"
    FISH = "fish"


class CompletionShowRequest(Request):
    """Which shell's completion script: named, else the one $SHELL names."""

    shell: Annotated[Shell | None, Positional("SHELL")] = Field(
        None, description="bash, zsh or fish (default: from $SHELL)."
    )


class CompletionInstallRequest(CompletionShowRequest):
    """Which shell's completion script to install: named, else the one $SHELL names."""


class HelpRequest(Request):
    """A reference topic, a command's name, or nothing: the list of topics."""

    topic: Annotated[str | None, Positional("TOPIC")] = Field(
        None, description="exit-codes, environment, files, output, or a command's name."
    )


SETUP_OPERATIONS: tuple[Operation[Any], ...] = (
    by_hand("config get", SETUP, request=ConfigGetRequest),
    by_hand("config set", SETUP, request=ConfigSetRequest),
    by_hand("config unset", SETUP, request=ConfigUnsetRequest),
    by_hand("config list", SETUP, request=ConfigListRequest),
    by_hand("config path", SETUP, request=ConfigPathRequest),
    by_hand("doctor", SETUP, written_as="doctor", request=DoctorRequest),
    by_hand("mcp", SERVER, request=McpRequest),
)
LAST: tuple[Operation[Any], ...] = (
    by_hand("completion show", SETUP, request=CompletionShowRequest),
    by_hand("completion install", SETUP, request=CompletionInstallRequest),
    by_hand("help", CLI, request=HelpRequest),
)
