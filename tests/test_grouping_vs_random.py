"""The grouping against chance (issue 32 item 5; Szymański et al., Entropy 2016)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.linear_model import Ridge

from mlviz.label_clustering import GroupingVsRandom, grouping_vs_random
from mlviz.synthetic import make_planted


class GroupRankOne(BaseEstimator):
    """Each group's labels through one shared direction (a rank-1 PLST per group): a model
    whose quality depends on the grouping, so planted groups must beat random ones."""

    def __init__(self, groups=None):
        self.groups = groups

    def fit(self, X, Y):
        Y = np.asarray(Y, dtype=float)
        self.parts_ = []
        for g in np.unique(self.groups):
            members = np.flatnonzero(self.groups == g)
            mean = Y[:, members].mean(axis=0)
            _, _, vt = np.linalg.svd(Y[:, members] - mean, full_matrices=False)
            direction = vt[0]
            target = (Y[:, members] - mean) @ direction
            self.parts_.append((members, mean, direction, Ridge(alpha=1.0).fit(X, target)))
        self.n_labels_ = Y.shape[1]
        return self

    def predict(self, X):
        out = np.zeros((X.shape[0], self.n_labels_), dtype=int)
        for members, mean, direction, regressor in self.parts_:
            scores = mean + np.outer(regressor.predict(X), direction)
            out[:, members] = scores > 0.5
        return out


@pytest.fixture(scope="module")
def planted():
    ds, groups = make_planted(
        n_samples=240, n_features=24, n_groups=4, labels_per_group=4, n_tail=0, random_state=0
    )
    return ds, groups


def test_planted_groups_beat_nearly_every_random_partition(planted):
    ds, groups = planted
    result = grouping_vs_random(GroupRankOne(), ds.X, ds.Y, groups, n_random=15, cv=3)
    assert isinstance(result, GroupingVsRandom)
    assert result.group_sizes == (4, 4, 4, 4) and result.n_random == 15 and result.n_splits == 3
    assert result.p_beats_random >= 0.9
    assert result.score > np.median(result.random_scores)


def test_a_shuffled_grouping_is_at_chance(planted):
    ds, groups = planted
    # a random permutation of the planted assignment is itself one of the random partitions:
    # over several, its share of beaten partitions averages about one half
    shares = [
        grouping_vs_random(
            GroupRankOne(),
            ds.X,
            ds.Y,
            np.random.default_rng(seed).permutation(groups),
            n_random=8,
            cv=2,
            random_state=seed,
        ).p_beats_random
        for seed in range(4)
    ]
    assert 0.15 <= np.mean(shares) <= 0.85


def test_seeded_by_default_and_group_sizes_kept(planted):
    ds, groups = planted
    seen = []

    class Recording(GroupRankOne):
        def fit(self, X, Y):
            seen.append(np.bincount(self.groups).tolist())
            return super().fit(X, Y)

    first = grouping_vs_random(Recording(), ds.X, ds.Y, groups, n_random=3, cv=2)
    again = grouping_vs_random(Recording(), ds.X, ds.Y, groups, n_random=3, cv=2)
    np.testing.assert_array_equal(first.random_scores, again.random_scores)
    assert all(sorted(sizes) == [4, 4, 4, 4] for sizes in seen) and len(seen) == 16


def test_ties_count_half_and_lower_is_better_metrics():
    scores = np.array([0.2, 0.5, 0.5, 0.9])
    result = GroupingVsRandom(0.5, scores, 0.5, "micro_f1", True, (2,), 3)
    assert (result.beaten, result.tied) == (1, 2)
    from mlviz.label_clustering import _beats_share

    assert _beats_share(0.5, scores, True) == pytest.approx((1 + 0.5 * 2) / 4)
    assert _beats_share(0.5, scores, False) == pytest.approx((1 + 0.5 * 2) / 4)
    assert _beats_share(0.1, scores, False) == 1.0


def test_progress_and_errors(planted):
    ds, groups = planted
    calls = []
    grouping_vs_random(
        GroupRankOne(),
        ds.X,
        ds.Y,
        groups,
        n_random=2,
        cv=2,
        progress=lambda done, total, message: calls.append((done, total)),
    )
    assert calls[0] == (0, 6) and calls[-1] == (6, 6)
    with pytest.raises(ValueError, match="no 'groups' parameter"):
        grouping_vs_random(Ridge(), ds.X, ds.Y, groups)
    with pytest.raises(ValueError, match="scoring must be one of"):
        grouping_vs_random(GroupRankOne(), ds.X, ds.Y, groups, scoring="f1_micro")
    with pytest.raises(ValueError, match="n_random"):
        grouping_vs_random(GroupRankOne(), ds.X, ds.Y, groups, n_random=0)
    with pytest.raises(ValueError, match="label columns"):
        grouping_vs_random(GroupRankOne(), ds.X, ds.Y, groups[:-1])
