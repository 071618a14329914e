"""Fan out: submit N tasks at once with svc.AsyncClient, then follow them all in one loop.

    SVC_DAILY_CAP=none python examples/fan_out.py 100 ana@example.com "Renew my library books"

Each task is the given text numbered (` (1 of 100)`): the same task for the same person twice
within a few minutes would be refused as a probable double payment. N tasks cost N x 1.50 USD,
so a fresh home's daily cap (15 USD, ten tasks) stops a larger fan-out: raise it
(SVC_DAILY_CAP=200) or remove it on purpose (SVC_DAILY_CAP=none). Settings come from the
environment and the profile exactly as for `svc`.

Prints one JSON summary on stdout (`{"tasks", "submitted", "outcomes": {state or error code:
count}}`; a submit that failed is counted under its error code) and exits 0 only if every task
completed.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections import Counter

import svc


async def fan_out(n: int, email: str, text: str) -> tuple[int, Counter[str]]:
    """Submit the N tasks concurrently, follow the accepted ones to their end; how many were
    accepted, and the outcomes: final states (or an ask) and the error codes of refused ones."""
    outcomes: Counter[str] = Counter()
    async with svc.AsyncClient() as client:
        submits = [client.submit(f"{text} ({i + 1} of {n})", email) for i in range(n)]
        # At most max_workers (8) submits run at a time; each pays and journals on its own,
        # so one refused payment fails that task alone.
        results = await asyncio.gather(*submits, return_exceptions=True)
        ids = []
        for result in results:
            if isinstance(result, svc.SvcError):
                outcomes[result.code] += 1
            elif isinstance(result, BaseException):
                raise result
            else:
                ids.append(result.id)
        print(f"submitted {len(ids)} of {n}; following them", file=sys.stderr, flush=True)
        last: dict[str, str] = {}
        async for change in client.watch_many(ids):  # one scheduler for all of them
            last[change.task_id] = change.state
        outcomes.update(last.values())
    return len(ids), outcomes


def main(argv: list[str]) -> int:
    if len(argv) != 4 or not argv[1].isdigit():
        print(__doc__, file=sys.stderr)
        return int(svc.ExitCode.USAGE)
    n, email, text = int(argv[1]), argv[2], argv[3]
    try:
        submitted, outcomes = asyncio.run(fan_out(n, email, text))
    except svc.SvcError as error:
        print(f"error: {error}", file=sys.stderr)
        return int(error.exit_code)
    summary = {"tasks": n, "submitted": submitted, "outcomes": dict(sorted(outcomes.items()))}
    print(json.dumps(summary))
    return 0 if outcomes["completed"] == n else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
