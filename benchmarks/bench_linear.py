"""Linear label space transformations: fit + predict time of BR, PBR, PLST, CPLST and CS.

Data sets: yeast (dense, 1500/917, 14 labels) and tmc2007-500 (sparse, 21519/7077, 500 binary
features, 22 labels), official MULAN train/test splits, when the MULAN folder is present.
Every estimator uses its default regressor, the paper's ridge (lambda = 0.01, raw features);
CS uses Hadamard measurements and sparsity = the largest training label count, decoded by
CoSaMP (the paper's decoder; "CS") and by OMP (s capped at M; "CS (OMP)"). M sweeps
{2, 4, 8, L} on yeast and {2, 5, 11, L} on tmc2007-500; BR has M = L only. Each time is the
median of ``repeats`` runs, with BLAS limited to one thread by default: on a small shared
machine multi-threaded BLAS on these small matrices mostly measures contention (a 103 x 103
solve took 0.3 s instead of 1 ms under load).

The last rows time the encoding-error sweep that feeds the paper's Figure 10: fit_s is the one
SVD of the centred training label matrix, predict_s is ``PLST.encoding_error(Y)`` giving the
per-example error for every M = 0..K at once.

Run: ``python benchmarks/bench_linear.py`` (``--repeats N`` to change the number of runs).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.linalg as la
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

# Run as a file (python benchmarks/bench_linear.py) or imported by the runner: make both the
# repository (the mlviz package itself, whatever the installed copy) and _common importable.
_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE.parent), str(_HERE)]

from _common import machine_description, markdown_table, median_time, mulan_dir  # noqa: E402

import mlviz  # noqa: E402
from mlviz.linear import CPLST, PBR, PLST, BinaryRelevance, CompressedSensing  # noqa: E402

SWEEPS = {"yeast": (2, 4, 8, 14), "tmc2007-500": (2, 5, 11, 22)}


def _datasets():
    folder = mulan_dir()
    for stem in SWEEPS:
        if folder is None or not (folder / f"{stem}-train.arff").exists():
            print(f"skipping {stem}: MULAN data folder not found", file=sys.stderr)
            continue
        train = mlviz.load_arff(folder / f"{stem}-train.arff")
        test = mlviz.load_arff(folder / f"{stem}-test.arff")
        yield stem, train.X, train.Y, test.X, test.Y


def _estimators(n_labels: int, sweep: tuple[int, ...]):
    yield "BR", f"M={n_labels}", n_labels, BinaryRelevance
    for m in sweep:
        yield "PBR", f"M={m}, origin", m, lambda m=m: PBR(m)
        yield "PLST", f"M={m}", m, lambda m=m: PLST(m)
        yield "CPLST", f"M={m}, alpha=0.01", m, lambda m=m: CPLST(m)
        for method, decoder in (("CS", "cosamp"), ("CS (OMP)", "omp")):
            yield (
                method,
                f"M={m}, hadamard, {decoder}",
                m,
                lambda m=m, decoder=decoder: CompressedSensing(
                    m, projection="hadamard", decoder=decoder, random_state=0
                ),
            )


def run(repeats: int = 5, blas_threads: int | None = 1) -> pd.DataFrame:
    """One row per (method, data set, M): median fit and predict seconds, test Hamming loss.

    ``blas_threads`` limits BLAS/OpenMP threads while timing (None: the libraries' default).
    """
    with threadpool_limits(limits=blas_threads):
        frame = _run(repeats)
    frame["blas_threads"] = "default" if blas_threads is None else blas_threads
    return frame


def _time_fit_predict(make, X_train, Y_train, X_test, repeats: int):
    fit_s = median_time(lambda: make().fit(X_train, Y_train), repeats)
    fitted = make().fit(X_train, Y_train)
    predict_s = median_time(lambda: fitted.predict(X_test), repeats)
    return fit_s, predict_s, fitted


def _run(repeats: int) -> pd.DataFrame:
    rows = []
    for name, X_train, Y_train, X_test, Y_test in _datasets():
        n_labels = Y_train.shape[1]
        shape = (
            f"train {X_train.shape[0]}×{X_train.shape[1]}"
            f"{' sparse' if sp.issparse(X_train) else ''}, test {X_test.shape[0]}, "
            f"{n_labels} labels"
        )
        for method, params, m, make in _estimators(n_labels, SWEEPS[name]):
            fit_s, predict_s, fitted = _time_fit_predict(make, X_train, Y_train, X_test, repeats)
            rows.append(
                {
                    "method": method,
                    "dataset": name,
                    "shape": shape,
                    "params": params,
                    "M": m,
                    "fit_s": fit_s,
                    "predict_s": predict_s,
                    "hamming_loss": float(np.mean(fitted.predict(X_test) != Y_test)),
                }
            )
        centred = Y_train - Y_train.mean(axis=0)
        plst = PLST(1).fit(X_train, Y_train)
        sweep = median_time(lambda p=plst, Y=Y_train: p.encoding_error(Y), repeats)
        rows.append(
            {
                "method": "encoding-error sweep (Fig. 10)",
                "dataset": name,
                "shape": shape,
                "params": f"all M = 0..{n_labels}: one SVD + encoding_error",
                "M": n_labels,
                "fit_s": median_time(lambda c=centred: la.svd(c, full_matrices=False), repeats),
                "predict_s": sweep,
                "hamming_loss": float("nan"),
            }
        )
    return pd.DataFrame(rows)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--blas-threads", type=int, default=1, help="BLAS threads while timing (0: default)"
    )
    args = parser.parse_args()
    print(machine_description())
    print()
    print(markdown_table(run(repeats=args.repeats, blas_threads=args.blas_threads or None)))
