"""Agent identity: the credential store, the identity platform client, the bearer step."""
