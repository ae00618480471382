# Single entry point: `make demo` runs the demo, `make test` runs the tests.
# Each creates .venv (Python 3.11) and installs the project into it on first use.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $@

.PHONY: install demo test lint bench
install: $(VENV)/.installed

demo: $(VENV)/.installed
	$(BIN)/cosim run configs/demo.yaml

test: $(VENV)/.installed
	$(BIN)/python -m pytest -q

lint: $(VENV)/.installed
	$(BIN)/ruff check .

bench: $(VENV)/.installed
	$(BIN)/python benchmarks/simbeeotic.py
