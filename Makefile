# rankclust: the two commands a new machine needs are `make demo` and `make test`.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev
STAMP_RUN := $(VENV)/.installed

.PHONY: demo test lint format bench docs fuzz clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP_RUN): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $@ $(STAMP_RUN)

demo: $(STAMP_RUN)
	$(BIN)/rankclust demo --plots demo_output

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q

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
	$(BIN)/python -m pip install --quiet -e ".[bench]"
	$(BIN)/python benchmarks/run_all.py --peers-python $(PEERS)/bin/python

fuzz: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[fuzz]"
	PYTHON=$(BIN)/python fuzz/run.sh $(or $(FUZZ_SECONDS),60)

docs: $(STAMP)
	$(BIN)/mkdocs build --strict

clean:
	rm -rf $(VENV) $(PEERS) build dist *.egg-info demo_output site
