"""CLEMS fit + predict time (ridge and the paper's random forest), and the §4.1 claim table.

python benchmarks/bench_clems.py [--repeats N]      # timing table (docs/BENCHMARKS.md)
python benchmarks/bench_clems.py --claim [--seeds N] # CLEMS vs PLST/CPLST (docs/CLEMS.md)
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import make_multilabel_classification
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import Ridge
from sklearn.model_selection import train_test_split

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import (  # noqa: E402
    machine_description,
    markdown_table,
    median_time,
    mulan_dir,
)
from mlviz import CLEMS, CPLST, PLST, cost_matrix, load_arff  # noqa: E402

REGRESSORS = {
    # The claim tables give every method scikit-learn's Ridge; the timing uses CLEMS' default.
    "ridge": lambda: Ridge(alpha=1.0),
    # The paper couples CLEMS with scikit-learn random forest regression (§4.1).
    "random_forest": lambda: RandomForestRegressor(
        n_estimators=50, max_depth=10, random_state=0, n_jobs=1
    ),
}


def _splits() -> dict[str, tuple]:
    X, Y = make_multilabel_classification(2000, 100, n_classes=14, n_labels=4, random_state=0)
    splits = {"synthetic 2000x100, L=14": (X[:1600], X[1600:], Y[:1600], Y[1600:])}
    folder = mulan_dir()
    if folder is not None:
        for name in ("emotions", "yeast", "enron"):
            train = load_arff(folder / f"{name}-train.arff")
            test = load_arff(folder / f"{name}-test.arff")
            splits[name] = (train.X, test.X, train.Y, test.Y)
    return splits


def run(repeats: int = 5) -> pd.DataFrame:
    """Median fit and predict seconds of CLEMS per data set, regressor and cost.

    ``default ridge`` is CLEMS' default regressor (``paper_ridge(alpha=1.0)``, direct solve);
    ``random_forest`` is the paper's family. The synthetic split also runs the asymmetric
    rank loss, i.e. the mirrored MDS with 2 x (distinct training label sets) points.
    """
    settings = [("f1", "default ridge", None), ("f1", "random_forest", REGRESSORS["random_forest"])]
    rows = []
    for dataset, (X_tr, X_te, Y_tr, Y_te) in _splits().items():
        extra = [("rank_loss", "default ridge", None)] if dataset.startswith("synthetic") else []
        for cost, regressor_name, make_regressor in settings + extra:
            regressor = None if make_regressor is None else make_regressor()
            model = CLEMS(cost=cost, regressor=regressor, random_state=0)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                fit_s = median_time(lambda m=model, X=X_tr, Y=Y_tr: m.fit(X, Y), repeats)
            predict_s = median_time(lambda m=model, X=X_te: m.predict(X), repeats)
            test_cost = cost_matrix(Y_te, model.predict(X_te), cost).diagonal().mean()
            n_points = len(model.candidates_) * (2 if model.mirrored_ else 1)
            rows.append(
                {
                    "method": "CLEMS",
                    "dataset": dataset,
                    "shape": f"{X_tr.shape[0]}+{X_te.shape[0]} x {X_tr.shape[1]}, "
                    f"K={Y_tr.shape[1]}",
                    "params": f"cost={cost}, M=L, regressor={regressor_name}",
                    "fit_s": fit_s,
                    "predict_s": predict_s,
                    "mds_points": n_points,
                    "smacof_iters": len(model.stress_history_) - 1,
                    "test_cost": float(test_cost),
                }
            )
    return pd.DataFrame(rows)


def _full_dataset(folder: Path, name: str):
    if name == "scene":  # no full MULAN file: union of the official split
        parts = [load_arff(folder / f"scene-{p}.arff") for p in ("train", "test")]
        return np.vstack([p.X for p in parts]), np.vstack([p.Y for p in parts])
    data = load_arff(folder / f"{name}.arff")
    return data.X, data.Y


def claim_table(
    datasets=("emotions", "yeast", "scene", "birds", "medical"),
    seeds: int = 5,
    fraction: float = 1.0,
    regressor: str = "ridge",
) -> pd.DataFrame:
    """§4.1 protocol, lighter: random 50/50 splits, M = ceil(fraction * K), the same regressor
    (``REGRESSORS[regressor]``) for every method; no max-depth tuning.

    CLEMS is trained with the cost of the metric it is scored on (cost f1 for F1, cost
    accuracy for Accuracy), as in the paper. Returns mean and std over the seeds.
    """
    folder = mulan_dir()
    if folder is None:
        raise SystemExit("MULAN data folder not found (set MLVIZ_DATA_DIR)")
    rows = []
    # PLST/CPLST warn about labels that are constant in a split (medical); expected here.
    warnings.simplefilter("ignore", UserWarning)
    for name in datasets:
        X, Y = _full_dataset(folder, name)
        Y = Y.astype(np.uint8)
        m = int(np.ceil(fraction * Y.shape[1]))
        make = REGRESSORS[regressor]
        for seed in range(seeds):
            X_tr, X_te, Y_tr, Y_te = train_test_split(X, Y, test_size=0.5, random_state=seed)
            for metric in ("f1", "accuracy"):
                models = {
                    "CLEMS": CLEMS(
                        n_components=m, cost=metric, regressor=make(), random_state=seed
                    ),
                    "PLST": PLST(n_components=m, regressor=make()),
                    "CPLST": CPLST(n_components=m, alpha=1.0, regressor=make()),
                }
                for method, model in models.items():
                    predicted = model.fit(X_tr, Y_tr).predict(X_te)
                    score = 1.0 - cost_matrix(Y_te, predicted, metric).diagonal().mean()
                    rows.append((name, m, metric, method, seed, score))
    scores = pd.DataFrame(rows, columns=["dataset", "M", "metric", "method", "seed", "score"])
    summary = scores.groupby(["dataset", "M", "metric", "method"], sort=False)["score"].agg(
        ["mean", "std"]
    )
    table = summary["mean"].map("{:.4f}".format) + " ± " + summary["std"].map("{:.4f}".format)
    return table.unstack("method").reset_index()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--claim", action="store_true")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--fraction", type=float, default=1.0, help="M = ceil(fraction * K)")
    parser.add_argument("--regressor", choices=sorted(REGRESSORS), default="ridge")
    parser.add_argument("--datasets", default="emotions,yeast,scene,birds,medical")
    args = parser.parse_args()
    print(machine_description())
    print()
    if args.claim:
        table = claim_table(
            tuple(args.datasets.split(",")), args.seeds, args.fraction, args.regressor
        )
        print(markdown_table(table))
    else:
        print(markdown_table(run(args.repeats)))
