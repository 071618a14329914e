"""`guide`: the advisor's wallet-free guide for a goal.

Its arguments and its declaration on each face; the faces drive it by their own code.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from svc.operations.declare import Command, Operation, Tool, written
from svc.operations.fields import Positional, Request
from svc.operations.shown import GuideShown


class GuideRequest(Request):
    goal: Annotated[
        str,
        Field(min_length=1, max_length=2000),
        Positional("GOAL", help="The goal in natural language."),
    ]


GUIDE = Operation(
    "guide",
    GuideRequest,
    cli=Command("guide"),
    mcp=Tool(
        "guide",
        "Wallet-free guide",
        "The advisor's wallet-free guide (Markdown) for a goal: free, no wallet, no proof.",
        GuideShown,
        read_only=True,
    ),
    library=written("guide"),
)
