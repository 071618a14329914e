"""svc as a Python library: `svc.Client` (_sync.py) and `svc.AsyncClient` (_async.py) over
the engines the CLI and `svc mcp` use, their typed results (types.py), and the neutral answers
of svc.replies. Import them from `svc`, which loads each on first use: this package's own
modules import nothing heavy until a client is built (_work.py holds the engines' side).
"""
