"""The README's commands (issue 23 item 6): they work from any clone and CI runs the same.

The library snippet runs from an unrelated folder; ``.ci/run`` ends with the README's full
test command; the run commands turn Streamlit's usage statistics off; the quick check
selects by registered markers only; the app says in visible text when it lists only the
embedded samples.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()
TIMEOUT = 180


def _blocks(language: str) -> list[str]:
    return [b.strip() for b in re.findall(rf"```{language}\n(.*?)```", README, re.DOTALL)]


def _block_after(heading_text: str) -> str:
    """The first bash block after the paragraph that contains ``heading_text``."""
    start = README.index(heading_text)
    return re.search(r"```bash\n(.*?)```", README[start:], re.DOTALL).group(1).strip()


def test_setup_starts_with_a_virtual_environment():
    bash = _blocks("bash")
    venv = next(i for i, b in enumerate(bash) if "-m venv" in b)
    app = next(i for i, b in enumerate(bash) if "streamlit run app.py" in b)
    assert venv < app, "the venv line comes before the first install"
    assert "activate" in bash[venv]


def test_every_run_command_turns_usage_statistics_off():
    runs = re.findall(r"streamlit run app\.py[^`\n]*(?:\n[^`\n]+)?", README)
    assert runs
    for command in runs:
        assert "--browser.gatherUsageStats false" in command, command


def test_ci_runs_exactly_the_readmes_full_test_command():
    full = _block_after("Set up and run the tests")
    assert full == 'pip install -e ".[test]" && python -m pytest'
    ci = (REPO / ".ci" / "run").read_text().splitlines()
    commands = [line.strip() for line in ci if line.strip() and not line.lstrip().startswith("#")]
    assert commands[-1] == full


def test_quick_check_uses_registered_markers_and_stops_at_the_first_failure():
    quick = _block_after("A quick check")
    argv = shlex.split(quick)
    assert argv[:3] == ["python", "-m", "pytest"] and "-x" in argv
    expression = argv[argv.index("-m", 3) + 1]
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    registered = {m.split(":")[0] for m in config["tool"]["pytest"]["ini_options"]["markers"]}
    used = set(re.findall(r"\b(?!not\b|and\b|or\b)\w+", expression))
    assert used and used <= registered, (used, registered)


def test_library_snippet_runs_from_any_folder(tmp_path):
    (code,) = [b for b in _blocks("python") if "import mlviz" in b]
    assert "../shared" not in code
    env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1"}
    env.pop("MLVIZ_DATA_DIR", None)
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "micro_f1" in out.stdout


# ------------------------------------------------------------- the picker says it, too
def test_data_folder_note_says_why_only_the_samples_are_listed(tmp_path):
    from pages._app.source import data_folder_note

    assert data_folder_note(tmp_path, 3) is None
    for folder, why in [
        (None, "is not set"),
        (tmp_path / "missing", "does not exist"),
        (tmp_path, "holds no ARFF data set"),
    ]:
        note = data_folder_note(folder, 0)
        assert note.startswith("Only the embedded samples are listed") and why in note
        assert "MLVIZ_DATA_DIR" in note


def _picker_script():
    from pages._app import source

    source.dataset_picker()


@pytest.fixture
def fresh_sources():
    from pages._app import source

    source._sources.clear()
    yield
    source._sources.clear()


def test_picker_shows_the_note_in_visible_text(monkeypatch, tmp_path, fresh_sources):
    monkeypatch.setenv("MLVIZ_DATA_DIR", str(tmp_path / "nowhere"))
    at = AppTest.from_function(_picker_script, default_timeout=TIMEOUT).run()
    assert not at.exception, [e.message for e in at.exception]
    captions = [c.value for c in at.sidebar.caption]
    assert any(
        "Only the embedded samples are listed" in c and "does not exist" in c for c in captions
    ), captions
