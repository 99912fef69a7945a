"""cross_validate serially, with joblib's processes (loky) and on a local Dask cluster.

Data: yeast and medical from the MULAN folder. Methods: BR, PLST (M = L/2) and ML-KNN (k =
10), 5 shuffled folds (15 tasks), with the tail metrics and out-of-fold predictions, as the
Compare page runs them. The Dask cluster is ``LocalCluster(processes=True, n_workers=2,
threads_per_worker=1)`` started once before the timings (its start-up is reported
separately). Each time is the median of ``repeats`` runs; every backend's scores are checked
to equal the serial ones. BLAS is limited to one thread per process, as docs/SCALING.md
recommends.

Run: ``python benchmarks/bench_dask.py`` (``--repeats N``, ``--datasets yeast medical``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(variable, "1")

import pandas as pd  # noqa: E402

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE.parent), str(_HERE)]

from _common import machine_description, markdown_table, median_time, mulan_dir  # noqa: E402

from mlviz.evaluation import cross_validate, dask_backend  # noqa: E402
from mlviz.io import load_arff  # noqa: E402
from mlviz.linear import PLST, BinaryRelevance  # noqa: E402
from mlviz.mlknn import MLkNN  # noqa: E402


def _run(data, n_jobs=None):
    estimators = {
        "BR": BinaryRelevance(),
        "PLST": PLST(n_components=max(1, data.n_labels // 2)),
        "ML-KNN": MLkNN(k=10),
    }
    return cross_validate(
        estimators,
        data.X,
        data.Y,
        cv=5,
        n_jobs=n_jobs,
        tail_threshold=0.05,
        return_predictions=True,
        on_error="collect",
        random_state=0,
    )


def _scores(result) -> pd.DataFrame:
    return result.results.drop(columns=["fit_time", "predict_time"])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--datasets", nargs="+", default=["yeast", "medical"])
    args = parser.parse_args(argv)
    folder = mulan_dir()
    if folder is None:
        sys.exit("the MULAN folder was not found (set MLVIZ_MULAN_DIR)")
    from dask.distributed import LocalCluster

    start = time.perf_counter()
    cluster = LocalCluster(
        processes=True, n_workers=2, threads_per_worker=1, dashboard_address=None
    )
    startup = time.perf_counter() - start
    rows = []
    try:
        for name in args.datasets:
            data = load_arff(folder / f"{name}.arff", xml=folder / f"{name}.xml")
            serial = _run(data)
            loky = _run(data, n_jobs=2)
            with dask_backend(cluster.scheduler_address):
                on_dask = _run(data)
                dask_time = median_time(lambda d=data: _run(d), args.repeats)
            for other in (loky, on_dask):
                pd.testing.assert_frame_equal(_scores(serial), _scores(other))
            shape = f"{data.n_samples} × {data.n_features}, {data.n_labels} labels"
            rows += [
                {
                    "data set": f"{name} ({shape})",
                    "backend": "serial (n_jobs=1)",
                    "seconds": median_time(lambda d=data: _run(d), args.repeats),
                },
                {
                    "data set": f"{name} ({shape})",
                    "backend": "joblib loky, n_jobs=2",
                    "seconds": median_time(lambda d=data: _run(d, n_jobs=2), args.repeats),
                },
                {
                    "data set": f"{name} ({shape})",
                    "backend": "Dask LocalCluster 2 × 1",
                    "seconds": dask_time,
                },
            ]
    finally:
        cluster.close()
    print(machine_description())
    print(
        f"\nLocalCluster start-up: {startup:.1f} s; median of {args.repeats} runs; "
        "every backend's scores equal the serial run's.\n"
    )
    print(markdown_table(pd.DataFrame(rows), floatfmt=".1f"))


if __name__ == "__main__":
    main()
