"""Moved to `svc.errors` (errors are not an HTTP concern); kept while imports move over."""

from svc.errors import *  # noqa: F403
from svc.errors import CODES, Action, Code, error_from_response  # noqa: F401
