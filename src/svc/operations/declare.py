"""What an operation's declaration holds, face by face.

An operation with `run` is served whole from its declaration: `svc mcp` validates the
arguments against the request model's schema and answers `run`'s document with `text`'s words,
and `svc.Client` gets a generated method (tools/gen_faces.py) that returns `result`. One
without `run` (a paid submit, a wait that asks the person) is driven by each face's own code,
which the face names beside the declaration; its schema and its words still come from here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from svc.context import AppContext
from svc.engines.validate import build

Q = TypeVar("Q", bound=BaseModel)
Document = dict[str, Any]


@dataclass(frozen=True)
class Missing:
    """A face that rightly lacks the operation, and why (a test lists every gap)."""

    why: str


# Why a face lacks an operation, said once for the reasons many share.
PERSON = "the person's step"  # their key, credential, limits, ledger: not an agent's
SETUP = "machine set-up"  # config, completion: a person at a shell
SANDBOX = "sandbox only"  # the local emulator a person or a test starts
CLI = "about the CLI"
SERVER = "serves the faces"
NOT_YET = "not yet: to revisit"


@dataclass(frozen=True)
class Command:
    """The CLI's command (`"identity register"`): built in svc.commands by hand, or, with
    `help`, from the declaration (svc.cli.declared), its one-line `summary` in `svc --help`."""

    path: str
    summary: str = ""
    help: str = ""

    @property
    def declared(self) -> bool:
        return bool(self.help)


@dataclass(frozen=True)
class Tool:
    """The MCP tool: its name, title and description for the model, and the model of its
    structured content (its outputSchema)."""

    name: str
    title: str
    description: str
    output: type[Any]  # a TypedDict or a pydantic model
    read_only: bool = False
    shapes: tuple[tuple[str, ...], ...] = ()  # content holds all the keys of one of these


@dataclass(frozen=True)
class Method:
    """The library's method on `Client` (and, as a coroutine, on `AsyncClient`)."""

    name: str
    doc: str


@dataclass(frozen=True)
class Written:
    """Library methods written by hand in svc.client (a paid submit's overloads, an iterator
    of changes): their arguments are the face's own. `names` as a program calls them
    (`identity.claim` for `client.identity.claim`)."""

    names: tuple[str, ...]


def written(*names: str) -> Written:
    return Written(names)


@dataclass(frozen=True)
class Operation(Generic[Q]):
    name: str
    request: type[Q] | None
    cli: Command | Missing
    mcp: Tool | Missing
    library: Method | Written | Missing
    run: Callable[[AppContext, Q], Document] | None = None
    result: type[BaseModel] | None = None  # the library's model of run's document
    text: Callable[[Document], str] | None = None  # run's document in a line or two

    def call(self, app: AppContext, arguments: dict[str, Any]) -> Document:
        """Run the operation on `arguments` (already valid against the request's schema)."""
        if self.run is None or self.request is None:
            raise TypeError(f"{self.name} is driven by each face's own code")
        return self.run(app, build(self.request, f"arguments for {self.name}", **arguments))


def by_hand(
    path: str,
    mcp: str,
    library: str = "",
    *,
    written_as: str = "",
    request: type[Q] | None = None,
) -> Operation[Q]:
    """An operation whose CLI command is written by hand (its options read from `request`)
    and that another face lacks, saying why (or offers by hand: `written_as`)."""
    face: Missing | Written = written(written_as) if written_as else Missing(library or mcp)
    return Operation(path, request, Command(path), Missing(mcp), face)
