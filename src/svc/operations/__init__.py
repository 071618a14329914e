"""The operations svc offers, each declared once (table.py): its request model, the engine it
calls, the document it returns and how each face (the CLI, `svc mcp`, `svc.Client`) offers it,
or why a face does not. The faces build what they show from these declarations."""
