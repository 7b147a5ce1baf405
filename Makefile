# Two commands on a fresh machine:  `make lab`  and  `make test`.
# PYTHON picks the interpreter that creates .venv; TORCH_INDEX, if set, is the package index
# torch is installed from first (e.g. https://download.pytorch.org/whl/cpu for a CPU-only torch).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
TORCH_INDEX ?=

.PHONY: lab test unit notebooks-test notebooks demo lint doctor clean install

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip

# Re-install whenever pyproject.toml changes.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	@if [ -n "$(TORCH_INDEX)" ]; then $(BIN)/pip install torch --index-url $(TORCH_INDEX); fi
	$(BIN)/pip install -e '.[dev]'
	@touch $@

install: $(VENV)/.installed

lab: install
	$(BIN)/jupyter lab notebooks/00_static_vs_contextual.ipynb

# The package's docstring examples (>>>) run too: they are documentation that must stay true.
test: install
	bash .ci/pytest_checked $(BIN)/python -m pytest tests
	bash .ci/pytest_checked $(BIN)/python -m pytest --doctest-modules elmo_tutorial
	bash .ci/pytest_checked $(BIN)/python -m pytest --nbval notebooks --nbval-sanitize-with .ci/nbval_sanitize.cfg -p no:cacheprovider

unit: install
	bash .ci/pytest_checked $(BIN)/python -m pytest tests -x -q
	bash .ci/pytest_checked $(BIN)/python -m pytest --doctest-modules elmo_tutorial -x -q

# Rebuild every notebook from its py:percent source and execute it (commit the result).
notebooks: install
	$(BIN)/python .ci/build_notebooks.py

demo: install
	$(BIN)/elmo-tutorial train --config tiny --out runs/demo
	$(BIN)/elmo-tutorial evaluate runs/demo
	$(BIN)/elmo-tutorial embed runs/demo "She sat on the bank of the river ." "He paid the money into the bank ."

doctor: install
	$(BIN)/elmo-tutorial doctor

lint: install
	$(BIN)/ruff check elmo_tutorial tests benchmarks notebooks/*.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
