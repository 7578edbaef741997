# Two commands set everything up on a machine with Python 3.11+ and make:
#   make run    the service, an embedded PostgreSQL and a demo account
#   make test   lint, types and every test
# uv installs exactly what uv.lock says into .venv, using this machine's Python
# (it never downloads an interpreter). Without uv on the PATH, it is bootstrapped
# with pip into .uv-bootstrap/.

PYTHON ?= python3
UV_VERSION := 0.13.9
UV := $(shell command -v uv 2>/dev/null || echo .uv-bootstrap/bin/uv)
VENV := .venv
export UV_PYTHON_DOWNLOADS := never
export UV_PROJECT_ENVIRONMENT := $(VENV)

.PHONY: run network test fresh-clone lint type unit contract integration e2e fuzz conformance faults browser mutate diagram catalogs sync clean

# `make run` is a developer's machine: webhooks may go to http://127.0.0.1 (`pixnotify listen`) and
# other private hosts, so PIX_WEBHOOK_ALLOW_PRIVATE is on unless the environment sets it or turns
# production mode on (PIX_PRODUCTION); `pixweb serve` itself defaults it off (docs/webhooks.md).
run: $(VENV)/.synced
	@allow=on; case "$$(printf %s "$${PIX_PRODUCTION:-}" | tr '[:upper:]' '[:lower:]')" in 1|true|yes|on) allow=off;; esac; \
	echo "PIX_WEBHOOK_ALLOW_PRIVATE=$${PIX_WEBHOOK_ALLOW_PRIVATE:-$$allow} $(VENV)/bin/pixweb serve"; \
	PIX_WEBHOOK_ALLOW_PRIVATE="$${PIX_WEBHOOK_ALLOW_PRIVATE:-$$allow}" exec $(VENV)/bin/pixweb serve

# A PIX network and two institutions on this machine (docs/network.md): `pixnet serve` on :16422,
# institution A on :8001 and B on :8002, each with its demo account; state under ./.pixnetwork.
network: $(VENV)/.synced
	$(VENV)/bin/python tools/network.py

# The suite runs in TEST_PROCESSES processes (pytest-xdist), each on a database of its own: much of
# it waits on PostgreSQL and subprocesses, so three keep a 2-core machine busy. TEST_PROCESSES=0: one.
TEST_PROCESSES ?= 3
test: lint type
	$(VENV)/bin/pytest -n $(TEST_PROCESSES) $(PYTEST_ARGS)

# Not part of `make test`: the README's promise from a fresh clone of the committed files: `make test`
# passes there (the whole suite, on the clone's own embedded PostgreSQL), and `make run` serves the
# demo, stops on Ctrl-C and starts again on its data. CI runs it instead of `make test` (no suite twice).
fresh-clone: $(VENV)/.synced
	$(VENV)/bin/pytest tests/e2e/operations/test_fresh_clone.py -m fresh_clone -s $(PYTEST_ARGS)

lint: $(VENV)/.synced
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-cache

type: $(VENV)/.synced
	$(VENV)/bin/mypy

unit: $(VENV)/.synced
	$(VENV)/bin/pytest tests/unit $(PYTEST_ARGS)

# Every port's tests on the in-memory fake and on PostgreSQL (docs/testing.md, "Contract tests");
# PYTEST_ARGS='-m "not postgres"' runs the fakes' half alone, without a database.
contract: $(VENV)/.synced
	$(VENV)/bin/pytest tests/contract $(PYTEST_ARGS)

integration: $(VENV)/.synced
	$(VENV)/bin/pytest tests/integration $(PYTEST_ARGS)

e2e: $(VENV)/.synced
	$(VENV)/bin/pytest tests/e2e $(PYTEST_ARGS)

# Schemathesis against the OpenAPI document, PIX_FUZZ_EXAMPLES examples per operation (default 300).
# Not part of `make test` (pytest deselects the `fuzz` marker unless asked for it).
fuzz: $(VENV)/.synced
	$(VENV)/bin/pytest tests/fuzz -m fuzz $(PYTEST_ARGS)

# Schemathesis with the central bank's own document (tests/conformance: as published, its own defects
# fixed in code) against the service's standard face, its four phases; PIX_CONFORMANCE_EXAMPLES
# examples per operation in the fuzzing phase (default 50).
# Not part of `make test` (pytest deselects the `conformance` marker unless asked for it).
conformance: $(VENV)/.synced
	$(VENV)/bin/pytest tests/conformance -m conformance $(PYTEST_ARGS)

# Not part of `make test` either: the service as processes, killed and cut off from its database
# under load (minutes). PIX_FAULT_OPS sets the operations per test (default 1000).
faults: $(VENV)/.synced
	$(VENV)/bin/pytest tests/faults -m faults $(PYTEST_ARGS)

# Not part of `make test` either: the web console in headless chromium (Debian's `chromium` and
# `chromium-driver`; it fails, naming them, when they are missing). Saves docs/console/*.png.
browser: $(VENV)/.synced
	$(VENV)/bin/pytest tests/browser -m browser $(PYTEST_ARGS)

# Not part of `make test` or CI either (tens of minutes): mutation testing of the money modules of
# pixcore and the ledger check against the unit suite (docs/testing.md). The ledger check's tests
# need PostgreSQL: set PIX_TEST_DATABASE_URL (otherwise each mutant of it starts an embedded one).
# MUTATE_CHILDREN: mutants tested at once (default 2); MUTANTS: a name pattern, e.g. "pixcore.money*".
MUTATE_CHILDREN ?= 2
mutate: $(VENV)/.synced
	PIX_HYPOTHESIS_PROFILE=mutate $(VENV)/bin/mutmut run --max-children $(MUTATE_CHILDREN) $(MUTANTS)
	$(VENV)/bin/mutmut results

# docs/architecture.svg from the code's imports (needs Graphviz's `dot`; a unit test checks it is current).
diagram: $(VENV)/.synced
	$(VENV)/bin/python tools/architecture.py

# The console's translations (docs/console.md): extract its texts, update each language's
# messages.po with them, compile the .mo files (a unit test checks both are complete and current).
LOCALE := src/pixweb/console/locale
catalogs: $(VENV)/.synced
	$(VENV)/bin/pybabel extract -F babel.cfg -k noop --no-location --project=pixservice -o $(LOCALE)/messages.pot .
	$(VENV)/bin/pybabel update -i $(LOCALE)/messages.pot -d $(LOCALE) --no-fuzzy-matching --ignore-obsolete --ignore-pot-creation-date
	$(VENV)/bin/pybabel compile -d $(LOCALE) --statistics

sync: $(VENV)/.synced

$(VENV)/.synced: pyproject.toml uv.lock | $(UV)
	$(UV) sync --frozen --all-extras --python "$$(command -v $(PYTHON))"
	@touch $@

.uv-bootstrap/bin/uv:
	$(PYTHON) -m venv .uv-bootstrap
	.uv-bootstrap/bin/python -m pip install --quiet --disable-pip-version-check "uv==$(UV_VERSION)"

clean:
	rm -rf $(VENV) .uv-bootstrap .pytest_cache .mypy_cache .ruff_cache mutants
