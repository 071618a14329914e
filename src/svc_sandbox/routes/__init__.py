"""The HTTP routes, thin over the logic in the other packages: the task API, the advisor,
discovery, the identity platform, the card pages, and the test controls under /_sandbox."""
