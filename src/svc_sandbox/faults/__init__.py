"""Faults on demand: the queue a test fills through /_sandbox, and the middleware that plays
them."""
