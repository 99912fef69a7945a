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

PACKAGE = Path(__file__).resolve().parents[1] / "mlviz"

LAYERS = {
    "io": 0,
    "_validation": 0,
    "datasets": 0,
    "synthetic": 0,
    "stats": 0,
    "metrics": 0,
    "costs": 0,
    "preprocessing": 0,
    "base": 1,
    "hypercube": 1,
    "linear": 1,
    "mlknn": 1,
    "label_clustering": 1,
    "grople": 1,
    "mds": 1,
    "clems": 1,
    "sparse_recovery": 1,
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


def test_pages_holds_only_page_scripts_and_helper_packages():
    """pages/ is the product's layout: the router's page scripts, and helper packages whose
    names start with "_" (Streamlit's legacy pages/ mode ignores them)."""
    from pages._app import router

    pages_dir = PACKAGE.parent / "pages"
    scripts = {p.name for p in pages_dir.glob("*.py") if p.name != "__init__.py"}
    assert scripts == {file for file, _, _ in router.PAGES}
    for folder in (p for p in pages_dir.iterdir() if p.is_dir() and p.name != "__pycache__"):
        assert folder.name.startswith("_") and (folder / "__init__.py").exists(), folder.name
