"""svc.sanitize, where ui's callers have always found it: the module moved to the core (it
touches no terminal) so that engines use it without importing svc.ui."""

from svc.sanitize import DEFAULT_LIMIT, FORMAT_CHARACTERS, clean

__all__ = ["DEFAULT_LIMIT", "FORMAT_CHARACTERS", "clean"]
