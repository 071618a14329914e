"""The task operations of the service: submit, poll and reply, as plain HTTP calls."""

from __future__ import annotations

from typing import Any

import httpx

from svc.api import headers
from svc.api.answers import SubmitAnswer, Task, require_task_shape
from svc.api.http import Http
from svc.api.ids import path_segment, task_id_arg
from svc.api.response import expect_json
from svc.errors import WrongTaskError
from svc.kept import Kept
from svc.origin import TrustedURL, configured

TASKS_PATH = "/svc/tasks"
KEPT_URLS = 10_000  # task URLs a client keeps built (a watch polls each of its tasks again)


def task_url(base: TrustedURL, task_id: str) -> TrustedURL:
    """The task's URL; an id that is not one is refused here, before anything is sent."""
    return base.join(f"{TASKS_PATH}/{path_segment(task_id_arg(task_id), 'ID')}")


def task_answer(response: httpx.Response, asked: str, what: str) -> Task:
    """The task a poll or reply answer is about, which must be the one asked about: an answer
    about another task is refused before anything reads it (no hook, no ledger row, no
    prompt acts on a task the server chose)."""
    doc = require_task_shape(expect_json(response, what), what)
    if doc["id"] != asked:
        raise WrongTaskError(
            f"{what}: asked about task {asked}, the server answered about another task"
            f" ({doc['id']}); nothing was done with it",  # an id: is_id() checked its shape
            hint=f"`svc poll {asked}` shows the task as the service has it now",
        )
    return Task(doc)


class TaskClient:
    def __init__(self, http: Http, base_url: str) -> None:
        self.http = http
        self.base_url = base_url
        self.base: TrustedURL = configured(base_url, "the base URL")
        # Task id -> its URL through the origin gate: a watch of 1000 tasks polls each every
        # 15-60 s, and checking the same URL again each time was a tenth of a poll's own work.
        self._urls: Kept[str, TrustedURL] = Kept(KEPT_URLS)

    def url_of(self, task_id: str) -> TrustedURL:
        """The task's URL (`task_url`), built once per task id (an id that is not one is
        refused every time: nothing is kept for it)."""
        return self._urls.get(task_id, lambda task_id: task_url(self.base, task_id))

    def submit(
        self, body: dict[str, Any], request_id: str, auth: httpx.Auth | None
    ) -> SubmitAnswer:
        """One logical submission; retries re-send the same id (and, via auth, the same proof)."""
        response = self.http.send(
            "POST",
            self.base.join(TASKS_PATH),
            what="submit",
            json_body=body,
            headers={headers.REQUEST_ID: request_id},
            auth=auth,
            resend_safe=True,
        )
        return SubmitAnswer.of(response)

    def poll(self, task_id: str, auth: httpx.Auth | None = None) -> Task:
        """The task's detail (with its events)."""
        response = self.http.send(
            "GET", self.url_of(task_id), what="poll", auth=auth, resend_safe=True
        )
        return task_answer(response, task_id, "poll")

    def reply(self, task_id: str, body: dict[str, Any], auth: httpx.Auth | None = None) -> Task:
        """The task after the answer (a reply is never re-sent: it is not idempotent)."""
        response = self.http.send(
            "POST",
            task_url(self.base, task_id).join("/reply"),
            what="reply",
            json_body=body,
            auth=auth,
            resend_safe=False,
        )
        return task_answer(response, task_id, "reply")
