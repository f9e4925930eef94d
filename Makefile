# Two entry points: `make demo` (the agent on a bundled workspace) and
# `make test` (the whole suite). Both set themselves up on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DEMO_PROMPT ?= Add a shout() function to greet.py that returns the greeting in capitals, then run it.
DEMO_MODEL ?= anthropic:claude-sonnet-4-5

.PHONY: demo test python-test vscode-test lint typecheck bench bench-peers deps

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

# The suite also runs a real local model: llama-cpp-python builds from source
# once (about 8 minutes on 2 cores; pip keeps the wheel), without the native
# CPU flags that crash on some machines.
$(BIN)/.installed-local-model: $(BIN)/.installed
	CMAKE_ARGS="-DGGML_NATIVE=OFF" $(BIN)/pip install -q -e '.[dev,local-model]'
	touch $@

# ripgrep makes search fast and bubblewrap sandboxes commands; neovim and emacs
# with eglot are the real editors tests/e2e/editors drives (package-lint checks
# agentls.el as a package). The suite checks each
# when it is there (CI installs them: Debian packages, root only). Each entry is
# package:command, or package:/path for a package that installs no command.
# The VS Code client's end-to-end run needs chromium, and the build libraries
# code-server's native modules compile against (vscode-client/README.md).
SYSTEM_PACKAGES := ripgrep:rg bubblewrap:bwrap neovim:nvim emacs-nox:emacs \
	elpa-eglot:/usr/lib/emacsen-common/packages/install/elpa-eglot \
	elpa-package-lint:/usr/lib/emacsen-common/packages/install/elpa-package-lint \
	chromium:chromium g++:g++ pkg-config:pkg-config libkrb5-dev:/usr/include/krb5.h \
	libx11-dev:/usr/include/X11/Xlib.h libxkbfile-dev:/usr/include/X11/extensions/XKBfile.h \
	libsecret-1-dev:/usr/include/libsecret-1/libsecret/secret.h
deps:
	@missing=""; for pair in $(SYSTEM_PACKAGES); do check=$${pair#*:}; \
	  case $$check in /*) [ -e "$$check" ] ;; *) command -v $$check >/dev/null 2>&1 ;; esac \
	    || missing="$$missing $${pair%%:*}"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else echo "note: not installed:$$missing; their tests will be skipped"; fi; fi

demo: $(BIN)/.installed
	rm -rf .demo-workspace && cp -r server/data/demo/workspace .demo-workspace
	@if [ -n "$$ANTHROPIC_API_KEY" ]; then model="$(DEMO_MODEL)"; else model="scripted:demo"; fi; \
	echo "+ agentls ask \"$(DEMO_PROMPT)\" --workspace .demo-workspace --model $$model --yes"; \
	$(BIN)/agentls ask "$(DEMO_PROMPT)" --workspace .demo-workspace --model $$model --yes

# The VS Code part first, so the Python suite's summary is the closing line.
test: vscode-test python-test

# The ACP tests drive `agentls acp` with the official TypeScript SDK too.
ACP_NODE := tests/e2e/acp/node
$(ACP_NODE)/node_modules/.installed: $(ACP_NODE)/package.json $(ACP_NODE)/package-lock.json
	cd $(ACP_NODE) && npm ci --prefer-offline --no-audit --no-fund
	touch $@

# So does acpx, the headless ACP client (editors/acpx). `npm install` keeps to its lock;
# `npm ci` refuses it, since a dependency of acpx names platform packages never published.
ACPX_NODE := tests/e2e/acp/acpx
$(ACPX_NODE)/node_modules/.installed: $(ACPX_NODE)/package.json $(ACPX_NODE)/package-lock.json
	cd $(ACPX_NODE) && npm install --prefer-offline --no-audit --no-fund
	touch $@

# The language-intelligence tests and benchmark run a real typescript-language-server
# (basedpyright and ruff come from the dev extras).
INTEL_NODE := tests/e2e/intelligence/node
$(INTEL_NODE)/node_modules/.installed: $(INTEL_NODE)/package.json $(INTEL_NODE)/package-lock.json
	cd $(INTEL_NODE) && npm ci --prefer-offline --no-audit --no-fund
	touch $@

python-test: $(BIN)/.installed-local-model deps $(ACP_NODE)/node_modules/.installed \
	$(ACPX_NODE)/node_modules/.installed $(INTEL_NODE)/node_modules/.installed
	$(BIN)/pytest -q

# The VS Code client: bundle, unit tests (node:test), .vsix, then one session in
# a real VS Code (code-server, cached outside the clone) driven by Playwright.
VSCODE := vscode-client
$(VSCODE)/node_modules/.installed: $(VSCODE)/package.json $(VSCODE)/package-lock.json
	cd $(VSCODE) && npm ci --prefer-offline --no-audit --no-fund
	touch $@

vscode-test: $(BIN)/.installed deps $(VSCODE)/node_modules/.installed
	cd $(VSCODE) && npm run build && npm test && npm run package && npm run e2e

lint: $(BIN)/.installed
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

bench: $(BIN)/.installed $(INTEL_NODE)/node_modules/.installed
	$(BIN)/python -m tests.bench.run_all

# agentls beside Claude Code, Codex CLI, Qwen Code and the Copilot language server, on one
# task against the fake model servers (the agents install from npm into a cache folder
# outside the clone on the first run; only loopback is reached). Not part of `make test`.
bench-peers: $(BIN)/.installed
	$(BIN)/python -m tests.bench.bench_peers
