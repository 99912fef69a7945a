"""``benchmarks/run_all.py``: what it runs and what it may overwrite (no benchmark runs here).

Its default output used to be ``docs/BENCHMARKS.md``, which holds the project's hand-written
records: the command the README gave would have replaced them with a fresh table. And it
called every script's ``run`` as ``run(repeats=N)``, which failed for the scripts whose
``run`` needs arguments (``bench_app_scale.py``).
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import shutil
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def run_all():
    sys.path[:0] = [str(BENCHMARKS)]
    try:
        spec = importlib.util.spec_from_file_location("run_all", BENCHMARKS / "run_all.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.path.remove(str(BENCHMARKS))


def test_the_hand_written_records_are_never_replaced(run_all, tmp_path, capsys):
    # a copy of the project's records (a failure here must not touch the real file); no
    # benchmark is named, so none can run even if the check were gone (that exits with 1)
    records = tmp_path / "BENCHMARKS.md"
    shutil.copy(BENCHMARKS.parent / "docs" / "BENCHMARKS.md", records)
    before = records.read_bytes()
    # refused before any benchmark runs: the exit status says so and the file is untouched
    assert run_all.main(["--output", str(records), "--only", "none"]) == 2
    assert records.read_bytes() == before
    assert "not written by run_all.py" in capsys.readouterr().err
    hand = tmp_path / "notes.md"
    hand.write_text("# my notes\n", encoding="utf-8")
    assert run_all.output_refusal(hand) is not None
    assert run_all.main(["--output", str(hand), "--only", "none"]) == 2
    assert hand.read_text(encoding="utf-8") == "# my notes\n"


def test_a_report_of_the_runner_itself_may_be_replaced(run_all, tmp_path):
    report = tmp_path / "latest.md"
    assert run_all.output_refusal(report) is None  # a new file
    report.write_text(run_all.render([], repeats=1, command="x"), encoding="utf-8")
    assert report.read_text(encoding="utf-8").splitlines()[0] == run_all.MARKER
    assert run_all.output_refusal(report) is None
    # the default output is the runner's own file, not the hand-written records
    assert run_all.DEFAULT_OUTPUT.parent == BENCHMARKS.parent / "docs"
    assert run_all.DEFAULT_OUTPUT.name != "BENCHMARKS.md"


def test_every_script_it_runs_takes_repeats_and_the_others_say_why(run_all, capsys):
    runs = run_all.discover()
    skipped = capsys.readouterr().err
    assert runs and len(runs) < len(list(BENCHMARKS.glob("bench_*.py")))
    for path in runs:
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        inspect.signature(module.run).bind(repeats=1)  # TypeError if run_all's call fails
    # the one that failed under the runner before is now skipped, with its reason
    assert "skipping bench_app_scale.py: its run() needs pages" in skipped
    why = run_all.unattended_run(ast.parse((BENCHMARKS / "bench_app_scale.py").read_text()))
    assert why is not None and "pages" in why


def test_the_runners_examples(run_all):
    import doctest

    result = doctest.testmod(run_all)
    assert result.attempted >= 4 and result.failed == 0
