"""Every operation svc offers, and on which face: the one table (docs/architecture.md).

An entry with `run` is served whole from its declaration (see declare.py), in a module of its
own (operations/receipt.py): adding one is that module, its engine, a test and its line here.
A command written by hand reads its options from its request, declared in its operation's
module (operations/submit.py) or its group's (operations/wallet.py). A face that lacks an
operation says why. tests/unit/test_operations.py holds the table against the faces as they
are: every CLI command, MCP tool and Client method is in it, every entry on its faces, and
every command's options are its request's fields.
"""

from __future__ import annotations

from typing import Any

from svc.operations.budget import BUDGET
from svc.operations.declare import Operation
from svc.operations.discovery import DISCOVERY
from svc.operations.guide import GUIDE
from svc.operations.identity import IDENTITY
from svc.operations.poll import GET
from svc.operations.price import PRICE
from svc.operations.quote import QUOTE
from svc.operations.receipt import RECEIPT
from svc.operations.reply import REPLY
from svc.operations.request import REQUEST
from svc.operations.sandbox import SANDBOX_OPERATIONS
from svc.operations.setup import LAST, SETUP_OPERATIONS
from svc.operations.spend import SPEND
from svc.operations.submit import SUBMIT
from svc.operations.tasks import KEPT, TASKS
from svc.operations.wallet import WALLET
from svc.operations.watch import WAIT

OTHERS: tuple[Operation[Any], ...] = (
    *BUDGET,
    *WALLET,
    *IDENTITY,
    *DISCOVERY,
    *KEPT,
    *SETUP_OPERATIONS,
    *SANDBOX_OPERATIONS,
    *LAST,
)

# The operations `svc mcp` lists, in the order it lists them.
TOOLS: tuple[Operation[Any], ...] = (SUBMIT, GET, WAIT, REPLY, QUOTE, GUIDE, TASKS, SPEND, RECEIPT)

# Tools `svc mcp` lists only when the person allowed what they reach (`paid_request`: the
# origins in request_origins); with nothing allowed, the tool does not exist for the agent.
GATED_TOOLS: tuple[Operation[Any], ...] = (REQUEST,)

# Every operation: the tools first, in the order the library's generated methods follow.
OPERATIONS: tuple[Operation[Any], ...] = (*TOOLS, PRICE, REQUEST, *OTHERS)
