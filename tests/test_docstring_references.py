"""Every Sphinx cross-reference in the package's docstrings (``:func:``, ``:class:``,
``:mod:``, ``:meth:``, ...) names something that exists: a reference to a function that moved
sends the reader to nothing.

A reference is resolved by importing: ``elmo_tutorial.x.y`` as written; ``.x.y`` (Sphinx's
"search for it") as the end of a name in the package; a bare ``name`` or ``Class.name`` in the
module that cites it, or as an attribute of one of its classes (``:meth:`fit``` in a class's
docstring)."""

import importlib
import inspect
import re
import warnings
from pathlib import Path

import elmo_tutorial

PACKAGE = Path(elmo_tutorial.__file__).parent
REFERENCE = re.compile(r":(?:func|mod|class|meth|attr|data|exc|obj):`~?([A-Za-z_.][\w.]*)`")
KNOWN: dict[tuple[str, str], str] = {}  # (file, reference) → why it cannot resolve


def _modules() -> dict[str, Path]:
    names = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = ["elmo_tutorial", *path.relative_to(PACKAGE).with_suffix("").parts]
        if parts[-1] == "__main__":
            continue  # importing it runs the command line
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


MODULES = _modules()


def _import(name: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # old module names still import, with a warning
        return importlib.import_module(name)


def _resolve_dotted(name: str) -> bool:
    """``elmo_tutorial.a.b.c``: the longest importable module, then attributes."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target = _import(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attribute in parts[cut:]:
                target = getattr(target, attribute)
        except AttributeError:
            return False
        return True
    return False


def _resolves(reference: str, module) -> bool:
    if reference.startswith("elmo_tutorial"):
        return _resolve_dotted(reference)
    if reference.startswith("."):
        return any(_resolve_dotted(name + reference) for name in MODULES)
    first, *rest = reference.split(".")
    owners = [module, *(c for _, c in inspect.getmembers(module, inspect.isclass))]
    for owner in owners:
        target = getattr(owner, first, None)
        if target is None:
            continue
        try:
            for attribute in rest:
                target = getattr(target, attribute)
        except AttributeError:
            continue
        return True
    return reference in ("elmo_tutorial",) or _resolve_dotted(f"elmo_tutorial.{reference}")


def _broken() -> list[str]:
    broken = []
    for name, path in MODULES.items():
        module = _import(name)
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for reference in REFERENCE.findall(line):
                if (path.name, reference) not in KNOWN and not _resolves(reference, module):
                    broken.append(f"{path.relative_to(PACKAGE.parent)}:{number}: {reference}")
    return broken


def test_every_cross_reference_in_a_docstring_names_something_that_exists():
    assert _broken() == []


def test_a_moved_function_is_found_missing():
    report = _import("elmo_tutorial.tasks.report")
    assert not _resolves("elmo_tutorial.analyses.layer_report.load_model", report)
    assert _resolves("elmo_tutorial.formats.allennlp_format.load_model", report)
    assert _resolves(".report_files.write_report_files", report)
    assert not _resolves(".report_files.no_such_writer", report)
