# lostcards: `make report` and `make test` are all a newcomer needs.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
YARDSTICK ?= ../shared/yardstick

.PHONY: install test test-slow bench report clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,dask]'
	touch $(STAMP)

install: $(STAMP)  ## create .venv and install lostcards with its test and dask extras

test: $(STAMP)  ## the fast suite (slow simulations are marked and left out)
	$(PY) -m pytest -q -n 2

test-slow: $(STAMP)
	$(PY) -m pytest -q -m slow

bench: $(STAMP)  ## rounds per second, with the C yardstick in the same go when it is there
	$(PY) -m lostcards bench --yardstick $(YARDSTICK)

report: $(STAMP)  ## the main job: simulate the default batch and write reports/
	$(PY) -m lostcards simulate --rules expeditions --policies random,random --rounds 200000 \
		--seed 1 --out reports/engine-smoke --records 100 --csv
	$(PY) -m lostcards replay --json reports/engine-smoke/records.jsonl > reports/engine-smoke/replay.jsonl

clean:
	rm -rf $(VENV) .pytest_cache runs
