"""mlviz.synthetic: determinism, planted structure, predictive features, shipped sample files."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.cluster import SpectralClustering
from sklearn.linear_model import Ridge
from sklearn.metrics import adjusted_rand_score

from mlviz import datasets, metrics, stats
from mlviz.synthetic import (
    PLANTED_ROLES,
    SAMPLE_CUBE,
    SAMPLE_PLANTED,
    main,
    make_cube,
    make_planted,
)

SAMPLE_DIR = datasets.SAMPLE_DIR
SAMPLE_FILES = ("planted.arff", "planted.xml", "planted_groups.csv", "cube.arff", "cube.xml")


def _same_dataset(a, b) -> bool:
    return (
        np.array_equal(a.X, b.X)
        and np.array_equal(a.Y, b.Y)
        and a.label_names == b.label_names
        and a.feature_names == b.feature_names
    )


def test_planted_is_deterministic_under_a_seed():
    first, groups_first = make_planted(random_state=7)
    second, groups_second = make_planted(random_state=7)
    assert _same_dataset(first, second)
    np.testing.assert_array_equal(groups_first, groups_second)
    other, _ = make_planted(random_state=8)
    assert not np.array_equal(first.Y, other.Y)
    assert not np.array_equal(first.X, other.X)


def test_planted_shapes_names_and_types():
    ds, groups = make_planted(random_state=0)
    n_labels = 4 * 4 + 6
    assert ds.X.shape == (600, 40) and ds.X.dtype == np.float64
    assert ds.Y.shape == (600, n_labels) and ds.Y.dtype == np.uint8
    assert set(np.unique(ds.Y)) <= {0, 1}
    assert groups.shape == (n_labels,)
    np.testing.assert_array_equal(np.bincount(groups), [6, 6, 5, 5])  # 6 tails round-robin
    assert ds.label_names[:6] == ("A1", "A2", "A3", "A4", "A_rare1", "A_rare2")
    assert len(set(ds.label_names)) == n_labels
    # every label's group letter matches its planted group id
    for name, group in zip(ds.label_names, groups.tolist(), strict=True):
        assert name[0] == "ABCD"[group]


def _label_clusters(Y: np.ndarray, n_groups: int) -> np.ndarray:
    """Spectral clustering of the label columns on their positive correlations."""
    affinity = np.clip(np.corrcoef(Y.T.astype(float)), 0.0, None)
    model = SpectralClustering(n_groups, affinity="precomputed", random_state=0)
    return model.fit_predict(affinity)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_planted_groups_are_recoverable_by_spectral_clustering(seed):
    ds, groups = make_planted(random_state=seed)
    assert adjusted_rand_score(groups, _label_clusters(ds.Y, 4)) >= 0.9


def test_groups_are_not_recoverable_when_labels_are_pure_noise():
    # the recovery above is due to the planted structure, not to the clustering set-up
    ds, groups = make_planted(noise=1.0, random_state=0)
    assert adjusted_rand_score(groups, _label_clusters(ds.Y, 4)) < 0.5


def test_inclusive_pair_holds_only_when_planted():
    ds, _ = make_planted(random_state=0)
    parent, child = ds.Y[:, 0], ds.Y[:, 1]
    assert np.all(child <= parent)  # child ⇒ parent on every instance
    assert 0 < child.sum() < parent.sum()
    # the only vertices of the (child, parent) square in use are [0,0], [0,1], [1,1]
    assert {(int(c), int(p)) for c, p in zip(child, parent, strict=True)} == {
        (0, 0),
        (0, 1),
        (1, 1),
    }
    flat, _ = make_planted(hierarchical=False, random_state=0)
    assert np.any(flat.Y[:, 1] > flat.Y[:, 0])


def test_child_is_a_coin_flip_given_the_parent_so_a_threshold_of_half_rarely_predicts_it():
    """The documented property of the sample's A2: unpredictable by construction, yet ranked."""
    ds, _ = make_planted(**SAMPLE_PLANTED)
    parent, child = ds.Y[:, 0].astype(bool), ds.Y[:, 1].astype(bool)
    # a fair coin given the parent (within three binomial standard errors)
    n_parent = parent.sum()
    assert abs(child.sum() / n_parent - 0.5) < 3 * np.sqrt(0.25 / n_parent)
    ridge = Ridge(alpha=1.0).fit(ds.X[:400], ds.Y[:400])
    scores = ridge.predict(ds.X[400:])
    assert np.mean(scores[:, 1] >= 0.5) < 0.05  # rarely predicted at the 0.5 threshold
    assert metrics.per_label_scores(ds.Y[400:], (scores >= 0.5).astype(np.uint8))["f1"][1] < 0.2
    assert metrics.per_label_scores(ds.Y[400:], (scores >= 0.5).astype(np.uint8))["f1"][0] > 0.5
    # the child's scores still rank instances with the parent above those without it
    from sklearn.metrics import roc_auc_score

    assert roc_auc_score(parent[400:], scores[:, 1]) > 0.8


def test_tail_labels_are_rare_and_core_labels_are_not():
    ds, _ = make_planted(n_samples=2000, random_state=3)
    frequencies = stats.label_frequencies(ds, relative=True)
    is_tail = np.array(["_rare" in name for name in ds.label_names])
    assert is_tail.sum() == 6
    assert np.all(frequencies[is_tail] > 0)
    assert np.all(frequencies[is_tail] < 0.04)
    assert np.mean(frequencies[is_tail]) == pytest.approx(0.02, abs=0.006)
    assert np.all(frequencies[~is_tail] > 0.08)
    np.testing.assert_array_equal(np.sort(stats.tail_labels(ds, 0.05)), np.flatnonzero(is_tail))


def _ridge_vs_zeros(ds, n_train: int) -> tuple[float, float, float]:
    X, Y = ds.X, ds.Y
    ridge = Ridge(alpha=1.0).fit(X[:n_train], Y[:n_train])
    prediction = (ridge.predict(X[n_train:]) > 0.5).astype(np.uint8)
    zeros = np.zeros_like(prediction)
    truth = Y[n_train:]
    return (
        metrics.hamming_loss(truth, prediction),
        metrics.hamming_loss(truth, zeros),
        metrics.micro_f1(truth, prediction),
    )


@pytest.mark.parametrize("seed", [0, 1])
def test_planted_features_predict_labels(seed):
    ds, _ = make_planted(random_state=seed)
    ridge_loss, zeros_loss, ridge_micro_f1 = _ridge_vs_zeros(ds, 400)
    assert ridge_loss < 0.7 * zeros_loss
    assert ridge_micro_f1 > 0.6  # the all-zeros predictor has micro F1 = 0


def test_planted_input_errors():
    with pytest.raises(ValueError, match="n_groups must be an integer >= 1"):
        make_planted(n_groups=0, random_state=0)
    with pytest.raises(ValueError, match="labels_per_group must be an integer >= 2"):
        make_planted(labels_per_group=1, hierarchical=True, random_state=0)
    with pytest.raises(ValueError, match="tail_frequency must be in"):
        make_planted(tail_frequency=0.5, random_state=0)
    with pytest.raises(ValueError, match="noise is a probability"):
        make_planted(noise=1.5, random_state=0)
    with pytest.raises(ValueError, match="n_features must be an integer >= 4"):
        make_planted(n_features=3, random_state=0)
    make_planted(
        labels_per_group=1, hierarchical=False, n_tail=0, random_state=0
    )  # the smallest valid set-up
    many, _ = make_planted(n_groups=30, n_features=60, labels_per_group=2, n_tail=0, random_state=0)
    assert len(set(many.label_names)) == 60


def test_cube_fills_seven_vertices_and_is_deterministic():
    cube = make_cube(random_state=0)
    assert cube.Y.shape == (200, 3) and cube.label_names == ("a", "b", "c")
    vertices = {tuple(row) for row in cube.Y.tolist()}
    assert len(vertices) == 7
    assert (1, 1, 1) not in vertices
    assert _same_dataset(cube, make_cube(random_state=0))
    assert not np.array_equal(cube.Y, make_cube(random_state=1).Y)


def test_cube_features_predict_labels():
    ridge_loss, zeros_loss, _ = _ridge_vs_zeros(make_cube(n_samples=400, random_state=0), 300)
    assert ridge_loss < 0.5 * zeros_loss


# --------------------------------------------------------------------------- shipped files


@pytest.fixture(scope="module")
def fresh_samples(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("samples")
    main(["--out", str(out)])
    return out


@pytest.mark.parametrize("name", SAMPLE_FILES)
def test_shipped_sample_files_equal_a_fresh_generation(fresh_samples, name):
    shipped = SAMPLE_DIR / name
    assert shipped.exists(), f"{shipped} is missing: run python -m mlviz.synthetic"
    assert shipped.read_bytes() == (fresh_samples / name).read_bytes(), (
        f"{shipped} differs from what the code generates: run python -m mlviz.synthetic"
    )


def test_shipped_samples_load_back_identical():
    from mlviz import load_arff

    planted, groups = make_planted(**SAMPLE_PLANTED)
    assert _same_dataset(load_arff(SAMPLE_DIR / "planted.arff"), planted)
    assert _same_dataset(load_arff(SAMPLE_DIR / "cube.arff"), make_cube(**SAMPLE_CUBE))
    with (SAMPLE_DIR / "planted_groups.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["label"] for row in rows] == list(planted.label_names)
    assert [int(row["group"]) for row in rows] == groups.tolist()
    roles = [row["role"] for row in rows]
    assert set(roles) == set(PLANTED_ROLES)
    assert roles[:2] == ["parent", "child"]
    assert [
        name for name, role in zip(planted.label_names, roles, strict=True) if role == "tail"
    ] == [name for name in planted.label_names if "_rare" in name]


def test_sample_data_is_small():
    total = sum((SAMPLE_DIR / name).stat().st_size for name in SAMPLE_FILES)
    assert total < 500_000


# --- long-tailed sets at scale (issue 14), checked on a small configuration ---------------


def test_long_tailed_shape_statistics_on_a_small_configuration():
    from mlviz.synthetic import make_long_tailed

    ds = make_long_tailed(
        n_samples=2000, n_features=120, n_labels=150, cardinality=6.0, random_state=1
    )
    assert ds.X.shape == (2000, 120) and ds.Y.shape == (2000, 150)
    assert sp.issparse(ds.X) and set(np.unique(ds.X.data)) == {1.0}
    sizes = ds.Y.sum(axis=1)
    assert sizes.min() >= 1
    assert abs(sizes.mean() - 6.0) < 0.2  # 1 + Poisson(5): mean 6
    frequencies = np.sort(ds.Y.sum(axis=0))[::-1]
    # a long tail: the head label is much more frequent than the median one
    assert frequencies[0] > 5 * np.median(frequencies)
    # with ~6 of 150 labels per instance almost every label set is distinct
    assert stats.distinct_labelsets(ds.Y) > 0.9 * 2000
    # labels and their words: every label's instances use its words more than others do
    label = int(np.argmax(ds.Y.sum(axis=0)))
    with_label = np.asarray(ds.X[ds.Y[:, label] == 1].mean(axis=0)).ravel()
    without = np.asarray(ds.X[ds.Y[:, label] == 0].mean(axis=0)).ravel()
    assert (with_label - without).max() > 0.3


def test_long_tailed_is_deterministic_and_shapes_are_the_papers():
    from mlviz.synthetic import LONG_TAILED_SHAPES, make_long_tailed

    a = make_long_tailed(n_samples=300, n_features=30, n_labels=40, cardinality=3.0, random_state=0)
    b = make_long_tailed(n_samples=300, n_features=30, n_labels=40, cardinality=3.0, random_state=0)
    assert np.array_equal(a.Y, b.Y) and (a.X != b.X).nnz == 0
    c = make_long_tailed(n_samples=300, n_features=30, n_labels=40, cardinality=3.0, random_state=2)
    assert not np.array_equal(a.Y, c.Y)
    assert LONG_TAILED_SHAPES["delicious"]["n_labels"] == 983
    assert LONG_TAILED_SHAPES["delicious"]["n_samples"] == 16105
    with pytest.raises(ValueError, match="cardinality"):
        make_long_tailed(n_samples=10, n_labels=5, cardinality=6.0, random_state=0)
