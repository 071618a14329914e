"""Every operation svc offers, and on which face: the one table (docs/architecture.md).

An entry with `run` is served whole from its declaration (see declare.py), in a module of its
own (operations/receipt.py): adding one is that module, its engine, a test and its line here.
A face that lacks an operation says why. tests/unit/test_operations.py holds the table against
the faces as they are: every CLI command, MCP tool and Client method is in it, and every entry
on its faces.
"""

from __future__ import annotations

from typing import Any

from svc.operations.declare import Command, Missing, Operation, Written, written
from svc.operations.guide import GUIDE
from svc.operations.poll import GET
from svc.operations.price import PRICE
from svc.operations.quote import QUOTE
from svc.operations.receipt import RECEIPT
from svc.operations.reply import REPLY
from svc.operations.request import REQUEST
from svc.operations.spend import SPEND
from svc.operations.submit import SUBMIT
from svc.operations.tasks import TASKS
from svc.operations.watch import WAIT

# Why a face lacks an operation, said once for the reasons many share.
PERSON = "the person's step"  # their key, credential, limits, ledger: not an agent's
SETUP = "machine set-up"  # config, completion: a person at a shell
SANDBOX = "sandbox only"  # the local emulator a person or a test starts
CLI = "about the CLI"
SERVER = "serves the faces"
NOT_YET = "not yet: to revisit"


def _shell(path: str, mcp: str, library: str = "", *, written_as: str = "") -> Operation[Any]:
    """An operation whose CLI command is written by hand and that another face lacks (or
    offers by hand: `written_as`)."""
    face: Missing | Written = written(written_as) if written_as else Missing(library or mcp)
    return Operation(path, None, Command(path), Missing(mcp), face)


OTHERS: tuple[Operation[Any], ...] = (
    _shell("budget", PERSON, written_as="budgets"),
    _shell("budget set", PERSON),
    _shell("budget unset", PERSON),
    _shell("budget reset-breaker", PERSON),
    _shell("pay card", "a person's page", written_as="pay_card"),
    _shell("wallet create", PERSON),
    _shell("wallet import", PERSON),
    _shell("wallet address", PERSON),
    _shell("wallet list", PERSON),
    _shell("identity register", PERSON, written_as="identity.register"),
    _shell("identity claim", PERSON, written_as="identity.claim"),
    _shell("identity refresh", PERSON, written_as="identity.refresh"),
    _shell("identity logout", PERSON, written_as="identity.logout"),
    _shell("identity status", NOT_YET, written_as="identity.status"),
    _shell("entitlements", NOT_YET, NOT_YET),
    _shell("api search", NOT_YET, NOT_YET),
    _shell("api get", NOT_YET, NOT_YET),
    _shell("services", NOT_YET, NOT_YET),
    _shell("services show", NOT_YET, NOT_YET),
    _shell("manifest", NOT_YET, NOT_YET),
    _shell("llms", NOT_YET, NOT_YET),
    _shell("tasks forget", PERSON, PERSON),
    _shell("tasks prune", PERSON, PERSON),
    _shell("config get", SETUP),
    _shell("config set", SETUP),
    _shell("config unset", SETUP),
    _shell("config list", SETUP),
    _shell("config path", SETUP),
    _shell("doctor", SETUP, written_as="doctor"),
    _shell("mcp", SERVER),
    _shell("sandbox serve", SANDBOX),
    _shell("sandbox approve", SANDBOX),
    _shell("sandbox claim-code", SANDBOX),
    _shell("sandbox mint-id-jag", SANDBOX),
    _shell("sandbox pay-card", SANDBOX),
    _shell("sandbox tags", SANDBOX),
    _shell("completion show", SETUP),
    _shell("completion install", SETUP),
    _shell("help", CLI),
)

# The operations `svc mcp` lists, in the order it lists them.
TOOLS: tuple[Operation[Any], ...] = (SUBMIT, GET, WAIT, REPLY, QUOTE, GUIDE, TASKS, SPEND, RECEIPT)

# Tools `svc mcp` lists only when the person allowed what they reach (`paid_request`: the
# origins in request_origins); with nothing allowed, the tool does not exist for the agent.
GATED_TOOLS: tuple[Operation[Any], ...] = (REQUEST,)

# Every operation: the tools first, in the order the library's generated methods follow.
OPERATIONS: tuple[Operation[Any], ...] = (*TOOLS, PRICE, REQUEST, *OTHERS)
