"""cross_validate on a real Dask cluster (worker processes) gives the serial run's numbers.

Dask is the optional ``dask`` extra; the ``test`` extra installs it, so CI runs this test.
"""

from __future__ import annotations

import os
import sys
import types

import numpy as np
import pandas as pd
import pytest

from mlviz.evaluation import cross_validate, dask_backend
from mlviz.linear import PLST, BinaryRelevance
from mlviz.mlknn import MLkNN
from mlviz.synthetic import make_planted


@pytest.fixture
def clean_main_module(monkeypatch):
    """A bare ``__main__`` while worker processes are spawned.

    multiprocessing's spawn re-imports the parent's ``__main__`` from its file in every
    child. In a pytest-xdist worker that has just run an AppTest, ``__main__`` can be
    Streamlit's temporary page script, whose re-import fails and kills the dask nanny.
    """
    monkeypatch.setitem(sys.modules, "__main__", types.ModuleType("__main__"))


@pytest.mark.filterwarnings("ignore:.*constant in the training labels")
def test_cross_validate_on_a_local_dask_cluster_equals_the_serial_run(clean_main_module):
    from dask.distributed import LocalCluster

    data, _ = make_planted(n_samples=150, random_state=0)
    X, Y = data.X, data.Y
    estimators = {
        "BR": BinaryRelevance(),
        "PLST": PLST(n_components=3),
        "ML-KNN": MLkNN(k=5),
        "broken ML-KNN": MLkNN(k=500),  # fails in every fold, on the workers too
    }
    options = dict(
        cv=3, tail_threshold=0.1, return_predictions=True, on_error="collect", random_state=0
    )
    serial = cross_validate(estimators, X, Y, **options)

    calls = []
    with (
        LocalCluster(
            processes=True, n_workers=2, threads_per_worker=1, dashboard_address=None
        ) as cluster,
        dask_backend(cluster.scheduler_address) as client,
    ):
        worker_pids = set(client.run(os.getpid).values())
        distributed = cross_validate(
            estimators, X, Y, progress=lambda *call: calls.append(call), **options
        )
    assert len(worker_pids) == 2 and os.getpid() not in worker_pids  # really other processes

    times = ["fit_time", "predict_time"]
    pd.testing.assert_frame_equal(
        serial.results.drop(columns=times), distributed.results.drop(columns=times)
    )
    pd.testing.assert_frame_equal(serial.failures, distributed.failures)
    assert list(distributed.failures["method"]) == ["broken ML-KNN"] * 3
    assert list(serial.predictions) == list(distributed.predictions) == ["BR", "PLST", "ML-KNN"]
    for name, expected in serial.predictions.items():
        np.testing.assert_array_equal(distributed.predictions[name].Y_pred, expected.Y_pred)
        np.testing.assert_allclose(distributed.predictions[name].Y_score, expected.Y_score)
    # progress still arrives once per (method, fold), as results stream back
    assert [c[0] for c in calls] == list(range(4 * 3 + 1))
