"""A tool an agent framework can register: a plain, typed, documented function over svc.Client.

Frameworks build a tool from a function's signature and docstring (the OpenAI Agents SDK's
`function_tool`, PydanticAI's `Agent(tools=[...])`, LangChain's `StructuredTool.from_function`,
an MCP server's `@tool`): `run_task` is such a function, with nothing of any framework in it. It
returns JSON-able data in every case, errors included, because a model reads the answer; it
never raises to the framework.

    python examples/agent_tool.py "Renew my library books" ana@example.com   # run the tool
    python examples/agent_tool.py --schema                                    # its JSON schema

Settings (SVC_BASE_URL, SVC_WALLET_KEY, SVC_DAILY_CAP, the profile, ...) come from the
environment and the config file exactly as for `svc`.
"""

from __future__ import annotations

import json
import sys
from typing import Any, cast

import svc


def run_task(task: str, email: str, max_price_usd: str = "1.50") -> dict[str, Any]:
    """Have the task service carry out `task` for the person at `email`, and wait for it.

    The service charges 1.50 USD per task; nothing is paid above `max_price_usd`.

    Args:
        task: what to do, in plain language (for example "Renew my library books").
        email: the e-mail address of the person the task is done for.
        max_price_usd: the most this call may pay, in USD, as a decimal string.

    Returns:
        {"task_id", "state", "result", "error"} once the task ended (state completed,
        failed or cancelled); {"task_id", "state": "blocked_on_user", "ask"} when the person
        must answer something first (tell them; the task waits); or {"error", "detail",
        "exit_code", "hint"} when svc could not run it (error "policy_refused": the price is
        above max_price_usd and nothing was paid).
    """
    try:
        with svc.Client(max_price=max_price_usd) as client:
            submitted = client.submit(task, email)
            for _ in client.watch(submitted.id):
                pass  # the last change is the task's end, or its ask
            done = client.get(submitted.id)
    except svc.SvcError as error:
        return error.to_json()  # {"error", "detail", "exit_code", "hint"?}: what --json prints
    if done.state == "blocked_on_user":
        return {"task_id": done.id, "state": done.state, "ask": describe(done.ask)}
    return {"task_id": done.id, "state": done.state, "result": done.result, "error": done.error}


def describe(ask: svc.Ask | None) -> dict[str, Any]:
    """What the task asks, as data a model can read and relay to the person."""
    if isinstance(ask, svc.PlainAsk):  # SecretAsk is one too, with sensitive=True
        kind = "secret" if ask.sensitive else "plain"
        return {"kind": kind, "field": ask.field, "message": ask.message}
    if isinstance(ask, svc.QuestionsAsk):
        return {"kind": "questions", "keys": list(ask.keys), "expires_at": ask.expires_at}
    if isinstance(ask, svc.PaymentApproval):
        amount = None if ask.amount_usd is None else str(ask.amount_usd)
        return {"kind": "payment_approval", "amount_usd": amount, "merchant": ask.merchant_name}
    return {"kind": "unknown"}


def schema() -> dict[str, Any]:
    """The tool as function-calling APIs describe one: name, description, JSON schema."""
    import inspect

    from pydantic import TypeAdapter

    # pydantic reads a function's signature as its arguments' schema (what the frameworks
    # above do too); its type stubs only name types, hence the cast.
    parameters = TypeAdapter(cast(Any, run_task)).json_schema()
    return {
        "name": run_task.__name__,
        "description": inspect.cleandoc(run_task.__doc__ or ""),
        "parameters": parameters,
    }


def main(argv: list[str]) -> int:
    if argv[1:] == ["--schema"]:
        print(json.dumps(schema(), indent=2))
        return 0
    if len(argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    print(json.dumps(run_task(*argv[1:])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
