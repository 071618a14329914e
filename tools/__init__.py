"""Dev-time generators (`make docs`): man pages, completion scripts and the completion table."""
