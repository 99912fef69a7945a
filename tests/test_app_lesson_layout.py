"""The Lesson is a package of parts behind one page script (issue 21, item 4).

``pages/`` holds page scripts plus underscore packages only (the router and the legacy
``pages/`` mode list its ``*.py`` files as pages), and inside ``pages/_lesson/`` only the state
helper and the fits module reach into the app helpers, so that those can be replaced in two
places.
"""

from __future__ import annotations

import ast
from pathlib import Path

PAGES = Path(__file__).resolve().parents[1] / "pages"
LESSON = PAGES / "_lesson"


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_the_lesson_parts_are_a_package_not_pages():
    assert (LESSON / "__init__.py").is_file()
    assert not list(LESSON.glob("[!_]*/")), "no sub-packages"
    assert (PAGES / "lesson.py").is_file()
    for entry in PAGES.iterdir():
        if entry.is_dir() and entry.name != "__pycache__":
            assert entry.name.startswith("_"), f"pages/{entry.name} would read as a page folder"


def test_only_state_and_fits_use_the_app_helpers():
    users = sorted(
        path.name
        for path in LESSON.glob("*.py")
        if any(name.startswith("pages._app") for name in _imports(path))
    )
    assert users == ["fits.py", "state.py"]
    assert not any(n.startswith("pages._app") for n in _imports(PAGES / "lesson.py"))


def test_the_page_script_runs_every_step_module():
    imported = _imports(PAGES / "lesson.py")
    steps = {"hypercube", "plst", "groups", "grople", "clems", "mlknn", "compare"}
    assert {f"pages._lesson.{s}" for s in steps} <= imported
    assert {p.stem for p in LESSON.glob("*.py")} == steps | {
        "__init__",
        "state",
        "fits",
        "methods",
        "text",
    }
