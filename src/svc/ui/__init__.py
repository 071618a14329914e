"""Output modes, prompts and safe rendering of server text."""
