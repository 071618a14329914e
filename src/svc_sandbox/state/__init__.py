"""The sandbox's state: the whole SandboxState, its clock, config, task records and request log."""
