"""The service's discovery documents: its OpenAPI, services, manifest and llms.txt.

Operations of the CLI alone (or written by hand on the library): their requests and declarations.
"""

from __future__ import annotations

from typing import Any

from svc.operations.declare import NOT_YET, Operation, by_hand

DISCOVERY: tuple[Operation[Any], ...] = (
    by_hand("api search", NOT_YET, NOT_YET),
    by_hand("api get", NOT_YET, NOT_YET),
    by_hand("services", NOT_YET, NOT_YET),
    by_hand("services show", NOT_YET, NOT_YET),
    by_hand("manifest", NOT_YET, NOT_YET),
    by_hand("llms", NOT_YET, NOT_YET),
)
