"""Dependencies point one way: no import cycles, and the model never imports training, the
command line or the data stack.

The import graph is read from the source (``ast``), not from ``sys.modules``, so imports inside
functions count as much as those at the top of a module: a cycle that only closes at call time
is still a cycle, and a model module that imports ``registry`` inside a method still depends on
it. A string that names a module of the package (``"elmo_tutorial.elmo"``) counts as an import
too: that is how ``elmo_tutorial/__init__.py`` imports its public names lazily. A package's
``__init__`` is not counted as imported by its submodules merely because Python runs it first.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "elmo_tutorial"

# The model: what a user needs to compute ELMo vectors from character ids.
MODEL_MODULES = (
    "chars", "vocab", "batching", "config", "char_cnn", "layer_norm", "lstmp", "lstm", "softmax",
    "lm", "scalar_mix", "elmo", "embedder", "allennlp_format", "checkpoint",
)
# What the model must not depend on, even indirectly.
FORBIDDEN = {
    "training": ("train", "train_config", "train_log", "distributed", "evaluation"),
    "the command line": ("cli", "__main__", "commands"),
    "the data stack": ("downloads", "registry", "corpora", "annotated", "embedded_corpus"),
}


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
            elif isinstance(node, ast.Constant) and node.value in modules:
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


def test_the_listed_modules_exist(graph):
    listed = [*MODEL_MODULES, *(m for group in FORBIDDEN.values() for m in group)]
    missing = [m for m in listed if f"elmo_tutorial.{m}" not in graph]
    assert not missing, f"renamed or removed modules: update this test's lists: {missing}"


@pytest.mark.parametrize("module", MODEL_MODULES)
def test_model_modules_do_not_depend_on_training_cli_or_data(graph, module):
    for layer, names in FORBIDDEN.items():
        forbidden = {f"elmo_tutorial.{n}" for n in names}

        def is_forbidden(target: str, forbidden=forbidden) -> bool:
            return target in forbidden or any(target.startswith(f + ".") for f in forbidden)

        chain = dependency_chain(graph, f"elmo_tutorial.{module}", is_forbidden)
        assert chain is None, f"the model depends on {layer}: {' -> '.join(chain)}"


def test_only_the_command_line_imports_the_commands(graph):
    cli = ("elmo_tutorial.cli", "elmo_tutorial.__main__", "elmo_tutorial.commands")
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


# What ELMo adds to a task model: analyses built on the model, the data and training.
TASK_MODULES = ("corpus_vectors", "task_model", "task_training", "task_experiments",
                "task_report", "task_markdown")


@pytest.mark.parametrize("module", [*MODEL_MODULES, *FORBIDDEN["training"],
                                    *FORBIDDEN["the data stack"]])
def test_the_model_data_and_training_do_not_depend_on_the_task_analyses(graph, module):
    targets = {f"elmo_tutorial.{m}" for m in TASK_MODULES}
    chain = dependency_chain(graph, f"elmo_tutorial.{module}", targets.__contains__)
    assert chain is None, f"{module} depends on a task analysis: {' -> '.join(chain)}"
