"""Submit one task, follow it to its end, answer a 2FA ask on the way, print the task as JSON.

    python examples/submit_and_wait.py "Book a table for two at 7pm #2fa" ana@example.com

Settings come from where `svc` takes them: SVC_BASE_URL, SVC_PROFILE, SVC_WALLET_KEY,
SVC_MAX_PRICE, SVC_DAILY_CAP, ... then the profile in the config file (`svc config list`).
When the task asks for a secret (an SMS code), this script reads it from stdin: a secret never
goes on a command line, where every user of the machine can read it. Progress goes to stderr,
the finished task (what `svc poll ID --json` prints) to stdout, and the exit code is the CLI's
for the same outcome (0 completed, 3 failed, 5 payment refused, 6 a person is needed, ...).
"""

from __future__ import annotations

import json
import logging
import sys

import svc


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return int(svc.ExitCode.USAGE)
    text, email = argv[1], argv[2]
    logging.basicConfig(level=logging.WARNING, format="svc: %(message)s")  # svc's warnings
    try:
        with svc.Client() as client:
            task = follow(client, text, email)
    except svc.SvcError as error:  # one class per exit code: the CLI's message and hint
        print(f"error: {error}", file=sys.stderr)
        if error.hint:
            print(f"hint: {error.hint}", file=sys.stderr)
        return int(error.exit_code)
    print(json.dumps(task.to_json()))
    if task.state == "completed":
        return int(svc.ExitCode.OK)
    if task.state == "blocked_on_user":
        return int(svc.ExitCode.HUMAN_NEEDED)
    return int(svc.ExitCode.TASK_FAILED)


def follow(client: svc.Client, text: str, email: str) -> svc.Task:
    """Submit, then watch; answer a secret ask from stdin; stop when the task is final (or
    asks for something this script cannot answer: the task is returned blocked_on_user)."""
    task = client.submit(text, email)
    paid = task.submission
    if paid is not None:  # the request id resumes this very submission after a crash
        say(f"submitted {task.id} (paid by {paid.rail}, request id {paid.request_id})")
    while True:
        for change in client.watch(task.id):
            say(f"{change.task_id}: {change.kind} {change.state}")
        task = client.get(task.id)
        ask = task.ask
        if task.is_final or not isinstance(ask, svc.SecretAsk):
            return task
        say(f"the task asks for {ask.field or 'a secret'}: reading it from stdin")
        code = sys.stdin.readline().strip()
        if not code:
            say(f"nothing on stdin; answer it later with: svc reply {task.id}")
            return task
        client.reply(task.id, svc.Secret(code))  # sent as sensitive, never logged or shown


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
