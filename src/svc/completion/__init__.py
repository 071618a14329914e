"""Shell completion and generated docs: the runtime completer (`complete`, on the hot path:
keep it lean), the `svc completion` command, the generated table, and the dev-time generators
(`table_gen`, `docgen`: man pages and completion scripts)."""
