"""Reproduction of Table 3 of the PLST paper (004, Tai & Lin) on the real MULAN files.

Protocol (Section 4): random 90/10 partitions of the full data set, ridge linear regression
with lambda = 0.01 on the *raw* features (no standardisation: the authors' MATLAB ridge did
none, and raw features reproduce the table), round-based decoding, test Hamming loss as mean
and standard error over the partitions.

The full protocol is cheap (a few seconds), so CI runs it as is:
``python -m pytest tests/test_linear_paper.py -q``. One deviation, for statistics only: the
mean over one set of 20 partitions of emotions (59 test examples each) has a standard error of
~0.0045 and moves by up to ~0.007 from one random set of partitions to another, so a single
draw can miss the +-0.01 target by chance (the first set we drew gave PLST 0.2162). Emotions
therefore averages 5 independent sets of 20 partitions (100 in all, standard error ~0.002);
yeast's 20-partition mean (standard error ~0.002) is already precise enough.

CS draws a new random Hadamard projection for every partition (seeded with the partition's
index), as the authors' ``cs_encode.m`` draws one per run, and decodes with CoSaMP, the
paper's decoder; OMP runs beside it on the same projections for comparison.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import ShuffleSplit
from threadpoolctl import threadpool_limits

import mlviz
from mlviz.linear import PLST, BinaryRelevance, CompressedSensing

# Table 3: data set -> (M*, BR mean, BR se, PLST mean, PLST se, CS mean)
TABLE_3 = {
    "yeast": (4, 0.19916, 0.00211, 0.20320, 0.00204, 0.29390),
    "emotions": (2, 0.20653, 0.00412, 0.20542, 0.00467, 0.31042),
}
N_PARTITIONS = {"yeast": 20, "emotions": 100}
TOLERANCE = 0.01  # issue 3: ours within +-0.01 of each published mean


def _table_3_protocol(X, Y, n_components, n_partitions):
    losses = {"BR": [], "PLST": [], "CS": [], "CS (OMP)": []}
    splits = ShuffleSplit(n_splits=n_partitions, test_size=0.1, random_state=0)
    for partition, (train, test) in enumerate(splits.split(X)):
        # a new random Hadamard projection per partition, as the authors' cs_encode.m
        cs = CompressedSensing(n_components, projection="hadamard", random_state=partition)
        estimators = {
            "BR": BinaryRelevance(),
            "PLST": PLST(n_components),
            "CS": cs,
            "CS (OMP)": clone(cs).set_params(decoder="omp"),
        }
        for name, estimator in estimators.items():
            predicted = estimator.fit(X[train], Y[train]).predict(X[test])
            losses[name].append(np.mean(predicted != Y[test]))
    return {name: np.asarray(values) for name, values in losses.items()}


def _mean_se(values):
    return values.mean(), values.std(ddof=1) / np.sqrt(values.size)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["yeast", "emotions"])
def test_table_3_hamming_loss(name, mulan_dir):
    data = mlviz.load_arff(mulan_dir / f"{name}.arff")
    M, br_paper, br_se_paper, plst_paper, plst_se_paper, cs_paper = TABLE_3[name]
    # single-threaded BLAS: the problems are tiny and threads only fight the other test jobs
    with threadpool_limits(limits=1):
        losses = _table_3_protocol(data.X, data.Y, M, N_PARTITIONS[name])
    br, br_se = _mean_se(losses["BR"])
    plst, plst_se = _mean_se(losses["PLST"])
    cs, cs_se = _mean_se(losses["CS"])
    cs_omp, cs_omp_se = _mean_se(losses["CS (OMP)"])
    report = (
        f"{name}: BR {br:.4f} +- {br_se:.4f} (paper {br_paper}), PLST M={M} {plst:.4f} +- "
        f"{plst_se:.4f} (paper {plst_paper}), CS (CoSaMP) {cs:.4f} +- {cs_se:.4f}, "
        f"CS (OMP) {cs_omp:.4f} +- {cs_omp_se:.4f} (paper {cs_paper})"
    )
    print(report)
    assert abs(br - br_paper) <= TOLERANCE, report
    assert abs(plst - plst_paper) <= TOLERANCE, report
    # M* is where PLST is within the standard errors of BR; the paper's margin PLST - BR is
    # +0.0040 on yeast and -0.0011 on emotions
    paper_margin = max(plst_paper - br_paper, 0.0)
    assert plst - br <= paper_margin + plst_se + br_se, report
    # CS with the paper's decoder (CoSaMP, s = Table 2's nonzero) within the same +-0.01:
    # measured +0.006 on yeast (+0.005 over 200 partitions) and -0.005 on emotions
    assert abs(cs - cs_paper) <= TOLERANCE, report
    # OMP was 0.03-0.04 worse than Table 3 (issue 11); CoSaMP is what closes the gap
    assert abs(cs - cs_paper) < abs(cs_omp - cs_paper), report
    # the paper's conclusion on these label-dense sets: CS is far behind PLST at M*
    assert cs > plst + 0.05, report
