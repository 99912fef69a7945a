"""The layout is the architecture: data -> models -> evaluation -> figures -> pages.

Each mlviz module may import only from its own layer or layers to its left, the core never
imports Streamlit, and ``import mlviz`` stays cheap (no umap, plotly or Streamlit).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "mlviz"

LAYERS = {
    "io": 0,
    "_compat": 0,
    "_validation": 0,
    "_parallel": 0,
    "datasets": 0,
    "synthetic": 0,
    "stats": 0,
    "metrics": 0,
    "costs": 0,
    "preprocessing": 0,
    "wording": 0,
    "base": 1,
    "hypercube": 1,
    "linear": 1,
    "mlknn": 1,
    "label_clustering": 1,
    "grople": 1,
    "mds": 1,
    "clems": 1,
    "sparse_recovery": 1,
    "thresholds": 1,
    "evaluation": 2,
    "reproduce": 2,
    "sweeps": 2,
    "__main__": 2,
    "per_label": 2,
    "methods": 2,  # the registry: builds the models (layer 1), read by figures and pages
    "figures": 3,
}


def _layer(module: str) -> int:
    top = module.split(".")[0]
    if top not in LAYERS:
        raise AssertionError(f"mlviz.{module} has no layer: add it to LAYERS in this test")
    return LAYERS[top]


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).with_suffix("")
        parts = [p for p in rel.parts if p != "__init__"]
        if parts:
            yield ".".join(parts), path


def _mlviz_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith("mlviz."):
                found.add(node.module.removeprefix("mlviz."))
            elif node.module == "mlviz":
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("mlviz."):
                    found.add(alias.name.removeprefix("mlviz."))
    return found


@pytest.mark.parametrize("module,path", list(_modules()), ids=lambda v: str(v))
def test_imports_only_leftwards(module, path):
    own = _layer(module)
    for imported in _mlviz_imports(path):
        if imported.split(".")[0] in {"__version__"}:
            continue
        assert _layer(imported) <= own, (
            f"mlviz.{module} (layer {own}) imports mlviz.{imported} (layer {_layer(imported)})"
        )


@pytest.mark.parametrize("module,path", list(_modules()), ids=lambda v: str(v))
def test_core_never_imports_streamlit(module, path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        assert not any(n.split(".")[0] == "streamlit" for n in names), f"mlviz.{module}"


def test_import_mlviz_is_light():
    code = (
        "import sys, mlviz; mlviz.Dataset; "
        "heavy = [m for m in ('umap', 'streamlit', 'plotly', 'numba') if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"import mlviz pulled in: {out.stdout.strip()}"


REPOSITORY = PACKAGE.parent


def _private_sklearn_imports(path: Path) -> list[str]:
    """``sklearn`` imports of a private module (a ``_`` component) or a private name."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            modules = [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules = [(node.module, [alias.name for alias in node.names])]
        else:
            continue
        for module, names in modules:
            if module.split(".")[0] != "sklearn":
                continue
            if any(part.startswith("_") for part in module.split(".")) or any(
                name.startswith("_") for name in names
            ):
                found.append(f"line {node.lineno}: {module} {names}")
    return found


def _python_files():
    for folder in ("mlviz", "tests", "pages", "benchmarks"):
        yield from sorted((REPOSITORY / folder).rglob("*.py"))
    yield from sorted(REPOSITORY.glob("*.py"))


def test_private_scikit_learn_api_only_through_the_compat_module():
    compat = PACKAGE / "_compat.py"
    offenders = {
        str(path.relative_to(REPOSITORY)): found
        for path in _python_files()
        if path != compat and (found := _private_sklearn_imports(path))
    }
    assert offenders == {}, "import these from mlviz._compat instead"
    # the check can fail: the compat module itself imports private names
    assert _private_sklearn_imports(compat)


def _names(node: ast.AST) -> set[str]:
    """Every variable and attribute name inside an expression, lower-cased."""
    found = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            found.add(sub.id.lower())
        elif isinstance(sub, ast.Attribute):
            found.add(sub.attr.lower())
    return found


def tail_comparisons(source: str) -> list[int]:
    """Line numbers of comparisons that re-code the tail rule (a frequency against a threshold).

    Flagged: any ordering comparison with a ``tail_threshold`` operand, or with a ``*threshold*``
    operand on one side and a ``*freq*`` or ``*count*`` one on the other. (A convergence test such
    as ``decrease < threshold`` in mlviz.mds is not a tail rule and is not flagged.)
    """
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        if not any(isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) for op in node.ops):
            continue
        sides = [_names(operand) for operand in [node.left, *node.comparators]]
        everything = set().union(*sides)
        has_threshold = [any("threshold" in name for name in side) for side in sides]
        has_frequency = [any("freq" in n or "count" in n for n in side) for side in sides]
        mixed = any(
            has_threshold[i] and has_frequency[j]
            for i in range(len(sides))
            for j in range(len(sides))
            if i != j
        )
        if "tail_threshold" in everything or mixed:
            lines.append(node.lineno)
    return lines


def test_tail_comparison_detector_finds_the_old_forms():
    # the forms issue 21 found re-coded in six places; the detector must see each of them
    for line in (
        "tail = counts / n_samples < tail_threshold",
        "is_tail = values < tail_threshold",
        "tail = frequencies < threshold",
        "n = int((frequencies < threshold).sum())",
        "x = {'is_tail': frequencies[order] < tail_threshold}",
    ):
        assert tail_comparisons(line) == [1], line
    assert tail_comparisons("if decrease < threshold:\n    pass") == []


def test_the_tail_rule_is_coded_only_in_stats():
    """One tail rule: ``frequency < threshold`` lives in mlviz.stats.is_tail, nowhere else."""
    offenders = []
    for path in [*sorted(PACKAGE.rglob("*.py")), *sorted((ROOT / "pages").rglob("*.py"))]:
        lines = tail_comparisons(path.read_text())
        if path == PACKAGE / "stats.py":
            # is_tail's own comparison, and nothing else in stats
            assert len(lines) == 1, f"mlviz/stats.py compares frequencies at lines {lines}"
            continue
        offenders += [f"{path.relative_to(ROOT)}:{line}" for line in lines]
    assert not offenders, f"the tail rule re-coded (use mlviz.stats.is_tail): {offenders}"


# Public names whose Examples section is still to come: their return types change on another
# branch (issue 21 item 6: one result type for cross_validate and for explain()), and
# io.labels.label_indices takes the ARFF parser's private structures.
EXAMPLES_TO_COME = {
    "mlviz.io.labels.label_indices",
}


def _public_callables():
    """Every public class and function of mlviz, once, by the module that defines it.

    Public: named in a module's ``__all__`` (or in ``mlviz.__all__``), or, in a module whose
    path has no underscore-prefixed part, any class or function defined there whose name has
    no leading underscore.
    """
    import importlib
    import inspect
    import pkgutil

    import mlviz

    names = ["mlviz"] + [
        info.name
        for info in pkgutil.walk_packages(mlviz.__path__, "mlviz.")
        if not info.name.endswith("__main__")
    ]
    found = {}
    for name in names:
        module = importlib.import_module(name)
        private_module = any(part.startswith("_") for part in name.split(".")[1:])
        candidates = set(getattr(module, "__all__", ()))
        if not private_module:
            candidates |= {
                key
                for key, value in vars(module).items()
                if not key.startswith("_")
                and (inspect.isclass(value) or inspect.isfunction(value))
                and value.__module__ == name
            }
        for key in candidates:
            value = getattr(module, key)
            if (
                inspect.isclass(value) or inspect.isfunction(value)
            ) and value.__module__.startswith("mlviz"):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return found


def test_every_public_class_and_function_has_a_doctested_example():
    """scikit-learn's convention (issue 21 item 6): an Examples section in every public
    docstring, run by ``--doctest-modules`` (pyproject.toml)."""
    import inspect

    callables = _public_callables()
    assert len(callables) > 150  # the walk found the package, not an empty list
    missing = sorted(
        name
        for name, value in callables.items()
        if name not in EXAMPLES_TO_COME
        and "\nExamples\n--------\n>>> " not in "\n" + (inspect.getdoc(value) or "")
    )
    assert not missing, f"public names without an Examples section: {missing}"
    stale = sorted(
        EXAMPLES_TO_COME
        - {n for n, v in callables.items() if "Examples" not in (inspect.getdoc(v) or "")}
    )
    assert not stale, f"remove from EXAMPLES_TO_COME (they have examples now): {stale}"


def test_pages_holds_only_page_scripts_and_helper_packages():
    """pages/ is the product's layout: the router's page scripts, and helper packages whose
    names start with "_" (Streamlit's legacy pages/ mode ignores them)."""
    from pages._app import router

    pages_dir = PACKAGE.parent / "pages"
    scripts = {p.name for p in pages_dir.glob("*.py") if p.name != "__init__.py"}
    assert scripts == {file for file, _, _ in router.PAGES}
    for folder in (p for p in pages_dir.iterdir() if p.is_dir() and p.name != "__pycache__"):
        assert folder.name.startswith("_") and (folder / "__init__.py").exists(), folder.name


def test_charts_in_columns_say_they_are_not_wide():
    """``export.chart`` wraps a title to the page's width unless told ``wide=``: a chart
    drawn inside ``with <column>:`` must say so, or its title would run past the column."""
    problems = []
    for path in sorted((REPOSITORY / "pages").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for block in (n for n in ast.walk(tree) if isinstance(n, ast.With)):
            for node in ast.walk(block):
                if (
                    isinstance(node, ast.Call)
                    and ast.unparse(node.func) in ("export.chart", "chart")
                    and not any(k.arg == "wide" for k in node.keywords)
                ):
                    where = f"{path.relative_to(REPOSITORY)}:{node.lineno}"
                    problems.append(f"{where} (inside `with {ast.unparse(block.items[0])}`)")
    assert not problems, "charts in a column without wide=False:\n" + "\n".join(problems)


def test_the_page_helpers_examples_run():
    """The Examples of the helper packages under pages/ run here: pages/ is not among
    pytest's doctest paths (a page script draws on import, and a helper module named
    ``test_split.py`` would be collected as tests)."""
    import doctest
    import importlib

    pages_dir = PACKAGE.parent / "pages"
    tried_in = {}
    for path in sorted(pages_dir.glob("_*/*.py")):
        module = importlib.import_module(f"pages.{path.parent.name}.{path.stem}")
        flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
        failures, tried = doctest.testmod(module, optionflags=flags, verbose=False)
        assert failures == 0, f"{path.relative_to(pages_dir)}: {failures} Examples failed"
        tried_in[path.stem] = tried
    # the walk found the helpers that have Examples (links, tables, library_warnings, ...)
    least = {"links": 5, "tables": 5, "library_warnings": 3}
    assert all(tried_in[name] >= n for name, n in least.items()), tried_in
