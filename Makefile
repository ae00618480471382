# Single entry point: `make demo` runs the demo, `make test` runs the tests.
# Each creates .venv (Python 3.11) and installs the project into it on first use.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev,docs]"
	touch $@

# The browser test drives Debian's chromium (headless); install it when it is missing.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
.PHONY: install demo test lint bench browser docs
install: $(VENV)/.installed

browser:
	@command -v chromium >/dev/null || { $(SUDO) apt-get update -q && $(SUDO) apt-get install -y -q chromium; }

demo: $(VENV)/.installed
	$(BIN)/cosim run configs/demo.yaml

# The kernels' tests run a second time bounds-checked: an index past an array raises there, where
# unchecked machine code would write over memory (its cache folder is apart: jit/cache.py).
test: $(VENV)/.installed browser
	$(BIN)/python -m pytest -q -n 3 --dist worksteal
	NUMBA_BOUNDSCHECK=1 $(BIN)/python -m pytest -q -n 3 --dist worksteal -m kernels

docs: $(VENV)/.installed
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

lint: $(VENV)/.installed
	$(BIN)/ruff check .

bench: $(VENV)/.installed
	$(BIN)/python benchmarks/simbeeotic.py
