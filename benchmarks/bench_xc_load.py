"""Reading Extreme Classification Repository text files (issue 32, item 1): mlviz.load_xc.

Generated files of bibtex's and delicious' shapes, and delicious with 6 times its rows (~75
MB, near the app's 100 MB upload limit: is the time linear?) (``mlviz.synthetic.make_long_tailed``
with ``LONG_TAILED_SHAPES``; features given random real values so that every value needs its full
``repr``), written once by ``mlviz.write_xc``. Per shape: the file size, the median seconds of
``load_xc`` (path → Dataset), its peak traced memory (``tracemalloc``: numpy's buffers and
Python objects, the file's text included), and, as a reference, napkinXC's C++ reader
(``napkinxc.datasets.load_libsvm_file``) on the same file. Also the app's path: the upload's
bytes with the app's budgets. Usage::

    python benchmarks/bench_xc_load.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import machine_description, markdown_table, median_time  # noqa: E402

from mlviz.io import DataFormatError, load_xc, write_xc  # noqa: E402
from mlviz.synthetic import LONG_TAILED_SHAPES, make_long_tailed  # noqa: E402


def _peak_mib(fn) -> float:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for shape, scale in (("bibtex", 1), ("delicious", 1), ("delicious", 6)):
            params = dict(LONG_TAILED_SHAPES[shape])
            params["n_samples"] = int(params["n_samples"]) * scale
            ds = make_long_tailed(**params, random_state=0)
            shape = shape if scale == 1 else f"{shape} × {scale} rows"
            X = sp.csr_matrix(ds.X, dtype=np.float64, copy=True)
            X.data = rng.random(X.nnz)
            ds = dataclasses.replace(ds, X=X)
            start = time.perf_counter()
            path, _ = write_xc(ds, Path(folder) / f"{shape.split()[0]}{scale}_data.txt")
            write_seconds = time.perf_counter() - start
            payload = path.read_bytes()
            loaded = load_xc(path)
            assert (loaded.Y == ds.Y).all() and (loaded.X != ds.X).nnz == 0
            seconds = median_time(lambda p=path: load_xc(p), args.repeats)
            peak = _peak_mib(lambda p=path: load_xc(p))
            budgets = {"max_columns": 50_000, "max_cells": 50_000_000}
            outcome = "loaded"

            def upload(b=payload, k=budgets):
                nonlocal outcome
                try:
                    load_xc(b, label_names=None, **k)
                except DataFormatError:
                    outcome = "refused (cells budget)"

            upload_seconds = median_time(upload, args.repeats)
            try:
                from napkinxc.datasets import load_libsvm_file

                napkin = median_time(lambda p=path: load_libsvm_file(str(p)), args.repeats)
            except ImportError:
                napkin = float("nan")
            rows.append(
                {
                    "shape (N × F, L)": f"{shape} ({ds.n_samples:,} × {ds.n_features:,}, "
                    f"{ds.n_labels:,})",
                    "non-zeros X / Y": f"{X.nnz:,} / {int(ds.Y.sum()):,}",
                    "file MB": round(len(payload) / 1e6, 1),
                    "load_xc s": round(seconds, 3),
                    "peak MiB": round(peak, 1),
                    "upload path s": f"{upload_seconds:.3f}, {outcome}",
                    "napkinXC s": round(napkin, 3),
                    "write_xc s": round(write_seconds, 2),
                }
            )
    print(machine_description())
    print()
    print(markdown_table(pd.DataFrame(rows)))


if __name__ == "__main__":
    main()
