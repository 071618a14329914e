"""Local state: the config file, the secret store and the ledger."""
