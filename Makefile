# Every target creates .venv on first use and installs the project into it.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test soak lint format bench clean agent-clients

# The agent harnesses tests/agents drives (OpenCode, Claude Code), pinned in its
# package-lock.json and installed on first use when npm is there; without npm those tests skip
# with the reason (and fail on CI, where .ci/run installs npm).
AGENT_CLIENTS := tests/agents/node_modules/.package-lock.json

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

demo:
	@[ $(STAMP) -nt pyproject.toml ] || echo "make demo: installing Tether and its dependencies into $(VENV) with pip (first run only, about a minute)..."
	@$(MAKE) --no-print-directory -s $(STAMP)
	$(BIN)/python -m demo

test: $(STAMP)
	@if command -v npm >/dev/null 2>&1; then $(MAKE) --no-print-directory agent-clients; \
	else echo "note: npm not found; the agent-client tests (tests/agents) will skip"; fi
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest -q

agent-clients: $(AGENT_CLIENTS)

$(AGENT_CLIENTS): tests/agents/package-lock.json
	@# npm ci refuses this lock (npm leaves the other platforms' optional binaries out of it), so
	@# install from the lock without rewriting it.
	cd tests/agents && npm install --no-save --no-audit --no-fund --loglevel=error
	@touch $@

soak: $(STAMP)
	$(BIN)/python -m pytest -q -s -m soak tests/reliability

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: $(STAMP)
	$(BIN)/python -m bench.run

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info

# The VS Code extension (vscode-client/): unit tests under Node's test runner, and the
# end-to-end test in a real VS Code (code-server + Chromium; installs its tools on first use
# into vscode-client/.e2e-tools/). SCREENSHOT=docs/images/vscode.png refreshes the README image.
.PHONY: vscode-unit test-vscode

vscode-client/node_modules/.package-lock.json: vscode-client/package-lock.json
	cd vscode-client && npm ci --no-audit --no-fund

vscode-unit: vscode-client/node_modules/.package-lock.json
	cd vscode-client && npm test

test-vscode: $(STAMP) vscode-unit
	TETHER=$(CURDIR)/$(BIN)/tether E2E_SCREENSHOT_COPY=$(if $(SCREENSHOT),$(CURDIR)/$(SCREENSHOT)) \
		bash vscode-client/e2e/run.sh
