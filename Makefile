# lostcards: `make report` and `make test` are all a newcomer needs.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# the tests keep Python's bytecode (and pytest its rewritten test modules) even where the shell sets
# PYTHONDONTWRITEBYTECODE: a warm run then imports compiled modules in every worker and subprocess
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -q -n 2 --dist worksteal
YARDSTICK ?= ../shared/yardstick
LADDER_BOTS ?= expert,improve,student,search:iterations=1000,greedy,random
RULE_TWEAKS_ARGS ?= --depth-deals 100 --budgets 250,500,1000,2000,4000

.PHONY: install lint test test-slow bench profile report ladder clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,dask]'
	touch $(STAMP)

install: $(STAMP)  ## create .venv and install lostcards with its test and dask extras

lint: $(STAMP)  ## ruff: lint and import order (config in pyproject.toml)
	$(PY) -m ruff check lostcards tests experiments examples

test: $(STAMP)  ## the fast suite (slow simulations are marked and left out)
	$(PYTEST)

test-slow: $(STAMP)  ## the slow tests only: long simulations, a cold compile of everything (CI runs both)
	$(PYTEST) -m slow

bench: $(STAMP)  ## rounds per second, with the C yardstick in the same go when it is there
	$(PY) -m lostcards bench $(if $(wildcard $(YARDSTICK)/cengine.c),--yardstick $(YARDSTICK))

profile: $(STAMP)  ## perf profiles by JIT function and instruction: random, expert (2p, 4p), improve (docs/engine.md)
	$(PY) -m lostcards bench --profile all

ladder: $(STAMP)  ## docs/bots.md's ladder: every bot against expert on 1,000 duplicate deals of seed 20261203 (one core)
	$(PY) -m lostcards ladder --deals 1000 --solitaire-deals 500 --seed 20261203 --bots $(LADDER_BOTS)

report: $(STAMP)  ## the main job: simulate the default batch and write reports/ (the same bytes for the same code)
	@echo "make report 1/4: simulate 100,000 rounds (runs/report-smoke)"
	$(PY) -m lostcards simulate --rules expeditions --policies expert,greedy --rounds 100000 \
		--seed 1 --out runs/report-smoke --records 200
	@echo "make report 2/4: replay its records"
	$(PY) -m lostcards replay --json runs/report-smoke/records.jsonl > runs/report-smoke/replay.jsonl
	@echo "make report 3/4: the strategy tips (reports/claims.md; a line of progress at least every few seconds)"
	$(PY) -m lostcards claims --out reports
	@echo "make report 4/4: the rule tweaks (reports/rule-tweaks.md)"
	$(PY) -m lostcards rule-tweaks --out reports $(RULE_TWEAKS_ARGS)  # the skill trace is most of it (RULE_TWEAKS_ARGS="--depth-deals 0" skips it)

clean:
	rm -rf $(VENV) .pytest_cache runs
