"""`make bench`'s async_watch case: `AsyncClient.watch_many` over the task ids in a file, in one
event loop, until every task is final (or asks something).

    SVC_BASE_URL=... .venv/bin/python bench/async_watch.py IDS_FILE

Prints one line per change, `{"id": ..., "state": ...}`, as `svc watch --json` prints one task
detail per change (bench/run.py reads the last state of each task from either). The poll
interval is the environment's (SVC_POLL_INTERVAL), as the CLI's is without --interval.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import svc


async def follow(ids: list[str]) -> None:
    async with svc.AsyncClient() as client:
        async for change in client.watch_many(ids):
            print(json.dumps({"id": change.task_id, "state": change.state}))


def main() -> int:
    ids = Path(sys.argv[1]).read_text().split()
    asyncio.run(follow(ids))
    return 0


if __name__ == "__main__":
    sys.exit(main())
