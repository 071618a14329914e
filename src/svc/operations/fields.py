"""What a request model's field says beyond its type: its CLI spelling, its place in a call,
the faces it is not offered on. Markers in `Annotated[...]`, read by the faces that build from
the declarations; JSON Schema never sees them.

    since: Annotated[str | None, Field(None, pattern=DATE), Flag("--since")]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, TypeVar, get_args, get_origin

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, WithJsonSchema

from svc import rail_table

M = TypeVar("M")

USD_PATTERN = r"^(0|[1-9]\d{0,8})(\.\d{1,6})?$"  # the spec's budgetUsd pattern
REQUEST_ID_PATTERN = r"^[A-Za-z0-9._:-]{8,128}$"  # what `svc submit --request-id` accepts
DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}$"
WALLET_PATTERN = r"^0x[0-9a-fA-F]{40}$"  # an EVM address, the payer the ledger records


def _a_rail(name: str) -> str:
    if name not in rail_table.NAMES:
        raise ValueError(f"must be one of {', '.join(rail_table.NAMES)}")
    return name


Rail = Annotated[
    str,
    AfterValidator(_a_rail),
    WithJsonSchema({"type": "string", "enum": list(rail_table.NAMES)}),
]
Usd = Annotated[str, Field(pattern=USD_PATTERN)]
Email = Annotated[str, Field(min_length=3, max_length=254)]


TaskId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=256,
        description="The task id (task_...), as returned by submit_task or list_tasks.",
    ),
]


@dataclass(frozen=True)
class Flag:
    """The CLI's spelling of a field (`--since`, or `--notify/--no-notify` for a switch with
    both), its short form (`-e`), its metavar, and its help where a person at a shell is told
    something else than a program; `hidden` keeps an accepted flag out of --help."""

    spelling: str
    metavar: str | None = None
    help: str | None = None
    short: str | None = None
    hidden: bool = False


@dataclass(frozen=True)
class Positional:
    """The field is the call's positional argument (`svc receipt ID`, `client.receipt(id)`),
    shown as `metavar` in the CLI's help, with `help` where the CLI says it otherwise;
    `hidden` keeps it out of the usage line."""

    metavar: str | None = None
    help: str | None = None
    hidden: bool = False


@dataclass(frozen=True)
class NotIn:
    """The field is not offered on these faces ("mcp", "library", "cli")."""

    faces: tuple[str, ...]


CLI_ONLY = NotIn(("mcp", "library"))  # a spelling or option a person at a shell alone has
NOT_CLI = NotIn(("cli",))  # a field a program gives that the CLI spells another way


@dataclass(frozen=True)
class SecretInput:
    """The field carries a secret: never echoed, logged or put in argv."""


class Request(BaseModel):
    """An operation's arguments: every field declared, nothing else accepted."""

    model_config: ClassVar[ConfigDict] = ConfigDict(
        extra="forbid", populate_by_name=True, strict=True, defer_build=True
    )


def markers(model: type[BaseModel], name: str) -> list[Any]:
    """The markers on one field of `model`."""
    return list(model.model_fields[name].metadata)


def offered(model: type[BaseModel], face: str) -> list[str]:
    """The fields of `model` that `face` offers, in their declared order."""
    return [
        name
        for name in model.model_fields
        if not any(isinstance(m, NotIn) and face in m.faces for m in markers(model, name))
    ]


def is_positional(model: type[BaseModel], name: str) -> bool:
    return any(isinstance(m, Positional) for m in markers(model, name))


def marker(model: type[BaseModel], name: str, kind: type[M]) -> M | None:
    """The field's marker of `kind`, if it has one."""
    return next((m for m in markers(model, name) if isinstance(m, kind)), None)


def is_secret_field(model: type[BaseModel], name: str) -> bool:
    """Whether the field is marked secret: on itself, or on a type inside it
    (`Annotated[str, SecretInput()] | None`), the marker or its class."""
    field = model.model_fields[name]
    return any(_secret(m) for m in field.metadata) or _marked_inside(field.annotation)


def _secret(marker: object) -> bool:
    return marker is SecretInput or isinstance(marker, SecretInput)


def _marked_inside(annotation: object) -> bool:
    if get_origin(annotation) is Annotated:
        inner, *extra = get_args(annotation)
        return any(_secret(m) for m in extra) or _marked_inside(inner)
    return any(_marked_inside(arg) for arg in get_args(annotation))
