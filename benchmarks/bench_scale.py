"""At scale (issue 14): time and peak memory of the library steps behind each page.

Data: the delicious-shaped set of :func:`mlviz.synthetic.make_long_tailed` (16,105 x 500
sparse, 983 labels, ~16,000 distinct label sets; first 80 % of the rows train, the rest test)
and tmc2007-500 (MULAN train/test files; skipped with the reason when the files are absent).
Every step runs alone in a fresh Python process (so the time includes what a first page
visit pays, e.g. UMAP's compilation, and the peak memory is that step's process: Python,
libraries and data included). One run per step: these are the slow operations, and the
medians of repeats would hide what a first visit costs. BLAS threads: 1 unless
``--threads`` says otherwise (the app and the estimators share 2 cores).

Usage::

    python benchmarks/bench_scale.py                       # all steps, both data sets
    python benchmarks/bench_scale.py --only plst,clems     # some steps
    python benchmarks/bench_scale.py --output /tmp/scale.md

It prints the machine and a markdown table, and writes the table to ``--output``
(default ``benchmarks/results/bench_scale.md``, not committed); ``run()`` returns the same
table for ``benchmarks/run_all.py``.
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

from _common import machine_description, markdown_table, mulan_dir  # noqa: E402

# Each step: (name, data sets it runs on, what it measures). The code of a step is the
# function of the same name in _STEPS_CODE, run in a child process.
STEPS: list[tuple[str, tuple[str, ...], str]] = [
    ("generate", ("delicious",), "make_long_tailed (delicious shape)"),
    ("stats", ("delicious", "tmc2007-500"), "Data page: distinct label sets + co-occurrence"),
    (
        "plst_sweep",
        ("delicious", "tmc2007-500"),
        "PLST page: sweep of PLST, PBR, CPLST over 12 M (+ BR at M=L), ideal learner on, "
        "bipartition metrics",
    ),
    (
        "plst_refit_per_m",
        ("delicious", "tmc2007-500"),
        "the same PLST curve by refitting per M (what the sweep did before)",
    ),
    (
        "compare_cv",
        ("delicious", "tmc2007-500"),
        "Compare page's default methods: cross_validate of BR, PLST, ML-KNN, CLEMS (M = L/2, "
        "k = 10, f1), 5 folds (delicious: also 3 and 2), tail metrics, out-of-fold labels, then "
        "per_label_comparison (tmc: the train file)",
    ),
    (
        "plst_page_model",
        ("delicious", "tmc2007-500"),
        "PLST page: fit at M=L once, truncate to a slider M, encoding-error curves",
    ),
    (
        "clems_fit",
        ("delicious", "tmc2007-500"),
        "CLEMS page: fit (f1, M=L, default cap) + predict test",
    ),
    (
        "clems_refit_m",
        ("delicious", "tmc2007-500"),
        "CLEMS: refit with another M reusing compute_candidate_costs",
    ),
    (
        "clems_cap_2000",
        ("delicious",),
        "CLEMS fit with max_candidates=2000, and the cost of one SMACOF iteration per cap",
    ),
    (
        "hypercube",
        ("delicious", "tmc2007-500"),
        "Hypercube page: occupied vertices + one-label edges (all) + PCA/MDS of the top 2000",
    ),
    ("hypercube_mds_all", ("delicious",), "landmark MDS of every occupied vertex"),
    ("umap", ("delicious",), "UMAP of the top 2000 vertices: first call (compiles), second"),
    (
        "umap_warm_up",
        ("delicious",),
        "hypercube.warm_up_umap (background thread, joined), then UMAP of the top 2000 vertices",
    ),
    (
        "mlknn",
        ("delicious", "tmc2007-500"),
        "ML-KNN page: neighbour graphs and MLkNNPath for k_max=50, then a k or s change "
        "(estimator + scores) and the page's ranking metrics, against the refit per k before",
    ),
    ("mlknn_direct", ("delicious", "tmc2007-500"), "ML-KNN fit + predict k=10 from features"),
    ("grople", ("delicious", "tmc2007-500", "medical"), "GroPLE fit (d=100, K=10 / medical K=5)"),
    ("label_clustering", ("delicious", "tmc2007-500"), "LabelClustering(10).fit(Y)"),
    (
        "distances",
        ("delicious",),
        "before/after of single operations: SMACOF distances (cdist vs GEMM), eigh drivers, "
        "distinct label sets, PLST basis",
    ),
]

_STEPS_CODE = r"""
import json, resource, sys, time, warnings
import numpy as np
warnings.simplefilter("ignore")

def load(name):
    if name == "delicious":
        from mlviz.synthetic import LONG_TAILED_SHAPES, make_long_tailed
        ds = make_long_tailed(**LONG_TAILED_SHAPES["delicious"], random_state=0)
        n_train = int(0.8 * ds.n_samples)
        return ds, ds.X[:n_train], ds.Y[:n_train], ds.X[n_train:], ds.Y[n_train:]
    from mlviz.io import load_arff
    folder = MULAN
    train = load_arff(f"{folder}/{name}-train.arff")
    test = load_arff(f"{folder}/{name}-test.arff")
    return train, train.X, train.Y, test.X, test.Y

rows = []
def timed(what, fn, **extra):
    start = time.perf_counter()
    result = fn()
    rows.append({"what": what, "seconds": time.perf_counter() - start, **extra})
    return result

# timed, with the process's CPU seconds in the note (wall time overstates on a shared machine)
def timed_cpu(what, fn):
    cpu = time.process_time()
    result = timed(what, fn)
    rows[-1]["note"] = f"CPU {time.process_time() - cpu:.2f} s"
    return result

def generate(name):
    from mlviz import stats
    from mlviz.synthetic import LONG_TAILED_SHAPES, make_long_tailed
    ds = timed("make_long_tailed",
               lambda: make_long_tailed(**LONG_TAILED_SHAPES["delicious"], random_state=0))
    rows[-1]["note"] = (f"{ds.n_samples}x{ds.n_features}, L={ds.n_labels}, "
                        f"{stats.distinct_labelsets(ds.Y)} distinct sets, "
                        f"cardinality {ds.Y.sum(1).mean():.1f}")

def stats(name):
    from mlviz import stats as st
    ds, *_ = load(name)
    timed("distinct_labelsets", lambda: st.distinct_labelsets(ds.Y))
    timed("cooccurrence", lambda: st.cooccurrence(ds.Y))

def _plst_factories(K):
    from mlviz.linear import CPLST, PBR, PLST, BinaryRelevance
    return {"PLST": lambda m: PLST(n_components=m), "PBR": lambda m: PBR(n_components=m),
            "CPLST": lambda m: CPLST(n_components=m),
            "BR": lambda m: BinaryRelevance() if m == K else None}

def _grid(K):
    return np.unique(np.round(np.geomspace(1, K, num=min(K, 12))).astype(int))

def plst_sweep(name):
    from mlviz.sweeps import parameter_sweep
    ds, Xtr, Ytr, Xte, Yte = load(name)
    K = Ytr.shape[1]
    timed("parameter_sweep (4 methods, 12 M, ideal, ranking=False)", lambda: parameter_sweep(
        _plst_factories(K), _grid(K), Xtr, Ytr, Xte, Yte, ideal=True, ranking=False))
    from mlviz.linear import PLST
    from mlviz.metrics import evaluate
    model = PLST(min(4, K)).fit(Xtr, Ytr)
    scores = model.decision_function(Xte)
    timed("one evaluate() with ranking metrics (what ranking=True adds per fit)",
          lambda: evaluate(Yte, model.predict(Xte), Y_score=scores))
    from mlviz.metrics import Evaluator
    predictions = [PLST(min(m, K)).fit(Xtr, Ytr).predict(Xte) for m in (2, 8)] * 6
    def twelve():
        evaluator = Evaluator(Yte)
        return [evaluator.score(p) for p in predictions]
    timed("Evaluator: 12 bipartition scorings of one test truth (the sweep's scoring)", twelve)

def compare_cv(name):
    from mlviz.clems import CLEMS
    from mlviz.evaluation import cross_validate, per_label_comparison
    from mlviz.linear import PLST, BinaryRelevance
    from mlviz.mlknn import MLkNN
    ds, *_ = load(name)
    m = max(1, ds.n_labels // 2)
    methods = {"BR": BinaryRelevance(), "PLST": PLST(n_components=m), "ML-KNN": MLkNN(k=10),
               "CLEMS": CLEMS(n_components=m, cost="f1", random_state=0)}
    # pages/compare.py estimates a run from the CPU times of these folds
    for folds in (5, 3, 2) if name == "delicious" else (5,):
        cpu = time.process_time()
        result = timed(
            f"cross_validate, 4 methods x {folds} folds (serial)",
            lambda: cross_validate(methods, ds.X, ds.Y, cv=folds, tail_threshold=0.05,
                                   return_predictions="labels", random_state=0))
        timed("per_label_comparison (F1, recall)", lambda: per_label_comparison(
            result.predictions, ds.Y, label_names=ds.label_names, tail_threshold=0.05))
        per_fold = ", ".join(
            f"{method} {part.fit_time.mean() + part.predict_time.mean():.1f} s"
            for method, part in result.results.groupby("method", sort=False))
        rows[-2]["note"] = (f"CPU of both rows {time.process_time() - cpu:.1f} s; per fold "
                            f"fit + predict: {per_fold}")

def plst_refit_per_m(name):
    from mlviz.linear import PLST
    ds, Xtr, Ytr, Xte, Yte = load(name)
    def loop():
        for m in _grid(Ytr.shape[1]):
            model = PLST(int(m)).fit(Xtr, Ytr)
            model.predict(Xte)
    timed("PLST fit+predict for each of 12 M", loop)

def plst_page_model(name):
    from mlviz.linear import PLST
    ds, Xtr, Ytr, Xte, Yte = load(name)
    K = Ytr.shape[1]
    full = timed("PLST fit at M=L", lambda: PLST(K).fit(Xtr, Ytr))
    timed("truncate to M=4 + predict test", lambda: full.truncate(min(4, K)).predict(Xte))
    timed("encoding_error train+test (all M)",
          lambda: (full.encoding_error(Ytr).mean(0), full.encoding_error(Yte).mean(0)))

def clems_fit(name):
    from mlviz.clems import CLEMS
    ds, Xtr, Ytr, Xte, Yte = load(name)
    model = timed("CLEMS fit", lambda: CLEMS(cost="f1", random_state=0).fit(Xtr, Ytr))
    timed("CLEMS predict test", lambda: model.predict(Xte))
    rows[0]["note"] = (f"{len(model.candidates_)} of {model.n_label_sets_} label sets kept "
                       f"(dropped cover {model.dropped_share_:.1%} of rows), "
                       f"{len(model.stress_history_) - 1} SMACOF iterations")

def clems_cap_2000(name):
    from mlviz.clems import CLEMS
    ds, Xtr, Ytr, Xte, Yte = load(name)
    model = timed("CLEMS fit, max_candidates=2000",
                  lambda: CLEMS(cost="f1", max_candidates=2000, random_state=0).fit(Xtr, Ytr))
    rows[0]["note"] = (f"dropped cover {model.dropped_share_:.1%} of rows, "
                       f"{len(model.stress_history_) - 1} SMACOF iterations")
    # the synthetic labels converge in one SMACOF iteration; what one more costs, per cap
    for cap in (1000, 2000):
        times = []
        for iterations in (1, 11):
            start = time.perf_counter()
            CLEMS(max_candidates=cap, tol=0.0, max_iter=iterations, random_state=0).fit(Xtr, Ytr)
            times.append(time.perf_counter() - start)
        rows.append({"what": f"one SMACOF iteration at M=L, max_candidates={cap}",
                     "seconds": (times[1] - times[0]) / 10,
                     "note": "(fit with 11 iterations - fit with 1) / 10"})

def clems_refit_m(name):
    from mlviz.clems import CLEMS, compute_candidate_costs
    ds, Xtr, Ytr, Xte, Yte = load(name)
    shared = timed("compute_candidate_costs", lambda: compute_candidate_costs(Ytr, "f1"))
    K = Ytr.shape[1]
    timed("CLEMS fit M=L/2 with the shared costs", lambda: CLEMS(
        n_components=max(1, K // 2), random_state=0).fit(Xtr, Ytr, candidate_costs=shared))

def hypercube(name):
    from mlviz import hypercube as hc
    ds, *_ = load(name)
    v, c = timed("occupied_vertices (all)", lambda: hc.occupied_vertices(ds.Y))
    e = timed("hamming_edges (all)", lambda: hc.hamming_edges(v))
    rows[-1]["note"] = f"{len(v)} vertices, {len(e)} edges"
    top, counts = v[:2000], c[:2000]
    timed("hamming_edges (top 2000)", lambda: hc.hamming_edges(top))
    timed("PCA projection (top 2000)",
          lambda: hc.project_vertices(top, counts, method="pca", random_state=0))
    timed("MDS projection (top 2000, landmarks)",
          lambda: hc.project_vertices(top, counts, method="mds", random_state=0))

def hypercube_mds_all(name):
    from mlviz import hypercube as hc
    ds, *_ = load(name)
    v, c = hc.occupied_vertices(ds.Y)
    timed("landmark MDS of all vertices",
          lambda: hc.project_vertices(v, c, method="mds", random_state=0))
    rows[-1]["note"] = f"{len(v)} vertices, 500 landmarks"

def umap(name):
    from mlviz import hypercube as hc
    ds, *_ = load(name)
    v, c = hc.occupied_vertices(ds.Y, max_vertices=2000)
    timed_cpu("UMAP first call in the process (import + compile + fit)",
              lambda: hc.project_vertices(v, c, method="umap", random_state=0))
    timed_cpu("UMAP second call", lambda: hc.project_vertices(v, c, method="umap", random_state=0))

def umap_warm_up(name):
    from mlviz import hypercube as hc
    ds, *_ = load(name)
    v, c = hc.occupied_vertices(ds.Y, max_vertices=2000)
    timed_cpu("UMAP warm-up thread in a fresh process (started and joined)",
              lambda: hc.warm_up_umap().join())
    timed_cpu("UMAP of the top 2000 vertices after the warm-up",
          lambda: hc.project_vertices(v, c, method="umap", random_state=0))

def mlknn(name):
    from mlviz import metrics
    from mlviz.mlknn import MLkNN, MLkNNPath, neighbors_graph
    from sklearn.metrics import label_ranking_average_precision_score, label_ranking_loss
    ds, Xtr, Ytr, Xte, Yte = load(name)
    g_train = timed_cpu("neighbors_graph train (k_max=50)",
                    lambda: neighbors_graph(Xtr, Xtr, 50, exclude_self=True))
    g_test = timed_cpu("neighbors_graph test (k_max=50)", lambda: neighbors_graph(Xte, Xtr, 50))
    path = timed_cpu("MLkNNPath(50).fit: count tables of every k <= 50 (once per split)",
                 lambda: MLkNNPath(50, metric="precomputed").fit(g_train, Ytr))
    def change():
        model = path.estimator(7, 0.5)
        return model.predict_proba(g_test), model.predict(g_test)
    scores, _ = timed_cpu("k or s change: path.estimator + predict_proba + predict", change)
    def refit():
        model = MLkNN(k=7, s=0.5, metric="precomputed").fit(g_train, Ytr)
        return model.predict_proba(g_test), model.predict(g_test)
    timed_cpu("the same by a fresh MLkNN(precomputed) fit per k", refit)
    timed_cpu("ranking_loss + average_precision (mlviz)", lambda: (
        metrics.ranking_loss(Yte, scores), metrics.average_precision(Yte, scores)))
    # scikit-learn's on the rows mlviz keeps (no empty truth); what the page called before
    kept = Yte.sum(axis=1) > 0
    timed_cpu("label_ranking_loss + label_ranking_average_precision_score (scikit-learn)", lambda: (
        label_ranking_loss(Yte[kept], scores[kept]),
        label_ranking_average_precision_score(Yte[kept], scores[kept])))

def mlknn_direct(name):
    from mlviz.mlknn import MLkNN
    ds, Xtr, Ytr, Xte, Yte = load(name)
    timed_cpu("MLkNN(k=10) fit + predict", lambda: MLkNN(k=10).fit(Xtr, Ytr).predict(Xte))

def grople(name):
    from mlviz.grople import GroPLE
    if name == "medical":
        from mlviz.io import load_arff
        ds = load_arff(f"{MULAN}/medical.arff")
        model = GroPLE(n_components=100, n_groups=5, random_state=0)
        timed("GroPLE fit (all of medical)", lambda: model.fit(ds.X, ds.Y))
        return
    ds, Xtr, Ytr, Xte, Yte = load(name)
    timed("GroPLE fit", lambda: GroPLE(n_components=100, n_groups=10, random_state=0).fit(Xtr, Ytr))

def label_clustering(name):
    from mlviz.label_clustering import LabelClustering
    ds, *_ = load(name)
    timed("LabelClustering(10).fit", lambda: LabelClustering(n_groups=10, random_state=0).fit(ds.Y))

def distances(name):
    import scipy.linalg as la
    from scipy.spatial.distance import cdist
    from mlviz.mds import euclidean_distances
    rng = np.random.default_rng(0)
    points = rng.normal(size=(1000, 983))
    timed("scipy cdist 1000x1000, 983 dims", lambda: cdist(points, points))
    timed("euclidean_distances (GEMM) same", lambda: euclidean_distances(points))
    gram = points @ points.T
    timed("eigh top 983 of 1000 (MRRR subset)",
          lambda: la.eigh(gram, subset_by_index=[17, 999]))
    timed("eigh all 1000 (divide and conquer)", lambda: la.eigh(gram, driver="evd"))
    from mlviz.stats import unique_rows
    ds, Xtr, Ytr, Xte, Yte = load(name)
    timed("np.unique(Y, axis=0) on the delicious labels", lambda: np.unique(ds.Y, axis=0))
    timed("stats.unique_rows (packed bits) same", lambda: unique_rows(ds.Y))
    Z = Ytr - Ytr.mean(axis=0)
    timed("PLST basis by SVD of the N x L Z (before)",
          lambda: la.svd(Z, full_matrices=False))
    from mlviz.linear import _right_singular_basis
    timed("PLST basis by eigh of the sparse Y^T Y (now)",
          lambda: _right_singular_basis(Ytr, Ytr.mean(axis=0)))

MULAN = sys.argv[3]
globals()[sys.argv[1]](sys.argv[2])
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print("RESULT", json.dumps({"rows": rows, "peak_mib": peak}))
"""

# files a data set needs; a step on it is skipped with this reason when one is missing
_NEEDS = {
    "tmc2007-500": ("tmc2007-500-train.arff", "tmc2007-500-test.arff", "tmc2007-500.xml"),
    "medical": ("medical.arff", "medical.xml"),
}


def _run_step(step: str, dataset: str, threads: int, mulan: Path | None) -> list[dict]:
    base = {"step": step, "dataset": dataset}
    needed = _NEEDS.get(dataset, ())
    if needed and (mulan is None or not all((mulan / f).exists() for f in needed)):
        return [
            {
                **base,
                "what": "skipped",
                "note": f"{dataset} files not found in "
                f"{mulan or '../shared/data/mulan'} (set MLVIZ_MULAN_DIR)",
            }
        ]
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(threads)
    env["PYTHONPATH"] = str(HERE.parent)
    proc = subprocess.run(
        [sys.executable, "-c", _STEPS_CODE, step, dataset, str(mulan)],
        capture_output=True,
        text=True,
        env=env,
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        error = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        return [{**base, "what": "failed", "note": error[0][:200]}]
    result = json.loads(lines[-1].removeprefix("RESULT "))
    return [{**base, **row, "peak_mib": result["peak_mib"]} for row in result["rows"]]


def run(repeats: int = 1, *, only: list[str] | None = None, threads: int = 1) -> pd.DataFrame:
    """Run the steps (each once, in its own process) and return one row per timing."""
    mulan = mulan_dir()
    rows: list[dict] = []
    for step, datasets, _ in STEPS:
        if only and step not in only:
            continue
        for dataset in datasets:
            print(f"... {step} on {dataset}", file=sys.stderr, flush=True)
            rows += _run_step(step, dataset, threads, mulan)
    table = pd.DataFrame(rows)
    for column in ("seconds", "peak_mib", "note"):
        if column not in table:
            table[column] = float("nan") if column != "note" else ""
    table["note"] = table["note"].fillna("")
    return table[["step", "dataset", "what", "seconds", "peak_mib", "note"]]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="comma-separated step names")
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads per step")
    parser.add_argument("--output", type=Path, default=HERE / "results" / "bench_scale.md")
    args = parser.parse_args(argv)
    machine = machine_description()
    print(f"Machine: {machine}")
    print(f"BLAS threads per step: {args.threads}")
    table = run(only=[s for s in args.only.split(",") if s] or None, threads=args.threads)
    text = "\n".join(
        [
            f"Machine: {machine}",
            f"BLAS threads per step: {args.threads}",
            "",
            "Steps: " + "; ".join(f"`{name}` = {what}" for name, _, what in STEPS),
            "",
            markdown_table(table, floatfmt=".3g"),
        ]
    )
    print(text)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text + "\n", encoding="utf-8")
    print(f"written to {args.output}")


if __name__ == "__main__":
    main()
