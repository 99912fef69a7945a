"""Run every ``benchmarks/bench_*.py`` that can run unattended and write one report.

Such a script defines ``run(repeats: int = 5) -> pandas.DataFrame`` (one row per
measurement, times are medians of ``repeats`` runs), callable as ``run(repeats=N)``: a
``repeats`` parameter and a default for every other one. Scripts without such a ``run``
(those that need arguments, e.g. ``bench_app_scale.py`` and its pages, or only run from
their own command line) are listed as skipped, with the reason; run them on their own. The
runner calls each ``run`` in its own Python process so that the peak resident memory it
reports belongs to that benchmark alone (``ru_maxrss`` of the child), then writes one
markdown file with the machine description, the command, and one section per benchmark.

The report goes to ``docs/benchmarks-latest.md`` by default. It never replaces a file that
this runner did not write (its first line is :data:`MARKER`): ``docs/BENCHMARKS.md`` holds
the project's hand-written records, each with the command that reproduces it.

Usage::

    python benchmarks/run_all.py                   # all benchmarks, 5 repeats
    python benchmarks/run_all.py --repeats 3       # fewer repeats on a busy machine
    python benchmarks/run_all.py --only linear,mlknn --output /tmp/BENCH.md

Exit status 1 when a benchmark failed (its section then shows the error), 2 when the output
file is not one this runner wrote.
"""

from __future__ import annotations

import argparse
import ast
import pickle
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

from _common import machine_description, markdown_table  # noqa: E402

# Runs in the child process: import the script by path, call run(), pickle the table and
# report the child's own peak RSS (KiB on Linux).
_CHILD = """
import importlib.util, pickle, resource, sys
sys.path[:0] = [{repo!r}, {here!r}]
spec = importlib.util.spec_from_file_location({name!r}, {path!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
table = module.run(repeats={repeats})
with open({out!r}, "wb") as fh:
    pickle.dump(table, fh)
print("PEAK_RSS_KIB", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


#: Where the report goes unless ``--output`` says otherwise.
DEFAULT_OUTPUT = HERE.parent / "docs" / "benchmarks-latest.md"
#: The first line of every report this runner writes; a file without it is not replaced.
MARKER = "<!-- written by benchmarks/run_all.py: rerun it to update; edits here are lost -->"


def unattended_run(tree: ast.Module) -> str | None:
    """Why the script's top-level ``run`` cannot be called as ``run(repeats=N)``, or None.

    Examples
    --------
    >>> import ast
    >>> unattended_run(ast.parse("def run(repeats: int = 5, n=None): ..."))
    >>> unattended_run(ast.parse("def run(pages, repeats=1): ..."))
    'its run() needs pages'
    >>> unattended_run(ast.parse("def run(n=3): ..."))
    'its run() takes no repeats'
    >>> unattended_run(ast.parse("def main(): ..."))
    'it defines no run() function'
    """
    runs = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "run"]
    if not runs:
        return "it defines no run() function"
    arguments = runs[-1].args
    positional = arguments.posonlyargs + arguments.args
    defaulted = positional[len(positional) - len(arguments.defaults) :]
    needed = [a.arg for a in positional if a not in defaulted]
    needed += [
        a.arg
        for a, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
        if default is None
    ]
    if needed:
        return f"its run() needs {', '.join(needed)}"
    if "repeats" not in {a.arg for a in positional + arguments.kwonlyargs}:
        return "its run() takes no repeats"
    return None


def discover(only: list[str] | None = None) -> list[Path]:
    """The bench_*.py scripts whose ``run`` takes ``run(repeats=N)``, sorted by name; the
    others are named on stderr with the reason (run them on their own)."""
    scripts = []
    for path in sorted(HERE.glob("bench_*.py")):
        short = path.stem.removeprefix("bench_")
        if only and short not in only:
            continue
        why = unattended_run(ast.parse(path.read_text(encoding="utf-8")))
        if why is None:
            scripts.append(path)
        else:
            print(f"skipping {path.name}: {why}; run it on its own", file=sys.stderr)
    return scripts


def output_refusal(path: Path) -> str | None:
    """Why ``path`` may not be written (it exists and this runner did not write it), or
    None."""
    if not path.exists():
        return None
    with path.open(encoding="utf-8") as fh:
        first = fh.readline().rstrip("\n")
    if first == MARKER:
        return None
    return (
        f"run_all.py: {path} was not written by run_all.py (its first line is not the "
        "runner's marker), so it is not replaced: docs/BENCHMARKS.md holds hand-written "
        "records. Pass --output with a new file or one this runner wrote."
    )


def _summary(path: Path) -> str:
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return doc.split("\n\n")[0].replace("\n", " ").strip()


def run_one(path: Path, repeats: int) -> dict:
    """Run one benchmark in a child process; returns table, peak RSS, wall time or error."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "table.pkl"
        code = _CHILD.format(
            repo=str(HERE.parent),
            here=str(HERE),
            name=path.stem,
            path=str(path),
            repeats=repeats,
            out=str(out),
        )
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        wall = time.perf_counter() - start
        result = {"script": path.name, "summary": _summary(path), "wall_s": wall}
        if proc.returncode != 0 or not out.exists():
            result["error"] = (proc.stderr or proc.stdout).strip()[-3000:]
            return result
        with out.open("rb") as fh:
            result["table"] = pickle.load(fh)
        peaks = [
            line.split()[1] for line in proc.stdout.splitlines() if line.startswith("PEAK_RSS")
        ]
        result["peak_rss_mib"] = int(peaks[-1]) / 1024 if peaks else float("nan")
        return result


def render(
    results: list[dict], *, repeats: int, command: str, not_run: list[str] | None = None
) -> str:
    lines = [
        MARKER,
        "",
        "# Benchmarks",
        "",
        "Fit and predict times of the mlviz estimators (medians of several runs), written by "
        "`benchmarks/run_all.py` from each `benchmarks/bench_*.py`. Timings are never taken "
        "inside the test suite.",
        "",
        f"- Command: `{command}`",
        f"- Date: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}",
        f"- Machine: {machine_description()}",
        f"- Repeats per measurement: {repeats} (times are medians)",
        "- Peak memory: maximum resident set size of the process that ran the benchmark "
        "(Python, libraries and data included).",
    ]
    if not_run:
        lines.append(f"- Not run this time (see `--only`): {', '.join(not_run)}")
    lines.append("")
    for res in results:
        lines += [f"## {res['script']}", "", res["summary"], ""]
        if "error" in res:
            lines += ["**Failed:**", "", "```", res["error"], "```", ""]
            continue
        lines.append(
            f"Peak memory {res['peak_rss_mib']:.0f} MiB; whole script {res['wall_s']:.1f} s "
            "wall time."
        )
        lines += ["", markdown_table(res["table"]), ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs per timing (median)")
    parser.add_argument("--only", default="", help="comma-separated names, e.g. linear,mlknn")
    parser.add_argument(
        "--output",
        type=Path,
        default=DEFAULT_OUTPUT,
        help="markdown file to write (default docs/benchmarks-latest.md); a file this runner "
        "did not write is never replaced",
    )
    args = parser.parse_args(argv)
    refusal = output_refusal(args.output)  # before any benchmark runs, not after an hour
    if refusal:
        print(refusal, file=sys.stderr)
        return 2
    only = [s.strip() for s in args.only.split(",") if s.strip()] or None
    scripts = discover(only)
    if not scripts:
        print("no benchmark script can run unattended (the skipped ones say why)", file=sys.stderr)
        return 1
    results = []
    for path in scripts:
        print(f"running {path.name} (repeats={args.repeats}) ...", file=sys.stderr, flush=True)
        res = run_one(path, args.repeats)
        status = "FAILED" if "error" in res else f"{len(res['table'])} rows"
        print(f"  {path.name}: {status} in {res['wall_s']:.1f} s", file=sys.stderr, flush=True)
        results.append(res)
    shown = ["python benchmarks/run_all.py", f"--repeats {args.repeats}"]
    if only:
        shown.append(f"--only {','.join(only)}")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    not_run = sorted({p.name for p in discover()} - {p.name for p in scripts})
    report = render(results, repeats=args.repeats, command=" ".join(shown), not_run=not_run)
    args.output.write_text(report, encoding="utf-8")
    print(f"written {args.output}", file=sys.stderr)
    failed = [r["script"] for r in results if "error" in r]
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
