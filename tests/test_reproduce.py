"""Tests of mlviz.reproduce and the ``python -m mlviz reproduce`` command (quick variants).

The full protocols are documented commands (docs/REPRODUCTION.md); here the quick variants
run on the real MULAN data when it is present.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from mlviz import reproduce as rep
from mlviz.__main__ import main

_CACHE: dict[str, pd.DataFrame] = {}


def quick(paper: str, data_dir) -> pd.DataFrame:
    if paper not in _CACHE:
        _CACHE[paper] = rep.reproduce(paper, data_dir, quick=True)
    return _CACHE[paper]


def check_structure(table: pd.DataFrame, paper: str, references) -> None:
    assert list(table.columns) == list(rep.TABLE_COLUMNS)
    assert table.attrs["paper"] == paper and table.attrs["quick"] is True
    assert table.attrs["spread"] in ("sd", "se")
    assert (table["n_runs"] > 1).all()
    assert (table["ours_spread"] >= 0).all()
    with_paper = table.dropna(subset=["paper"])
    np.testing.assert_allclose(with_paper["difference"], with_paper["ours"] - with_paper["paper"])
    np.testing.assert_array_equal(
        with_paper["within_spread"].to_numpy(dtype=bool),
        (with_paper["difference"].abs() <= with_paper["paper_spread"]).to_numpy(),
    )
    # every published number for a data set that ran appears exactly once
    ran = set(table["dataset"])
    keys = set(zip(table["dataset"], table["method"], table["metric"], strict=True))
    for ref in references:
        if ref.dataset in ran and ref.method in set(table["method"]):
            assert (ref.dataset, ref.method, ref.metric) in keys
    markdown = rep.to_markdown(table, command=f"python -m mlviz reproduce {paper} --quick")
    assert markdown.count("\n| ") >= len(table) + 1
    assert f"reproduce {paper} --quick" in markdown


def test_compare_by_hand():
    results = pd.DataFrame(
        {
            "dataset": "d",
            "method": ["A"] * 4 + ["B"] * 4,
            "fold": [0, 1, 2, 3] * 2,
            "metric": "hamming_loss",
            "value": [0.1, 0.2, 0.3, 0.2, 0.5, 0.5, 0.5, 0.5],
        }
    )
    refs = [rep.Reference("d", "A", "hamming_loss", 0.25, 0.06)]
    table = rep._compare(results, refs, "se", {("d", "A"): "M=1"})
    a = table.set_index("method").loc["A"]
    sd = math.sqrt((0.01 + 0 + 0.01 + 0) / 3)
    assert a["ours"] == pytest.approx(0.2)
    assert a["ours_spread"] == pytest.approx(sd / 2)  # standard error over 4 runs
    assert a["difference"] == pytest.approx(-0.05)
    assert bool(a["within_spread"]) is True and a["setting"] == "M=1"
    b = table.set_index("method").loc["B"]
    assert math.isnan(b["paper"]) and pd.isna(b["within_spread"])
    table_tight = rep._compare(
        results, [rep.Reference("d", "A", "hamming_loss", 0.25, 0.04)], "sd", {}
    )
    assert not table_tight["within_spread"].iloc[0]


def test_unknown_paper(tmp_path, capsys):
    with pytest.raises(ValueError, match="unknown paper 'knn'"):
        rep.reproduce("knn", tmp_path)
    with pytest.raises(SystemExit):  # argparse rejects it before any protocol runs
        main(["reproduce", "knn", "--data-dir", str(tmp_path)])
    assert "invalid choice: 'knn'" in capsys.readouterr().err


def test_cli_reports_missing_data(tmp_path, capsys):
    assert main(["reproduce", "mlknn", "--data-dir", str(tmp_path / "nowhere")]) == 1
    assert "does not exist" in capsys.readouterr().err
    assert main(["reproduce", "mlknn", "--data-dir", str(tmp_path)]) == 1
    assert "yeast" in capsys.readouterr().err


def test_mlknn_quick(mulan_dir, tmp_path, capsys):
    out = tmp_path / "report.md"
    assert (
        main(["reproduce", "mlknn", "--quick", "--data-dir", str(mulan_dir), "--output", str(out)])
        == 0
    )
    printed = capsys.readouterr().out
    assert out.read_text(encoding="utf-8") in printed + "\n"
    assert "| yeast | ML-KNN |" in printed
    table = quick("mlknn", mulan_dir)
    check_structure(table, "mlknn", rep.MLKNN_REFERENCES)
    assert len(table) == 5
    # Table 1 (k = 10): every metric within 1.5 of the paper's fold standard deviations
    assert (table["difference"].abs() <= 1.5 * table["paper_spread"]).all(), table


def test_plst_quick(mulan_dir):
    table = quick("plst", mulan_dir)
    check_structure(table, "plst", rep.PLST_REFERENCES)
    main_rows = table[table["method"].isin(["BR", "PLST"])]
    assert len(main_rows) == 4
    # issue 3 asks ±0.01 for the full 20 partitions; 5 partitions add sampling noise
    # (emotions has 60 test examples), hence 3 of our standard errors on top.
    tolerance = 0.01 + 3 * main_rows["ours_spread"]
    assert (main_rows["difference"].abs() <= tolerance).all(), main_rows
    if "CS" in set(table["method"]):
        # CS with the paper's CoSaMP decoder: the same tolerance as BR and PLST
        cs_rows = table[table["method"] == "CS"]
        assert len(cs_rows) == 2
        assert (cs_rows["difference"].abs() <= 0.01 + 3 * cs_rows["ours_spread"]).all(), cs_rows
        # OMP runs beside it, compared with the same published row
        assert set(table.loc[table["method"] == "CS (OMP)", "dataset"]) == set(cs_rows["dataset"])
        # the paper's finding on these two label-dense sets: PLST beats CS clearly
        by = table.pivot(index="dataset", columns="method", values="ours")
        assert (by["CS"] > by["PLST"] + 0.03).all(), by


def _skip_without_scene_split(mulan_dir) -> None:
    for name in ("scene-train.arff", "scene-test.arff"):
        if not (mulan_dir / name).exists():
            pytest.skip(f"the CLEMS demo protocol needs MULAN's {name}, not in {mulan_dir}")


# Tolerance of the quick CLEMS run (100 trees per forest instead of the demo's 500, the same
# 3 forest seeds), per metric: the authors' own seed-to-seed noise (±0.01, issue 22: their code
# gave accuracy 0.763 / 0.772 / 0.772) plus twice the standard error of our 3-seed mean with
# 100-tree forests. The per-seed standard deviations are the largest measured on scene with
# tol = 1e-3, 1e-4 and 1e-6 (small changes of the embedding move single seeds too): Hamming
# 0.0009, rank loss 0.0132, F1 0.0027, accuracy 0.0066. Measured at the default tol = 1e-3,
# ours minus the authors': Hamming -0.0027, rank loss -0.0059, F1 +0.0000, accuracy +0.0021.
# The former stopping rule gave accuracy 0.735 (-0.025), outside its tolerance.
CLEMS_QUICK_TOLERANCE = {
    "hamming_loss": 0.01 + 2 * 0.0009 / math.sqrt(3),
    "rank_loss": 0.01 + 2 * 0.0132 / math.sqrt(3),
    "example_f1": 0.01 + 2 * 0.0027 / math.sqrt(3),
    "accuracy": 0.01 + 2 * 0.0066 / math.sqrt(3),
}


# 12 CLEMS fits with 6 forests of 100 trees each (~0.5 s per forest on an idle core: ~40 s);
# measured 96 s at a load average of ~7 on 2 cores, 57 s at 2-3
@pytest.mark.slow
def test_clems_quick_reproduces_the_authors_demo_table(mulan_dir):
    _skip_without_scene_split(mulan_dir)
    table = quick("clems", mulan_dir)
    check_structure(table, "clems", rep.CLEMS_REFERENCES)
    assert len(table) == 4 and (table["n_runs"] == len(rep.CLEMS_SEEDS)).all()
    for row in table.itertuples(index=False):
        assert abs(row.difference) <= CLEMS_QUICK_TOLERANCE[row.metric], row
    claims = table.attrs["claims"]
    assert len(claims) == 4 and all(claim["holds"] for claim in claims), claims
    # the fit time of every cost is reported
    timed = [note for note in table.attrs["notes"] if note.startswith("cost ")]
    assert len(timed) == 4 and all(" fit " in note for note in timed)


def test_clems_demo_split_and_metrics(mulan_dir):
    _skip_without_scene_split(mulan_dir)
    X_train, Y_train, X_test, Y_test = rep.clems_scene_split(mulan_dir)
    # demo.py: 2,407 rows, the first 2407 / 2 = 1203 (Python 2 division) for training
    assert X_train.shape == (1203, 294) and X_test.shape == (1204, 294)
    assert Y_train.shape[1] == Y_test.shape[1] == 6
    # criteria.py by hand on two rows: truth {0, 1}, prediction {1, 2} of 6 labels
    truth = np.array([[1, 1, 0, 0, 0, 0]] * 2)
    pred = np.array([[0, 1, 1, 0, 0, 0]] * 2)
    assert rep.clems_demo_metric(truth, pred, "hamming_loss") == pytest.approx(2 / 6)
    # reversed pairs (missed 0) x (false alarm 2) = 1; ties: missed 0 x true negatives {3,4,5}
    # = 3 halves, hit 1 x false alarm 2 = 1 half
    assert rep.clems_demo_metric(truth, pred, "rank_loss") == pytest.approx(1 + 0.5 * (3 + 1))
    assert rep.clems_demo_metric(truth, pred, "example_f1") == pytest.approx(2 * 1 / 4)
    assert rep.clems_demo_metric(truth, pred, "accuracy") == pytest.approx(1 / 3)


def test_per_dimension_forest_draws_a_seed_per_column():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 5))
    Y = np.column_stack([X[:, 0], X[:, 0]])  # two identical targets
    model = rep.PerDimensionForest(n_estimators=5, max_depth=3, random_state=0).fit(X, Y)
    assert model.predict(X).shape == (60, 2)
    seeds = [forest.random_state for forest in model.estimators_]
    assert seeds[0] != seeds[1]  # MultiOutputRegressor would give both the same seed
    again = rep.PerDimensionForest(n_estimators=5, max_depth=3, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(model.predict(X), again.predict(X))


@pytest.mark.slow  # five GroPLE fits on medical: ~25 s on 2 busy cores
def test_grople_quick(mulan_dir):
    table = quick("grople", mulan_dir)
    check_structure(table, "grople", rep.GROPLE_REFERENCES)
    acc = table[table["metric"] == "accuracy"].set_index("method")
    # baselines with a fixed ridge: near the paper's tuned numbers
    for method in ("PLST", "CPLST"):
        assert abs(acc.loc[method, "difference"]) <= 2 * acc.loc[method, "paper_spread"]
    # Table 2: GroPLE is at least as accurate as PLST on medical
    assert acc.loc["GroPLE", "ours"] >= acc.loc["PLST", "ours"] - acc.loc["PLST", "ours_spread"]


def test_official_split_is_stacked_when_the_full_file_is_absent(mulan_dir):
    if (mulan_dir / "scene.arff").exists() or not (mulan_dir / "scene-train.arff").exists():
        pytest.skip("needs a MULAN folder with scene only as scene-train/scene-test")
    notes: list[str] = []
    [(name, data)] = list(rep._datasets(mulan_dir, ["scene"], notes))
    # published scene statistics: 2407 instances, cardinality 1.074, 15 distinct label sets
    assert name == "scene" and data.Y.shape == (2407, 6) and data.X.shape[1] == 294
    assert data.Y.sum(axis=1).mean() == pytest.approx(1.074, abs=5e-4)
    assert len({row.tobytes() for row in data.Y}) == 15
    assert "stacked" in notes[0]
