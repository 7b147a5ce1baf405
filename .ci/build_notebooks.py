"""Build each notebooks/NN_*.ipynb from its py:percent source and execute it top to bottom.

Usage:  python .ci/build_notebooks.py [NAME_PATTERN ...]     (default: every notebook)

The executed .ipynb is what gets committed and what nbval checks. Run it with the same data
environment as CI (NLTK_DATA, ELMO_TUTORIAL_DATA) so that the outputs match.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def build(source: Path) -> float:
    notebook = jupytext.read(source)
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3 (ipykernel)",  # what the kernel reports: no churn on save
        "language": "python",
    }
    # What a jupytext save writes in the .ipynb, so that a save without an edit changes nothing
    notebook.metadata["jupytext"] = {"formats": "ipynb,py:percent"}
    start = time.perf_counter()
    # A cell may run for 30 minutes: the capstone (notebook 14) trains a biLM in one cell
    NotebookClient(notebook, timeout=1800, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    seconds = time.perf_counter() - start
    nbformat.write(notebook, source.with_suffix(".ipynb"))
    return seconds


def main(patterns: list[str]) -> int:
    # The kernels inherit it: outputs are built under hash seed 0, and `make test` checks them
    # under 1, so that nothing a notebook prints may follow the hash seed (a set's order does).
    os.environ["PYTHONHASHSEED"] = "0"
    sources = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.py"))
    if patterns:
        sources = [s for s in sources if any(p in s.name for p in patterns)]
    for source in sources:
        seconds = build(source)
        print(f"{source.name}: executed in {seconds:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
