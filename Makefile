# Two commands on a fresh machine:  `make lab`  and  `make test`.
# PYTHON picks the interpreter that creates .venv; TORCH_INDEX, if set, is the package index
# torch is installed from first (e.g. https://download.pytorch.org/whl/cpu for a CPU-only torch).
# VENV may name an existing environment instead (a conda env: VENV=$CONDA_PREFIX).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
TORCH_INDEX ?=
# Extra options for JupyterLab, e.g. in a container or on a remote machine:
#   make lab LAB_ARGS="--no-browser --ip=0.0.0.0"
LAB_ARGS ?=
# JupyterLab refuses to start as root without --allow-root; a container often runs as root.
ROOT_ARGS := $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root)
# Where `make student` and `make slides` write; FORCE=1 lets `make student` replace changed
# copies (which are first moved to a backup folder); REVEAL_PREFIX loads reveal.js from a local copy
# (and MathJax 2 from mathjax/ beside it), for slides that need no network.
STUDENT_DIR ?= student
SLIDES_DIR ?= slides
FORCE ?=
REVEAL_PREFIX ?=
# Arguments of `make cli`, e.g. make cli ARGS="doctor"
ARGS ?= --help

.PHONY: lab student student-lab slides html cli test unit notebooks demo lint doctor clean install

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip

# Re-install whenever pyproject.toml changes.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	@if [ -n "$(TORCH_INDEX)" ]; then $(BIN)/pip install torch --index-url $(TORCH_INDEX); fi
	$(BIN)/pip install -e '.[dev]'
	@touch $@

install: $(VENV)/.installed

# The course as committed: every exercise solved (the instructor's version).
lab: install
	$(BIN)/jupyter lab $(ROOT_ARGS) $(LAB_ARGS) notebooks/00_static_vs_contextual.ipynb

# Students' copies: each exercise a stub to fill in. Never overwrites a copy you changed.
student: install
	$(BIN)/python -m elmo_tutorial.course student $(STUDENT_DIR) $(if $(FORCE),--force)

# JupyterLab on the students' copies (made first if there are none yet).
student-lab: install
	@test -f $(STUDENT_DIR)/00_static_vs_contextual.ipynb || $(MAKE) --no-print-directory student
	$(BIN)/jupyter lab $(ROOT_ARGS) $(LAB_ARGS) $(STUDENT_DIR)/00_static_vs_contextual.ipynb

# One reveal.js deck per notebook, from the committed (executed) notebooks.
slides: install
	$(BIN)/python -m elmo_tutorial.course slides $(SLIDES_DIR) \
		$(if $(REVEAL_PREFIX),--reveal-prefix $(REVEAL_PREFIX))

# One web page per executed notebook, as nbconvert writes it.
HTML_DIR ?= html
html: install
	$(BIN)/jupyter nbconvert --to html --output-dir $(HTML_DIR) notebooks/[0-9][0-9]_*.ipynb

# The elmo-tutorial command without activating .venv: make cli ARGS="train --help"
cli: install
	$(BIN)/elmo-tutorial $(ARGS)

# The package's docstring examples (>>>) run too: they are documentation that must stay true.
# The notebooks' outputs were made under PYTHONHASHSEED=0 (.ci/build_notebooks.py); the doctests
# and nbval run under 1 whatever the caller's environment says, so no output can follow the
# hash seed (the order of a set of strings does) and the result never depends on the caller's.
# nbval runs the capstone (notebook 14) in its quick version, whose outputs differ from the
# committed run's only in numbers printed with ≈ (the sanitiser's), in a temporary runs folder:
# never in the repository's runs/, where a student's own notebook 14 may be training.
# The tests run on every core (pytest-xdist: -n auto), each test on one thread
# (tests/conftest.py). The notebooks run one at a time: notebook 11 times its fast paths against
# the plain ones, and a second notebook beside it can reverse a ratio. The doctests stay in one
# process: there, starting workers costs more than it saves.
test: install
	bash .ci/pytest_checked $(BIN)/python -m pytest tests -n auto
	PYTHONHASHSEED=1 bash .ci/pytest_checked $(BIN)/python -m pytest --doctest-modules elmo_tutorial
	runs=$$(mktemp -d) && PYTHONHASHSEED=1 ELMO_TUTORIAL_CAPSTONE=quick ELMO_TUTORIAL_RUNS=$$runs bash .ci/pytest_checked $(BIN)/python -m pytest --nbval notebooks --nbval-sanitize-with .ci/nbval_sanitize.cfg -p no:cacheprovider

# The fast check: every test but those marked slow (subprocesses, several processes, whole
# commands end to end, the student copies executed), which `make test` runs too.
# One session for both, so that the doctests share the workers (85 s in all on 2 quiet cores).
unit: install
	PYTHONHASHSEED=1 bash .ci/pytest_checked $(BIN)/python -m pytest tests elmo_tutorial --doctest-modules -x -q -m "not slow" -n auto

# Rebuild every notebook from its py:percent source and execute it (commit the result).
notebooks: install
	$(BIN)/python .ci/build_notebooks.py

# A second `make demo` resumes the first one's run (finished, or stopped by Ctrl-C).
DEMO_DIR ?= runs/demo
DEMO_CONFIG ?= --config tiny
demo: install
	$(BIN)/elmo-tutorial train $(DEMO_CONFIG) --out $(DEMO_DIR) $(if $(wildcard $(DEMO_DIR)/checkpoints/step_*),--resume)
	$(BIN)/elmo-tutorial evaluate $(DEMO_DIR)
	$(BIN)/elmo-tutorial embed $(DEMO_DIR) "She sat on the bank of the river ." "He paid the money into the bank ."

doctor: install
	$(BIN)/elmo-tutorial doctor

lint: install
	$(BIN)/ruff check elmo_tutorial tests benchmarks notebooks/*.py

# Removes .venv and caches; never student/ (students' work), slides/, nor an environment
# given as VENV=... (a conda env is yours to remove).
clean:
	@if [ "$(VENV)" = ".venv" ]; then rm -rf .venv; else echo "not removing VENV=$(VENV)"; fi
	rm -rf .pytest_cache .ruff_cache .hypothesis
