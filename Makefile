# cya-sim: two commands for a fresh machine with Python 3.11.
#   make run    create .venv, install cya-sim, play the default tournament (results/default)
#   make test   create/reuse .venv, install cya-sim with its test tools and RL extras, run the default test suite
# Also: make test-slow (tests marked `slow`), make lint (ruff), make docs (the documentation site into
# site/, strict: warnings are errors), make clean (remove .venv).

PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3 2>/dev/null)
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip --disable-pip-version-check

.PHONY: run test test-slow lint docs clean

run: $(VENV)/.installed
	$(BIN)/cya-sim tournament

test: $(VENV)/.installed-test
	$(BIN)/python -m pytest -n 2 --dist worksteal --durations=15

test-slow: $(VENV)/.installed-test
	$(BIN)/python -m pytest -n 2 --dist worksteal --durations=15 -m slow

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .

docs: $(VENV)/.installed-docs
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

clean:
	rm -rf $(VENV) site

$(BIN)/python:
	@test -n "$(PYTHON)" || { echo "no python3.11 or python3 on PATH; cya-sim needs Python >= 3.11" >&2; exit 1; }
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "cya-sim needs Python >= 3.11; $(PYTHON) is " + sys.version.split()[0])'
	$(PYTHON) -m venv $(VENV)

# Stamps: reinstall when pyproject.toml changes. The install is editable, so edits to
# cya_sim/ and agents/ take effect without reinstalling.
$(VENV)/.installed: $(BIN)/python pyproject.toml
	@echo "installing cya-sim and its dependencies into $(VENV) (the first time takes a few minutes)"
	$(PIP) install --quiet -e .
	@touch $@

$(VENV)/.installed-test: $(BIN)/python pyproject.toml
	@echo "installing cya-sim with its test tools into $(VENV) (the first time takes a few minutes)"
	$(PIP) install --quiet -e '.[test,rl]'
	@touch $@ $(VENV)/.installed

$(VENV)/.installed-docs: $(BIN)/python pyproject.toml
	@echo "installing cya-sim with the documentation tools into $(VENV)"
	$(PIP) install --quiet -e '.[docs]'
	@touch $@ $(VENV)/.installed
