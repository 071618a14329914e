"""Every operation svc offers, and on which face: the one table (docs/architecture.md).

An entry with `run` is served whole from its declaration (see declare.py), in a module of its
own (operations/receipt.py): adding one is that module, its engine, a test and its line here.
A face that lacks an operation says why. tests/unit/test_operations.py holds the table against
the faces as they are: every CLI command, MCP tool and Client method is in it, and every entry
on its faces.
"""

from __future__ import annotations

from typing import Any

from svc.operations.declare import Command, Missing, Operation, Tool, Written, written
from svc.operations.price import PRICE
from svc.operations.receipt import RECEIPT
from svc.operations.request import REQUEST
from svc.operations.requests import (
    WAIT_BUDGET_SECONDS,
    GuideRequest,
    QuoteRequest,
    ReplyRequest,
    SubmitRequest,
    TaskRequest,
    TasksRequest,
    WaitRequest,
)
from svc.operations.shown import GuideShown, QuoteShown, SubmitShown, TaskShown, TasksShown
from svc.operations.spend import SPEND

# Why a face lacks an operation, said once for the reasons many share.
PERSON = "the person's step"  # their key, credential, limits, ledger: not an agent's
SETUP = "machine set-up"  # config, completion: a person at a shell
SANDBOX = "sandbox only"  # the local emulator a person or a test starts
CLI = "about the CLI"
SERVER = "serves the faces"
NOT_YET = "not yet: to revisit"


SUBMIT = Operation(
    "submit",
    SubmitRequest,
    cli=Command("submit"),
    mcp=Tool(
        "submit_task",
        "Submit and pay for a task",
        "Submit a task for a person and pay its flat fee (1.50 USD per task) from this "
        "machine's wallet, within the person's payment policy (per-call price cap, daily cap, "
        "allowed rails). The person confirms each payment in the MCP client unless their "
        "profile pre-approves that price; you cannot raise any limit. Returns the task (state "
        "pending) and its request_id. To retry after an error or a lost answer, call again "
        "with the SAME request_id: it is never charged twice. Then follow the task with "
        "wait_for_task.",
        SubmitShown,
        shapes=(("task", "request_id", "rail", "replayed", "billing"), ("dry_run",)),
    ),
    library=written("submit", "submit_many", "run"),
)

GET = Operation(
    "poll",
    TaskRequest,
    cli=Command("poll"),
    mcp=Tool(
        "get_task",
        "Get a task",
        "Fetch a task once (free): its state (pending, blocked_on_user, completed, failed, "
        "cancelled), result, ask (info_request) and events. To wait for a change, use "
        "wait_for_task instead of calling this in a loop.",
        TaskShown,
        read_only=True,
    ),
    library=written("get"),
)

WAIT = Operation(
    "watch",
    WaitRequest,
    cli=Command("watch"),
    mcp=Tool(
        "wait_for_task",
        "Wait for a task",
        "Poll a task (free, at the interval the service allows: 15 s or more on a real host) "
        f"until it is final or asks something, or until timeout_seconds pass (at most "
        f"{WAIT_BUDGET_SECONDS} s a call, so no client times out: call again to keep waiting); "
        "reports progress. When the task asks for a secret (a 2FA code, a password), the person "
        "is asked for it directly by the MCP client and it is sent without you ever seeing it; "
        "then waiting goes on. Other asks (missing fields, a payment approval) are returned to "
        "you: answer with reply_to_task.",
        TaskShown,
        read_only=True,
    ),
    library=written("watch", "watch_many"),
)

REPLY = Operation(
    "reply",
    ReplyRequest,
    cli=Command("reply"),
    mcp=Tool(
        "reply_to_task",
        "Answer a task's ask",
        "Answer a task waiting on the person (state blocked_on_user). For a plain ask: "
        "message, or field plus value. For a structured ask (info_request): field_values with "
        "exactly the requested_fields and question keys, and for a payment ask decline_payment "
        "(ends the task failed, payment_rejected) or approve_payment (only re-sends an expired "
        "approval to the person's app; approval itself happens in that app). Secrets (2FA "
        "codes, passwords): give the field WITHOUT a value and the person is asked directly; "
        'in field_values, leave the secret keys out (or give them "") and send the others. A '
        "secret value from you is refused.",
        TaskShown,
    ),
    library=written("reply"),
)

QUOTE = Operation(
    "quote",
    QuoteRequest,
    cli=Command("quote"),
    mcp=Tool(
        "quote",
        "Quote a goal",
        "Ask the free advisor what a goal will cost and how to go about it (status, guide, "
        "price of the quote: 0). Costs nothing and authorizes no spending. `source` says "
        'which answer came: "advisor" (the quote), or "fallback" when the advisor is '
        "unavailable and the wallet-free guide is returned instead (not a quote).",
        QuoteShown,
        read_only=True,
    ),
    library=written("quote"),
)

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

TASKS = Operation(
    "tasks",
    TasksRequest,
    cli=Command("tasks"),
    mcp=Tool(
        "list_tasks",
        "List submitted tasks",
        "The tasks submitted from this machine (on a shared fleet ledger: by every runner), "
        "newest first, from the ledger (the service has no list call): task id, last known "
        "state, request id, payment status. States may be stale: refresh one with get_task.",
        TasksShown,
        read_only=True,
    ),
    library=written("tasks"),
)


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
