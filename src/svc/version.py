"""The version of svc: its one place (pyproject reads it; svc.__version__ hands it on)."""

__version__ = "0.1.0"
