# Two entry points: `make demo` (the agent on a bundled workspace) and
# `make test` (the whole suite). Both set themselves up on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DEMO_PROMPT ?= Add a shout() function to greet.py that returns the greeting in capitals, then run it.
DEMO_MODEL ?= anthropic:claude-sonnet-4-5

.PHONY: demo test lint typecheck bench deps

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
# with eglot are the real editors tests/e2e/editors drives. The suite checks each
# when it is there (CI installs them: Debian packages, root only). Each entry is
# package:command, or package:/path for a package that installs no command.
SYSTEM_PACKAGES := ripgrep:rg bubblewrap:bwrap neovim:nvim emacs-nox:emacs \
	elpa-eglot:/usr/lib/emacsen-common/packages/install/elpa-eglot
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

test: $(BIN)/.installed-local-model deps
	$(BIN)/pytest -q

lint: $(BIN)/.installed
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

bench: $(BIN)/.installed
	$(BIN)/python -m tests.bench.run_all
