"""The upload parsers on pathological files the 100 MB limit admits (issue 29, items 3 and 5).

Generated shapes (each written once to a temporary folder): a 50 MB quoted ARFF attribute name,
CSV tables of 1 M and 5.5 M columns filling ~100 MB, an ARFF of 35 rows × 1 M values, and the
largest tables the budgets admit (50 M values as CSV, narrow and 50,000 columns wide; 8 M
values as ARFF). Each
shape is parsed in a fresh process, as the app's upload path does (``load_csv`` /
``load_arff`` on the file's bytes with ``missing="keep"``), twice: with the app's budgets
(``budget.loader_budgets``, "app") and without any (the library's default, "library").

Recorded per run: seconds of the load call, peak RSS of the process above its RSS before the
payload is read (VmHWM: the upload's bytes count), and the outcome (loaded shape, or the
start of the refusal).
``--tree`` runs the children on another checkout (e.g. ``git archive`` of an older commit, to
measure "before"); a tree whose loaders take no budget keywords runs only "library". Usage::

    python benchmarks/bench_upload_parsers.py [--shapes csv-1M,arff-35x1M] [--modes app]
        [--timeout 120] [--tree /path/to/checkout]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def _csv_columns(n_columns: int, limit: int = 99_000_000) -> tuple[str, int]:
    """A header of ``n_columns`` names and as many all-zero rows as fit under ``limit`` bytes."""
    header = ",".join(f"c{j}" for j in range(n_columns)) + "\n"
    row = ",".join(["0"] * n_columns) + "\n"
    n_rows = max((limit - len(header)) // len(row), 1)
    return header + row * n_rows, n_rows


def write_shapes(folder: Path) -> dict[str, dict]:
    """Write every shape; returns name -> {path, kind, n_labels, what}."""
    shapes: dict[str, dict] = {}
    name = "a" * 50_000_000
    path = folder / "quoted_name.arff"
    path.write_text(f"@relation r\n@attribute '{name}' numeric\n@attribute l {{0,1}}\n@data\n1,0\n")
    shapes["arff-50MB-name"] = dict(path=path, kind="arff", n_labels=1, what="50 MB quoted name")
    for label, n_columns in (("csv-1M", 1_000_000), ("csv-5.5M", 5_500_000)):
        text, n_rows = _csv_columns(n_columns)
        path = folder / f"{label}.csv"
        path.write_text(text)
        what = f"{n_rows} rows × {n_columns:,} columns"
        shapes[label] = dict(path=path, kind="csv", n_labels=1, what=what)
    n_attributes, n_rows = 1_000_000, 35
    head = "@relation wide\n"
    head += "".join(f"@attribute a{j} numeric\n" for j in range(n_attributes - 1))
    head += "@attribute l {0,1}\n@data\n"
    row = ",".join(["0"] * n_attributes) + "\n"
    path = folder / "wide.arff"
    path.write_text(head + row * n_rows)
    what = f"{n_rows} rows × {n_attributes:,} values"
    shapes["arff-35x1M"] = dict(path=path, kind="arff", n_labels=1, what=what)
    # the largest tables the app's budgets admit (budget.py): 50 M values as CSV, narrow (pandas'
    # reader) and 50,000 columns wide (numpy's), and 8 M values as ARFF (liac-arff)
    for label, n_rows, n_columns in (
        ("csv-admitted-narrow", 2_500_000, 20),
        ("csv-admitted-wide", 1_000, 50_000),
    ):
        header = ",".join(f"c{j}" for j in range(n_columns)) + "\n"
        row = ",".join(["0"] * (n_columns - 1)) + ",1\n"
        path = folder / f"{label}.csv"
        path.write_text(header + row * n_rows)
        what = f"{n_rows:,} rows × {n_columns:,} columns"
        shapes[label] = dict(path=path, kind="csv", n_labels=1, what=what)
    n_attributes, n_rows = 20, 400_000
    head = "@relation admitted\n"
    head += "".join(f"@attribute a{j} numeric\n" for j in range(n_attributes - 1))
    head += "@attribute l {0,1}\n@data\n"
    path = folder / "admitted.arff"
    path.write_text(head + ("0.25," * (n_attributes - 1) + "1\n") * n_rows)
    what = f"{n_rows:,} rows × {n_attributes} values"
    shapes["arff-admitted"] = dict(path=path, kind="arff", n_labels=1, what=what)
    for shape in shapes.values():
        shape["mb"] = round(shape["path"].stat().st_size / 1e6, 1)
    return shapes


def _peak_kb() -> int:
    """This process's peak RSS (kB). Not ru_maxrss: on Linux a child starts with its parent's
    (which wrote the 100 MB shapes), so small peaks read as 0."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _child(tree: str, path: str, kind: str, n_labels: int, mode: str) -> dict:
    """In a fresh process: read the payload, then load it; time and peak RSS of the load."""
    import inspect

    sys.path.insert(0, tree)
    from mlviz.io import DataFormatError, load_arff, load_csv

    loader = load_csv if kind == "csv" else load_arff
    kwargs: dict = {"missing": "keep"}
    if mode == "app":
        if "max_columns" not in inspect.signature(loader).parameters:
            return {"outcome": "no budget keywords in this tree"}
        sys.path.insert(1, str(REPO))  # the budgets of this checkout, the loaders of ``tree``
        from pages._app import budget

        kwargs.update(budget.loader_budgets(kind))
    # the baseline is taken before the payload is read: the peak includes the upload's bytes
    # (which the app holds anyway) and reading them
    base = _peak_kb()
    payload = Path(path).read_bytes()
    start = time.perf_counter()
    try:
        if kind == "csv":
            ds = loader(payload, n_labels, **kwargs)
        else:
            ds = loader(payload, n_labels=n_labels, **kwargs)
        outcome = f"loaded {ds.n_samples:,} × {ds.n_features:,} + {ds.n_labels} labels"
    except DataFormatError as err:
        outcome = "refused: " + str(err)[:110]
    seconds = time.perf_counter() - start
    peak = _peak_kb()
    return {
        "seconds": round(seconds, 2),
        "peak_above_mb": round((peak - base) / 1024),
        "outcome": outcome,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--shapes",
        default="arff-50MB-name,csv-1M,csv-5.5M,arff-35x1M,csv-admitted-narrow,"
        "csv-admitted-wide,arff-admitted",
    )
    parser.add_argument("--modes", default="app,library")
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--tree", default=str(REPO))
    parser.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        tree, path, kind, n_labels, mode = args.child
        print(json.dumps(_child(tree, path, kind, int(n_labels), mode)))
        return
    with tempfile.TemporaryDirectory() as folder:
        shapes = write_shapes(Path(folder))
        for name in args.shapes.split(","):
            shape = shapes[name]
            for mode in args.modes.split(","):
                command = [sys.executable, __file__, "--child", args.tree, str(shape["path"])]
                command += [shape["kind"], str(shape["n_labels"]), mode]
                start = time.perf_counter()
                try:
                    done = subprocess.run(
                        command, capture_output=True, text=True, timeout=args.timeout
                    )
                    lines = done.stdout.strip().splitlines()
                    result = json.loads(lines[-1]) if lines else {"error": done.stderr[-300:]}
                except subprocess.TimeoutExpired:
                    result = {"outcome": f"no answer within {args.timeout:.0f} s (killed)"}
                result["wall_s"] = round(time.perf_counter() - start, 1)
                line = {"shape": name, "what": shape["what"], "mb": shape["mb"], "mode": mode}
                print(json.dumps(line | result, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
