"""Which cells of a notebook an exercise needs, so that student copies run in seconds.

A cell *defines* the names it assigns, imports or defines with ``def``/``class`` at top level,
and *reads* the names it refers to at top level or as globals inside its functions (found with
``symtable``, so comprehension and function locals do not count). The slice of a notebook is:

* the exercise cells;
* every later cell that reads a name defined by a cell already in the slice (the cells that
  would fail, or see nothing, while an exercise is a stub);
* for every cell in the slice, the latest earlier cell that defines each name it reads,
  recursively (what it needs to run).

Names are an over-approximation: reading a name that the same cell defined first still counts,
which can only add cells. Side effects on objects (``model.load_state_dict``) are not seen; a
slice missing such a cell would fail when run with the solutions, which the tests also do.
"""

from __future__ import annotations

import symtable

import nbformat


def _code(source: str) -> str:
    """The source without IPython magics and shell escapes, which are not Python."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                     for line in source.splitlines())


def defined_and_read(source: str) -> tuple[set[str], set[str]]:
    """(names a cell defines at top level, names it reads from the notebook's globals)."""
    try:
        table = symtable.symtable(_code(source), "<cell>", "exec")
    except SyntaxError:
        return set(), set()
    defined, read = set(), set()
    for symbol in table.get_symbols():
        if symbol.is_assigned() or symbol.is_imported():
            defined.add(symbol.get_name())
        if symbol.is_referenced():
            read.add(symbol.get_name())
    stack = list(table.get_children())
    while stack:  # functions, classes, lambdas, comprehensions: their globals are read
        scope = stack.pop()
        stack.extend(scope.get_children())
        for symbol in scope.get_symbols():
            if symbol.is_global() and symbol.is_referenced():
                read.add(symbol.get_name())
    return defined, read


def _names(notebook: nbformat.NotebookNode) -> dict[int, tuple[set[str], set[str]]]:
    return {i: defined_and_read(cell.source) for i, cell in enumerate(notebook.cells)
            if cell.cell_type == "code"}


def dependents(notebook: nbformat.NotebookNode, exercise_cells: list[int]) -> list[int]:
    """The exercise cells and every later cell that reads what they (or such a cell) define."""
    names = _names(notebook)
    chosen = set(exercise_cells)
    tainted: set[str] = set()
    for i in names:  # in notebook order
        if i in chosen or (names[i][1] & tainted and i > min(exercise_cells)):
            chosen.add(i)
            tainted |= names[i][0]
    return sorted(chosen)


def exercise_slice(notebook: nbformat.NotebookNode, exercise_cells: list[int]) -> list[int]:
    """Indices of the cells to run, in order, for ``exercise_cells`` and what depends on them."""
    names = _names(notebook)
    code = sorted(names)
    chosen = set(dependents(notebook, exercise_cells))
    pending = sorted(chosen)
    while pending:  # backward: the latest definition of every name a chosen cell reads
        i = pending.pop()
        for name in names[i][1]:
            provider = next((j for j in reversed(code) if j < i and name in names[j][0]), None)
            if provider is not None and provider not in chosen:
                chosen.add(provider)
                pending.append(provider)
    return sorted(chosen)
