"""`svc mcp`: the CLI's tasks, wallet, payment policy and ledger as an MCP server for agents.

Imported only by `svc mcp` (the MCP SDK is heavy and `svc --help` / `svc poll` stay lean).
The person stays in the loop through MCP elicitation: paid calls are confirmed by them (unless
their profile pre-approves a price), and secrets a task asks for are typed by them, never by
the model.
"""
