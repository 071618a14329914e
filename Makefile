# The two set-up commands of a fresh machine are `make demo` and `make test`; both build .venv
# from this project's own files first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TS_STAMP := tests/ts/node_modules/.installed
# Six test workers on two cores: most of the suite waits (on the sandbox, on forked processes,
# on the real timeouts it tests), and two workers left the cores idle most of a run
# (docs/performance.md, "The test suite").
TEST_WORKERS ?= 6

.PHONY: demo test lint typecheck test-bytecode bench clean tools docs soak reliability

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python scripts/demo.py

test: $(STAMP) tools $(TS_STAMP)
	$(BIN)/ruff check src tests tools examples
	$(BIN)/ruff format --check src tests tools examples
	$(MAKE) --no-print-directory -j2 typecheck test-bytecode
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist worksteal --durations=10
	$(BIN)/python -m tests.reliability_report --check

# Copy the report the last full `make test` wrote (build/reliability.md) over the committed one.
reliability: $(STAMP)
	$(BIN)/python -m tests.reliability_report --publish

# Tests pipe svc into the real jq, load the completion scripts in real bash, zsh and fish,
# render the man pages with man-db, read `svc spend --format ledger` back with hledger and
# ledger (both in their strict modes), run the fleet ledger on a throw-away PostgreSQL server,
# drive `svc mcp` with the official TypeScript MCP client on Node and open the sandbox's card
# and claim pages in headless Chromium, as users do: install whatever is missing (Debian/Ubuntu).
# initdb is not on PATH: its directory is checked instead.
TOOLS := jq:jq zsh:zsh fish:fish man:man-db node:nodejs npm:npm hledger:hledger ledger:ledger chromium:chromium
tools:
	@missing=""; for pair in $(TOOLS); do command -v $${pair%%:*} >/dev/null || missing="$$missing $${pair#*:}"; done; \
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$$missing postgresql"; \
	if [ -n "$$missing" ]; then echo "installing$$missing from Debian: the tests pipe svc into jq, load its completions in zsh and fish, render its man pages, read exports back with hledger and ledger, start PostgreSQL, run the MCP TypeScript client on Node and open the sandbox's pages in Chromium"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; fi

# The MCP TypeScript SDK client and the MCP Inspector CLI at the versions the lockfile pins
# (tests/e2e/test_mcp_typescript.py drives `svc mcp` with them), and pyright, a dev dependency
# (tests/e2e/test_type_completeness.py: `pyright --verifytypes svc` at least 95 %); again only
# when it changes.
$(TS_STAMP): tests/ts/package-lock.json | tools
	npm ci --prefix tests/ts --no-audit --no-fund --loglevel=error
	touch $(TS_STAMP)

# man/ (one page per command) and completions/ (bash, zsh, fish) from the command definitions,
# plus the static completion table, the site's reference pages (docs/reference/: commands, exit
# codes, environment) and the settings table of docs/guide/configuration.md; commit the result
# (a test fails while they are stale). Then the documentation site (mkdocs.yml, the Python API
# reference rendered from the docstrings) in build/site/, not committed.
docs: $(STAMP)
	$(BIN)/python -m tools.docgen
	$(BIN)/python -m tools.gen_faces
	$(BIN)/python -m tools.settings_doc
	$(BIN)/python -m tools.reference_doc
	$(BIN)/python -m tests.fidelity
	$(BIN)/python -m tests.package_graph
	$(BIN)/mkdocs build --strict --site-dir build/site

lint: $(STAMP)
	$(BIN)/ruff check src tests tools examples
	$(BIN)/ruff format --check src tests tools examples

# Start-up, poll, paid submit, batch (1000 tasks) and watch at scale against a throw-away
# sandbox: medians and ratios next to the targets (docs/performance.md; --quick: ~1 min).
bench: $(STAMP)
	$(BIN)/python bench/run.py

typecheck: $(STAMP)
	$(BIN)/mypy

# Bytecode for the test run, written once beside mypy (which keeps one core busy). Where
# PYTHONDONTWRITEBYTECODE is set (some shells and CI images), every svc process a test starts
# compiled svc's sources again, and each of the six workers rewrote and compiled every test
# module's asserts: a worker's collection took 15 s of CPU, 7 s with pytest's own cache
# (docs/performance.md, "The test suite"). A collection error shows in the run that follows.
test-bytecode: $(STAMP)
	$(BIN)/python -m compileall -q -j 0 -x node_modules src tests tools examples
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q --collect-only -p no:cacheprovider >/dev/null 2>&1 || true

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache

# Issue 6's long randomized runs (fuzzing at 3000 examples a property, repeated crash rounds,
# a 1000-submission payment fault storm, the fault matrix): figures go to docs/reliability.md.
soak: $(STAMP)
	$(BIN)/python scripts/soak.py
