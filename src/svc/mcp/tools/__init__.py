"""The MCP tools, thin over the engines the commands use: `submit_task` over the paid
submission, `get_task`/`wait_for_task` over the task client, `reply_to_task` over the reply
body builder, `quote`/`guide`/`list_tasks`/`spend` over the advisor, the ledger's rows and the
spend report. What is theirs alone is MCP's: the person's confirmation by elicitation, the
vault's scrubbing, and texts that quote the service's words."""
