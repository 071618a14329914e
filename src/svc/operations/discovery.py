"""The service's discovery documents: its OpenAPI, services, manifest and llms.txt.

Operations of the CLI alone (or written by hand on the library): their requests and declarations.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from svc.operations.declare import NOT_YET, Operation, by_hand
from svc.operations.fields import Flag, Positional, Request


class ApiSearchRequest(Request):
    """Words to rank the operations by, exact filters, and which page (or every one)."""

    query: Annotated[str | None, Positional("QUERY")] = Field(
        None, description="Words to search for."
    )
    method: Annotated[str | None, Flag("--method", "M", short="-X")] = Field(
        None, description="Only this HTTP method (exact)."
    )
    path: Annotated[str | None, Flag("--path", "P")] = Field(
        None, description="Only this path template (exact), e.g. /svc/tasks/{ticket_id}."
    )
    page: Annotated[int | None, Flag("--page", "N")] = Field(None, description="Show page N.")
    all_pages: Annotated[bool, Flag("--all")] = Field(False, description="Follow every next page.")


class ApiGetRequest(Request):
    """One path template of the description, and of its methods one or all."""

    path: Annotated[str, Positional("PATH")] = Field(
        description="The path template, e.g. /svc/tasks."
    )
    method: Annotated[str | None, Flag("--method", "M", short="-X")] = Field(
        None, description="Only this HTTP method."
    )


class ServicesRequest(Request):
    """No arguments: every service the seller offers."""


class ServicesShowRequest(Request):
    """One service, by its slug."""

    slug: Annotated[str, Positional("SLUG")] = Field(description="Service slug, e.g. tasks.")


class ManifestRequest(Request):
    """No arguments: the whole live catalog."""


class LlmsRequest(Request):
    """The short agent guide, or the full one."""

    full: Annotated[bool, Flag("--full")] = Field(
        False, description="The full guide, /llms-full.txt."
    )


DISCOVERY: tuple[Operation[Any], ...] = (
    by_hand("api search", NOT_YET, NOT_YET, request=ApiSearchRequest),
    by_hand("api get", NOT_YET, NOT_YET, request=ApiGetRequest),
    by_hand("services", NOT_YET, NOT_YET, request=ServicesRequest),
    by_hand("services show", NOT_YET, NOT_YET, request=ServicesShowRequest),
    by_hand("manifest", NOT_YET, NOT_YET, request=ManifestRequest),
    by_hand("llms", NOT_YET, NOT_YET, request=LlmsRequest),
)
