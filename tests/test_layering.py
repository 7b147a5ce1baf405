"""Dependencies point one way: the package's folders are the stages of the course, a folder
imports only the folders below it, and there is no import cycle.

The stage of a module is its folder (``elmo_tutorial.model.char_cnn`` is in ``model``); the few
modules at the top level are placed by ``TOP_LEVEL``. The order, as ``elmo_tutorial/__init__.py``
draws it: the foundations (``runtime``, ``files/``: files written whole and read guarded) under
everything; what notebooks show (figures, widgets, claims), which imports nothing above the
foundations; ``data/`` and ``model/``, which know nothing of each other; ``fast/``, the model
made fast, on the model only; ``training/`` with its run folders; ``formats/``, runs and official
weights in other files;
``analyses/`` of what a trained model knows; ``tasks/``; the course tooling (``checks/``,
``course/``); and ``commands/``, the command line, on top.

The import graph is read from the source (``ast``), not from ``sys.modules``, so imports inside
functions count as much as those at the top of a module: a cycle that only closes at call time
is still a cycle, and a model module that imports ``registry`` inside a method still depends on
it. A string that names a submodule of the package (``"elmo_tutorial.model.elmo"``) counts as
an import too: that is how ``elmo_tutorial/__init__.py`` imports its public names lazily. A
package's ``__init__`` is not counted as imported by its submodules merely because Python runs
it first.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "elmo_tutorial"

# The modules at the top of the package, and their stage: a handful a notebook uses directly.
TOP_LEVEL = {"runtime": "foundations", "figures": "display", "widgets": "display",
             "claims": "display", "__main__": "commands"}
# Each folder's stage (a folder is a stage of its own unless listed here).
FOLDER_STAGE = {"files": "foundations", "checks": "course", "course": "course"}
# What each stage may import (itself included): the stages below it. Data and model are
# independent of each other; fast builds on the model alone; formats read and write runs.
MAY_IMPORT = {
    "foundations": {"foundations"},
    "display": {"foundations", "display"},
    "data": {"foundations", "data"},
    "model": {"foundations", "model"},
    "fast": {"foundations", "model", "fast"},
    "training": {"foundations", "data", "model", "fast", "training"},
    "formats": {"foundations", "data", "model", "fast", "training", "formats"},
    "analyses": {"foundations", "display", "data", "model", "fast", "formats", "training",
                 "analyses"},
    "tasks": {"foundations", "display", "data", "model", "fast", "formats", "training",
              "analyses", "tasks"},
    "course": {"foundations", "display", "data", "model", "fast", "formats", "training",
               "analyses", "tasks", "course"},
    "commands": {"foundations", "display", "data", "model", "fast", "formats", "training",
                 "analyses", "tasks", "course", "commands"},
    # elmo_tutorial/__init__.py: batch_to_ids, ELMo, Embedder, load_allennlp, save_allennlp
    "the public API": {"foundations", "data", "model", "fast", "formats", "training", "analyses"},
}


def stage_of(module: str) -> str:
    """The stage of a dotted module name of the package (``elmo_tutorial.checks.lstm``)."""
    parts = module.split(".")
    if len(parts) == 1:
        return "the public API"
    if (PACKAGE / parts[1]).is_dir():
        return FOLDER_STAGE.get(parts[1], parts[1])
    return TOP_LEVEL.get(parts[1], "unlisted")


def module_names(root: Path, package: str) -> dict[str, Path]:
    """``{dotted module name: file}`` for every ``.py`` file under ``root``."""
    names = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join([package, *parts])] = path
    return names


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    """Every module's imports of other modules of the package, wherever they sit in the file."""
    modules = module_names(root, package)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        here = name if is_package else name.rpartition(".")[0]  # the package ``.`` refers to
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.Constant) and node.value in modules and node.value != package:
                targets = [node.value]  # a lazy import: importlib.import_module("pkg.x")
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here.split(".")[: len(here.split(".")) - (node.level - 1)]
                    base = ".".join(base + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                # ``from pkg import name``: name is a submodule, or a name defined in pkg.
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                           for a in node.names]
            else:
                continue
            for target in targets:
                while target and target not in modules:  # ``import a.b.c`` of a name in a.b
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as ``[a, b, ..., a]``, or ``None`` when the graph has none."""
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (cycle := visit(start)):
            return cycle
    return None


def dependency_chain(graph: dict[str, set[str]], start: str, goal) -> list[str] | None:
    """The shortest import chain from ``start`` to a module for which ``goal`` holds."""
    previous, frontier = {start: None}, [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt in sorted(graph.get(node, ())):
                if nxt in previous:
                    continue
                previous[nxt] = node
                if goal(nxt):
                    chain = [nxt]
                    while chain[-1] != start:
                        chain.append(previous[chain[-1]])
                    return chain[::-1]
                following.append(nxt)
        frontier = following
    return None


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph(PACKAGE, "elmo_tutorial")


def test_the_package_has_no_import_cycle(graph):
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_every_module_belongs_to_a_stage_and_every_folder_is_one(graph):
    unlisted = sorted(m for m in graph if stage_of(m) not in MAY_IMPORT)
    assert not unlisted, ("a new module at the top of the package or a new folder: put it in a "
                          f"folder (or TOP_LEVEL, MAY_IMPORT and elmo_tutorial/__init__.py's "
                          f"map): {unlisted}")
    folders = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert all(FOLDER_STAGE.get(f, f) in MAY_IMPORT for f in folders)
    missing = [m for m in TOP_LEVEL if not (PACKAGE / f"{m}.py").exists()]
    assert not missing, f"renamed or removed top-level modules: update TOP_LEVEL: {missing}"


def test_the_top_level_is_the_public_api_and_a_handful_of_modules():
    top = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")
    assert top == sorted(TOP_LEVEL), f"top-level modules: {top}"
    assert len(top) <= 5


def test_lower_stages_may_not_import_analyses_course_tooling_or_the_cli():
    for stage in ("foundations", "display", "data", "model", "fast", "formats", "training"):
        above = MAY_IMPORT[stage] & {"analyses", "tasks", "course", "commands"}
        assert not above, f"{stage} may not depend on {above}: loosen nothing here"
    assert "data" not in MAY_IMPORT["model"] and "model" not in MAY_IMPORT["data"]
    assert "fast" not in MAY_IMPORT["model"], "the plain model must not know its fast paths"
    assert "course" not in MAY_IMPORT["analyses"] | MAY_IMPORT["tasks"]


def test_the_stages_are_ordered_and_the_map_in_init_lists_every_folder():
    """No upward arrow: each stage may import only stages that may not import it back."""
    for stage, allowed in MAY_IMPORT.items():
        for other in allowed - {stage}:
            assert stage not in MAY_IMPORT.get(other, set()), f"{stage} <-> {other}"
    doc = (PACKAGE / "__init__.py").read_text(encoding="utf-8")
    folders = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists())
    missing = [f for f in folders if f"{f}/" not in doc]
    assert not missing, f"elmo_tutorial/__init__.py's map does not name {missing}"


@pytest.mark.parametrize("module", sorted(import_graph(PACKAGE, "elmo_tutorial")))
def test_each_module_imports_only_the_stages_below_it(graph, module):
    stage = stage_of(module)
    allowed = MAY_IMPORT.get(stage, set())
    chain = dependency_chain(graph, module, lambda target: stage_of(target) not in allowed)
    assert chain is None, (f"{stage} must not depend on {stage_of(chain[-1])}: "
                           f"{' -> '.join(chain)}")


def test_only_the_command_line_imports_the_commands(graph):
    cli = ("elmo_tutorial.commands.cli", "elmo_tutorial.__main__", "elmo_tutorial.commands")
    offenders = sorted(f"{module} -> {target}" for module, targets in graph.items()
                       for target in targets
                       if target.startswith("elmo_tutorial.commands")
                       and not module.startswith(cli))
    assert not offenders, "library code depends on the command layer: " + ", ".join(offenders)


# ----------------------------------------------------------------- the checker checked


def test_find_cycle_finds_a_planted_cycle_and_only_then():
    acyclic = {"a": {"b", "c"}, "b": {"c"}, "c": set(), "d": {"a"}}
    assert find_cycle(acyclic) is None
    planted = {**acyclic, "c": {"d"}}  # c -> d -> a -> b -> c
    cycle = find_cycle(planted)
    assert cycle is not None and cycle[0] == cycle[-1]
    assert all(b in planted[a] for a, b in zip(cycle, cycle[1:], strict=False))
    assert find_cycle({"self": {"self"}}) == ["self", "self"]


def test_dependency_chain_follows_indirect_imports():
    graph = {"model": {"helper"}, "helper": {"registry"}, "registry": set()}
    assert dependency_chain(graph, "model", lambda m: m == "registry") == [
        "model", "helper", "registry"]
    assert dependency_chain(graph, "registry", lambda m: m == "model") is None


def test_import_graph_sees_relative_and_function_level_imports(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .a import f\n\nLAZY = {'g': 'pkg.b'}\n")
    (pkg / "a.py").write_text("from . import b\n\ndef f():\n    return b\n")
    (pkg / "b.py").write_text("def g():\n    from .sub.c import h\n    return h\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "c.py").write_text(
        "import os\n\ndef h():\n    from ..a import f\n    import pkg.b\n    return f\n")
    graph = import_graph(pkg, "pkg")
    assert graph["pkg"] == {"pkg.a", "pkg.b"}  # 'pkg.b' named in a string: a lazy import
    assert graph["pkg.a"] == {"pkg.b"}
    assert graph["pkg.b"] == {"pkg.sub.c"}  # inside a function
    assert graph["pkg.sub.c"] == {"pkg.a", "pkg.b"}  # ``..a`` resolved; os is not ours
    assert find_cycle(graph) == ["pkg.a", "pkg.b", "pkg.sub.c", "pkg.a"]
