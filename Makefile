# rankclust: the two commands a new machine needs are `make demo` and `make test`.
# Both install the exact versions of requirements-lock.txt (pip constraints, which also pin the
# build backend pip uses for the editable install); `make lock` regenerates it from the newest
# versions pyproject.toml allows, and `make test-latest` runs the suite on those without the lock.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev
STAMP_RUN := $(VENV)/.installed
LOCK := requirements-lock.txt
# PIP_CONSTRAINT (not -c) so that the isolated build environment is pinned too
PIP_LOCKED = PIP_CONSTRAINT="$(CURDIR)/$(LOCK)" $(1)/python -m pip install --quiet

.PHONY: demo test test-latest lock lint format bench docs fuzz clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(call PIP_LOCKED,$(BIN)) --upgrade pip

$(STAMP_RUN): pyproject.toml $(LOCK) | $(BIN)/python
	$(call PIP_LOCKED,$(BIN)) -e .
	touch $@

$(STAMP): pyproject.toml $(LOCK) | $(BIN)/python
	$(call PIP_LOCKED,$(BIN)) -e ".[dev]"
	touch $@ $(STAMP_RUN)

# numba compiles a kernel at its first call and caches it: compile the demo's kernels once,
# in two processes in parallel (tools/precompile.py), so the first demo runs as fast as later
# ones (a changed source is recompiled at its next call whatever this stamp says)
COMPILED := $(VENV)/.compiled
$(COMPILED): $(STAMP_RUN) $(shell find src -name '*.py' 2>/dev/null)
	$(BIN)/python tools/precompile.py
	touch $@

demo: $(COMPILED)
	$(BIN)/rankclust demo --plots demo_output

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q

# The lock: a new environment with the newest versions the ranges allow, frozen whole
# (pip, setuptools and wheel included, the editable rankclust left out).
LOCK_VENV := .venv-lock
lock:
	rm -rf $(LOCK_VENV)
	$(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/python -m pip install --quiet --upgrade pip setuptools wheel
	$(LOCK_VENV)/bin/python -m pip install --quiet -e ".[dev]"
	{ echo "# Exact versions for make demo / make test (Python 3.11, Linux). Regenerate: make lock"; \
	  $(LOCK_VENV)/bin/python -m pip freeze --all --exclude-editable | LC_ALL=C sort -f; } > $(LOCK)
	rm -rf $(LOCK_VENV)

# The newest versions the ranges in pyproject.toml allow, in their own environment: a release
# that breaks rankclust shows up here as a named failing test before it reaches the lock.
LATEST := .venv-latest
test-latest:
	rm -rf $(LATEST)
	$(PYTHON) -m venv $(LATEST)
	$(LATEST)/bin/python -m pip install --quiet --upgrade pip setuptools wheel
	$(LATEST)/bin/python -m pip install --quiet --upgrade -e ".[dev]"
	$(LATEST)/bin/python -m pip freeze --exclude-editable > $(LATEST)/versions.txt
	$(LATEST)/bin/python -m pytest -n 2 -q -p no:cacheprovider

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# scikit-lr 0.3 needs Python >= 3.13: the peers get their own environment (DESIGN.md section 8).
PEERS_PYTHON ?= $(shell PYENV_VERSION=3.13.0 python3.13 -c 'import sys; print(sys.executable)' 2>/dev/null || command -v python3.13)
PEERS := .venv-peers

$(PEERS)/.installed:
	$(PEERS_PYTHON) -m venv $(PEERS)
	$(PEERS)/bin/python -m pip install --quiet scikit-lr==0.3.0
	touch $@

bench: $(STAMP) $(PEERS)/.installed
	$(call PIP_LOCKED,$(BIN)) -e ".[bench]"
	$(BIN)/python benchmarks/run_all.py --peers-python $(PEERS)/bin/python

fuzz: $(STAMP)
	$(call PIP_LOCKED,$(BIN)) -e ".[fuzz]"
	PYTHON=$(BIN)/python fuzz/run.sh $(or $(FUZZ_SECONDS),60)

docs: $(STAMP)
	PYTHONPATH=src $(BIN)/mkdocs build --strict

clean:
	rm -rf $(VENV) $(PEERS) $(LATEST) $(LOCK_VENV) build dist *.egg-info demo_output site
