"""The service's objects and svc's parts that a face names in its annotations, handed on
from the layers below so that no face imports `svc.api` or `svc.store`."""

from __future__ import annotations

from svc.api.models import TaskDetail
from svc.store.config import ConfigFile

__all__ = ["ConfigFile", "TaskDetail"]
