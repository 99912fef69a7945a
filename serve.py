"""The dashboard, ready for a class: ``python serve.py [options of streamlit run]``.

The same server as ``streamlit run app.py [options]`` (same options, same
``.streamlit/config.toml``), except that the libraries the pages import (scikit-learn, SciPy,
pandas, plotly, mlviz and the pages' helper packages) are imported before the server accepts
its first connection. Streamlit has no start hook: with ``streamlit run`` the first script runs
import them, and when a class opens the app at once every student's first view waits for those
imports (one interpreter lock; ``benchmarks/bench_classroom.py``, issue 33).

With UMAP's warm-up on (``MLVIZ_UMAP_WARM_UP`` not ``"0"``, see ``pages/hypercube.py``)
umap-learn and numba are imported here too; the compilation itself still starts after the
Hypercube page has drawn.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent
APP = ROOT / "app.py"
# read by pages/hypercube.py (a page script, not importable): "0" turns the warm-up off
UMAP_WARM_UP_ENV = "MLVIZ_UMAP_WARM_UP"
# the thread's name in mlviz.hypercube.UmapWarmUp (importing mlviz.hypercube here is light,
# but the name is all that is needed)
UMAP_WARM_UP_THREAD = "mlviz-umap-warm-up"
#: "0": serve without opening every page first (:func:`prepare`; the tests' servers)
PREPARE_ENV = "MLVIZ_PREPARE"


def page_imports(root: Path = ROOT) -> list[tuple[str, tuple[str, ...]]]:
    """Every absolute import in ``app.py`` and ``pages/`` (module, names imported from it),
    inside functions too (the pages import heavy libraries where they use them), in order."""
    found: dict[tuple[str, tuple[str, ...]], None] = {}
    for path in [root / "app.py", *sorted((root / "pages").rglob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    found[(alias.name, ())] = None
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found[(node.module, tuple(alias.name for alias in node.names))] = None
    return list(found)


def preload(root: Path = ROOT) -> list[str]:
    """Import what the pages import; returns the imports that failed (an optional library
    that is not installed: the page itself says so when it runs)."""
    failed = []
    imports = page_imports(root)
    if os.environ.get(UMAP_WARM_UP_ENV, "1") != "0" and importlib.util.find_spec("umap"):
        imports.append(("umap", ()))
    for module, names in imports:
        try:
            # a fromlist imports the submodules it names (``from pages._app import router``)
            __import__(module, fromlist=[name for name in names if name != "*"])
        except Exception as err:  # any library's import error: the page run reports it
            failed.append(f"{module}: {type(err).__name__}: {err}")
    return failed


def prepare(root: Path = ROOT, *, timeout: float = 300) -> list[str]:
    """Open every page of the navigation once on the default data set, in this process
    (Streamlit's ``AppTest``), before the server starts; returns what went wrong, per page.

    The fits and figures a page's first view computes are kept in process-wide caches shared
    by every session (``pages/_app/fitting.py``; keyed by the data set's digest), so the
    first students find them made: what the teacher's opening every page before the lesson
    did (``benchmarks/bench_classroom.py --prepare``). The router's ``st.navigation`` also
    ends Streamlit's legacy ``pages/`` mode for the process (``pages/_app/router.py``), so no
    student's first run is a legacy run: ``tests/test_browser_first_visits.py`` finds no
    legacy tab on such a server (its precondition; all tabs showed the right page), which
    is why the tests' servers run with ``MLVIZ_PREPARE=0``.
    """
    import logging

    from streamlit.testing.v1 import AppTest

    from pages._app.router import PAGES

    problems = []
    # AppTest runs scripts without a server: Streamlit warns of the missing run context
    quiet = logging.getLogger("streamlit")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        for i, (file, title, _) in enumerate(PAGES):
            try:
                at = AppTest.from_file(str(root / "app.py"), default_timeout=timeout).run()
                if i:
                    at.switch_page(f"pages/{file}").run()
                problems += [f"{title}: {error.value}" for error in at.exception]
            except Exception as err:  # a page that fails here fails for the student too
                problems.append(f"{title}: {type(err).__name__}: {err}")
    finally:
        quiet.setLevel(level)
    # The Hypercube page has started UMAP's compilation (pages/hypercube.py) unless it is
    # off: let it finish now, while no student waits; numba holds the interpreter lock
    # while it compiles (with it running during the class, first view p95 was 6.9 s
    # instead of 4 s, issue 33).
    for thread in threading.enumerate():
        if thread.name == UMAP_WARM_UP_THREAD:
            thread.join(timeout)
    return problems


def main(argv: Sequence[str] | None = None) -> None:
    """Preload and prepare (unless ``MLVIZ_PREPARE=0``), then run ``streamlit run app.py
    *argv`` in this process (it serves until stopped)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    os.chdir(ROOT)  # Streamlit reads .streamlit/config.toml from the working directory
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    preload(ROOT)
    if os.environ.get(PREPARE_ENV, "1") != "0":
        for problem in prepare(ROOT):
            print(f"serve.py: preparing {problem}", file=sys.stderr)
    from streamlit.web import cli

    cli.main(["run", str(APP), *argv], prog_name="streamlit")


if __name__ == "__main__":
    main()
