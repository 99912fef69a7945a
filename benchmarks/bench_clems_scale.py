"""CLEMS with every distinct training label set (issue 22): exact vs landmark, time, memory.

Data: :func:`mlviz.synthetic.make_long_tailed` in two shapes.

* ``delicious`` -- :data:`mlviz.synthetic.LONG_TAILED_SHAPES` ["delicious"]: 16,105 x 500
  sparse features, 983 labels, cardinality 19; the fit uses every row (~15,000 distinct label
  sets), cost F1, M = L = 983, CLEMS' defaults otherwise (all candidates, ``n_landmarks="auto"``).
* ``bibtex`` -- 7,395 x 1,836, 159 labels, cardinality 2.40 as bibtex, with ``tail_exponent=1.4``
  so that a random 70 % training split has ~2,260 distinct label sets like bibtex's ~2,200
  (the shipped bibtex shape, exponent 1.0, gives 3,200). Cost F1 (and accuracy), M = L = 159.

Every measurement runs alone in a fresh Python process with one BLAS thread and, as the app's
server (``pages/_app/server.py``), without NumPy's requests for transparent huge pages
(``NUMPY_MADVISE_HUGEPAGE=0`` unless set otherwise), and reports wall
time, the process's CPU time (user + system; on a shared machine wall time overstates) and the
process's peak resident memory (``resource.getrusage(RUSAGE_SELF).ru_maxrss``: Python,
libraries and data included), with the 1-minute load average before and after.

Usage::

    python benchmarks/bench_clems_scale.py --delicious           # the issue's goal: <= 30 s, 2 GB
    python benchmarks/bench_clems_scale.py --delicious --cost rank_loss   # mirrored: 2n points
    python benchmarks/bench_clems_scale.py --delicious --train-share 0.75  # issue 33: test F1 too
    python benchmarks/bench_clems_scale.py --delicious --train-share 0.75 --n-jobs 2  # 2 threads
    python benchmarks/bench_clems_scale.py --delicious --train-share 0.75 --n-jobs 2 --refit
    python benchmarks/bench_clems_scale.py --exact-sweep         # exact path vs n (threshold)
    python benchmarks/bench_clems_scale.py --quality [--seeds 3] # landmark vs exact on bibtex shape
    python benchmarks/bench_clems_scale.py --quality --costs rank_loss --landmarks 250,500,1000
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

from _common import machine_description, markdown_table  # noqa: E402

BIBTEX_LIKE = dict(
    n_samples=7395, n_features=1836, n_labels=159, cardinality=2.40, tail_exponent=1.4
)

_CHILD = r"""
import json, os, resource, sys, time, warnings
import numpy as np
from threadpoolctl import threadpool_limits
warnings.simplefilter("ignore")
from mlviz import CLEMS
from mlviz.costs import paired_costs
from mlviz.synthetic import LONG_TAILED_SHAPES, make_long_tailed

args = json.loads(sys.argv[1])
shape = args["shape"]
load_before = os.getloadavg()[0]
if shape == "delicious":
    ds = make_long_tailed(**LONG_TAILED_SHAPES["delicious"], random_state=0)
else:
    ds = make_long_tailed(**args["params"], random_state=args.get("data_seed", 0))
X, Y = ds.X, ds.Y
if args.get("split"):
    perm = np.random.default_rng(args["seed"]).permutation(len(Y))
    cut = int(args.get("train_share", 0.7) * len(Y))
    tr, te = perm[:cut], perm[cut:]
else:
    tr = te = np.arange(len(Y))

def rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

out = {"rss_before_fit_mb": rss_mb()}
with threadpool_limits(1):
    model = CLEMS(cost=args["cost"], random_state=0, **args["clems"])
    wall, cpu = time.perf_counter(), time.process_time()
    model.fit(X[tr], Y[tr])
    out["fit_wall_s"] = time.perf_counter() - wall
    out["fit_cpu_s"] = time.process_time() - cpu
    out["peak_rss_fit_mb"] = rss_mb()
    if args.get("refit"):
        # the same fit again in this process: what a server that has fitted before waits
        # (the first fit also pays this VM's first touches of fresh memory, docs/BENCHMARKS.md)
        wall, cpu = time.perf_counter(), time.process_time()
        model = CLEMS(cost=args["cost"], random_state=0, **args["clems"]).fit(X[tr], Y[tr])
        out["refit_wall_s"] = time.perf_counter() - wall
        out["refit_cpu_s"] = time.process_time() - cpu
    wall, cpu = time.perf_counter(), time.process_time()
    predicted = model.predict(X[te])
    out["predict_wall_s"] = time.perf_counter() - wall
    out["predict_cpu_s"] = time.process_time() - cpu
out["peak_rss_mb"] = rss_mb()
out.update(
    n_rows_fit=len(tr), n_rows_predict=len(te), n_candidates=len(model.candidates_),
    n_label_sets=model.n_label_sets_, method=model.embedding_method_,
    n_landmarks=model.n_landmarks_, stress1=model.stress1_,
    landmark_stress1=model.landmark_stress1_, smacof_iters=model.n_iter_,
    unconverged=model.n_placement_unconverged_, stress_sample=model.stress_sample_size_,
    load_before=load_before, load_after=os.getloadavg()[0],
    huge_pages=os.environ.get("NUMPY_MADVISE_HUGEPAGE"),
)
if args.get("split"):
    for metric in ("f1", "accuracy"):
        out[f"test_{metric}"] = float(1 - paired_costs(Y[te], predicted, metric).mean())
    # the cost itself (lower is better): paper 002's unnormalised hard rank loss
    out["test_rank_loss"] = float(paired_costs(Y[te], predicted, "rank_loss").mean())
print("RESULT " + json.dumps(out))
"""


def _run(args: dict) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    # NumPy without transparent huge pages, as the app's server runs it (pages/_app/server.py);
    # NUMPY_MADVISE_HUGEPAGE=1 in this process's environment measures NumPy's default instead
    env.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")
    env["PYTHONPATH"] = str(HERE.parent) + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps(args)],
        capture_output=True,
        text=True,
        env=env,
        cwd=HERE.parent,
    )
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT ") :])
    raise RuntimeError(f"child failed ({done.returncode}):\n{done.stderr[-3000:]}")


def delicious(
    repeats: int = 1,
    cost: str = "f1",
    n_landmarks=None,
    train_share: float | None = None,
    n_components: int | None = None,
    n_jobs: int | None = None,
    refit: bool = False,
) -> pd.DataFrame:
    """The issue's goal: default CLEMS on the whole delicious-shaped set (fit + predict);
    ``n_landmarks`` overrides the default ``"auto"``. With ``train_share`` the fit uses that
    share of the rows (random split, seed 0) and the test F1 / accuracy / rank loss on the
    rest are reported (issue 33: 0.75, the CLEMS page's M = L fit); ``n_components`` sets M
    (default L); ``n_jobs`` CLEMS's threads (BLAS keeps one per call); ``refit`` fits a second
    time in the same process and reports that fit's time too (``refit_wall_s``)."""
    clems = {} if n_landmarks is None else {"n_landmarks": n_landmarks}
    if n_jobs is not None:
        clems["n_jobs"] = n_jobs
    if n_components is not None:
        clems["n_components"] = n_components
    split = {} if train_share is None else {"split": True, "seed": 0, "train_share": train_share}
    rows = []
    for _ in range(repeats):
        result = _run({"shape": "delicious", "cost": cost, "clems": clems, "refit": refit, **split})
        rows.append({"cost": cost, "n_jobs": n_jobs, **result})
    return pd.DataFrame(rows)


def exact_sweep(sizes=(1000, 2000, 2500, 3000, 4000)) -> pd.DataFrame:
    """The exact path at n candidates (the n most frequent label sets, ``n_landmarks=None``).

    Delicious shape (M = L = 983) and bibtex shape (M = L = 159): the time and memory of the
    n x n cost, weight and distance matrices, classical MDS and SMACOF decide the default
    threshold :data:`mlviz.clems.EXACT_MAX_CANDIDATES`.
    """
    rows = []
    for shape, params in (("delicious", None), ("bibtex", BIBTEX_LIKE)):
        for n in sizes:
            if shape == "bibtex" and n > 3000:
                continue  # the bibtex-shaped set has ~3,000 distinct label sets in all
            result = _run(
                {
                    "shape": shape,
                    "params": params,
                    "cost": "f1",
                    "clems": {"max_candidates": n, "n_landmarks": None},
                }
            )
            rows.append({"shape": shape, "n": n, **result})
    return pd.DataFrame(rows)


def quality(seeds: int = 3, landmarks=(500, 1000), costs=("f1", "accuracy")) -> pd.DataFrame:
    """Landmark vs exact CLEMS on bibtex-shaped 70/30 splits: stress-1 of the whole embedding,
    test F1, accuracy and rank loss (CLEMS trained with each cost), default ridge regressor."""
    rows = []
    for seed in range(seeds):
        for cost in costs:
            for n_landmarks in (None, *landmarks):
                result = _run(
                    {
                        "shape": "bibtex",
                        "params": BIBTEX_LIKE,
                        "split": True,
                        "seed": seed,
                        "cost": cost,
                        "clems": {"n_landmarks": n_landmarks},
                    }
                )
                setting = "exact" if n_landmarks is None else f"{n_landmarks} landmarks"
                rows.append({"seed": seed, "cost": cost, "setting": setting, **result})
    return pd.DataFrame(rows)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--delicious", action="store_true")
    parser.add_argument("--exact-sweep", action="store_true")
    parser.add_argument("--quality", action="store_true")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--cost", default="f1", help="cost of the --delicious fit")
    parser.add_argument(
        "--n-landmarks", type=int, default=None, help="n_landmarks of the --delicious fit"
    )
    parser.add_argument(
        "--train-share", type=float, default=None, help="--delicious on this share of the rows"
    )
    parser.add_argument("--n-components", type=int, default=None, help="M of the --delicious fit")
    parser.add_argument("--n-jobs", type=int, default=None, help="n_jobs of the --delicious fit")
    parser.add_argument(
        "--refit", action="store_true", help="--delicious: fit twice in one process, time both"
    )
    parser.add_argument("--costs", default="f1,accuracy", help="comma-separated costs of --quality")
    parser.add_argument(
        "--landmarks", default="500,1000", help="comma-separated n_landmarks of --quality"
    )
    args = parser.parse_args()
    print(machine_description())
    print(f"load average at start: {os.getloadavg()}")
    pd.set_option("display.width", 250)
    if args.delicious:
        table = delicious(
            args.repeats,
            args.cost,
            args.n_landmarks,
            args.train_share,
            args.n_components,
            args.n_jobs,
            args.refit,
        )
        print(markdown_table(table))
    if args.exact_sweep:
        print(markdown_table(exact_sweep()))
    if args.quality:
        table = quality(
            args.seeds,
            tuple(int(v) for v in args.landmarks.split(",")),
            tuple(args.costs.split(",")),
        )
        print(markdown_table(table))
        summary = table.groupby(["cost", "setting"], sort=False)[
            [f"test_{m}" for m in ("f1", "accuracy", "rank_loss")] + ["stress1", "fit_cpu_s"]
        ].agg(["mean", "std"])
        print(summary.round(4).to_string())
    print(f"load average at end: {os.getloadavg()}")
