"""The ids a face checks as it parses, before anything is sent: a task id and a request id,
by the one rule of what an id may be (api/ids). A refusal names the argument it is given."""

from __future__ import annotations

from svc.api.ids import request_id_arg, task_id_arg

__all__ = ["request_id_arg", "task_id_arg"]
