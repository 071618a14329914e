"""svc_sandbox: a local, faithful emulator of the paid task-execution service.

It is the other side of the wire from the `svc` client and never imports it.
Start it with `python -m svc_sandbox serve` or `svc_sandbox.server.SandboxProcess`.
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
