"""The public OpenAPI document: built from FastAPI's and completed by hand where FastAPI cannot
see (the routes that read their bodies themselves)."""
