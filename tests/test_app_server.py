"""pages/_app/server.py: the server process's native threads, chosen once at start-up."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

_PROBE = """
import json
from threadpoolctl import threadpool_info
import numpy
def threads():
    return sorted({(lib["user_api"], lib["num_threads"]) for lib in threadpool_info()})
before = threads()
from pages._app import router  # what app.py imports first
after = threads()
import serve
serve.preload()  # every import of every page
print(json.dumps({"before": before, "after": after, "pages": threads()}))
"""


def test_the_server_runs_one_blas_thread_per_call_and_leaves_openmp_alone():
    # a process told to use two BLAS and two OpenMP threads (OpenBLAS's default on a 2-core
    # server) uses one BLAS thread once the router is imported, for every BLAS library the
    # pages load, and still two OpenMP threads (scikit-learn's neighbour searches)
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "OPENBLAS_NUM_THREADS": "2",
        "OMP_NUM_THREADS": "2",
        "MLVIZ_UMAP_WARM_UP": "0",
    }
    done = subprocess.run(
        [sys.executable, "-c", _PROBE],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
        check=True,
    )
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert ["blas", 2] in seen["before"]
    for stage in ("after", "pages"):
        assert {tuple(pair) for pair in seen[stage]} == {("blas", 1), ("openmp", 2)}, stage
