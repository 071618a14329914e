"""Multi-step operations that tie the wire, payment and local state together."""
