"""The answer form of `svc watch`, run in its own thread so polling goes on while it is open.

The main thread keeps polling; when the task no longer needs the answer (answered elsewhere,
approved in the app, expired, ended) it sets `cancel`, the prompt gives up
(`svc.ui.prompts.PromptCancelled`) and the watch says why. A payment approval is not a
question: the person sees a waiting line and may leave it to the approval app (Enter) or
decline, which needs a second, explicit yes.
"""

from __future__ import annotations

import threading
from typing import Any

from svc import words
from svc.replies import Approve, Decline
from svc.sanitize import clean
from svc.ui import form, prompts

LEAVE = "leave"  # the person leaves a payment to the approval app: nothing to send


class FormSession:
    def __init__(self, task: dict[str, Any], waiting_line: str) -> None:
        self.task = task
        self.task_id: str = str(task["id"])
        self.waiting_line = waiting_line
        self.cancel: threading.Event = threading.Event()
        self.done: threading.Event = threading.Event()
        self.body: dict[str, Any] | str | None = None  # a reply body, LEAVE, or None
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="svc-form", daemon=True)
        self._thread.start()

    def withdraw(self, timeout: float = 1.0) -> None:
        """Close the prompt and wait (briefly) until the terminal is restored."""
        self.cancel.set()
        self._thread.join(timeout)

    def _run(self) -> None:
        try:
            with prompts.cancellable(self.cancel):
                self.body = self._form()
        except prompts.PromptCancelled:
            self.body = None
        except BaseException as exc:  # handed to the main thread, which raises it
            self.error = exc
        finally:
            self.done.set()

    def _form(self) -> dict[str, Any] | str:
        from svc.api.models import TaskDetail

        detail = TaskDetail.model_validate(self.task)
        ask = detail.info_request
        if ask is not None and ask.is_payment_ask and not ask.required_keys():
            return self._payment(detail)
        from svc.engines.asks import read_ask
        from svc.engines.reply import body_for
        from svc.ui.reply_form import answer_from_form

        prompts.say(self.waiting_line)  # what is asked and the time left, before the form
        answer = answer_from_form(detail)
        return body_for(read_ask(detail), answer)

    def _payment(self, detail: Any) -> dict[str, Any] | str:
        """The payment decision, asked as `svc reply` asks it (ui/form.py)."""
        from svc.engines.asks import read_ask
        from svc.engines.reply import body_for

        ask = detail.info_request
        amount = "" if ask.amount_usd is None else f" of {words.usd(ask.amount_usd)}"
        merchant = clean(ask.merchant_name or "the merchant", 100, single_line=True)
        if ask.payment_status == "approval_expired":
            if form.resend_expired_approval(amount, merchant):
                return body_for(read_ask(detail), Approve())
            return LEAVE
        prompts.say(self.waiting_line)
        if form.decline_payment(amount, merchant):
            return body_for(read_ask(detail), Decline())
        return LEAVE
