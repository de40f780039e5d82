# Two commands do everything: `make run` (set up, then run the main job on the shipped defaults)
# and `make test` (set up, then run the whole test suite).
VENV    := .venv
PY      := $(VENV)/bin/python
STAMP   := $(VENV)/.mirtune-installed
PIP     := $(PY) -m pip install -q --disable-pip-version-check

.PHONY: setup run test test-fast bench clean

$(STAMP): pyproject.toml scripts/setup_system.sh
	bash scripts/setup_system.sh
	test -x $(PY) || python3 -m venv $(VENV)
	$(PIP) torch==2.13.0
	$(PIP) -e '.[test,baselines,cuda]'
	$(PIP) --no-deps programl==0.3.2
	touch $(STAMP)

setup: $(STAMP)

run: setup
	$(VENV)/bin/mirtune demo

test: setup
	$(PY) -m pytest -q

test-fast: setup
	$(PY) -m pytest -q -m "not slow"

bench: setup
	$(PY) benchmarks/bench_graph.py

clean:
	rm -rf $(VENV) build *.egg-info
