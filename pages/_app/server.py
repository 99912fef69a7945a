"""Process-wide settings of the app's server, made once when ``pages._app`` is first imported.

**One BLAS thread per call.** The server's two cores are shared by its sessions, by the worker
thread that fits a page's other estimators while its own fit runs (``fitting.fit``'s
``alongside``) and by CLEMS's blocks (:data:`mlviz.methods.APP_THREADS`), so a second BLAS
thread per call finds no idle core. OpenBLAS's threads wait for work by spinning, so they
cost CPU the other work needs: at delicious's shape (``benchmarks/bench_app_scale.py``,
stop 44) the GroPLE page's first run took 8.6-9.2 s with OpenBLAS's default two threads
(15-17 s of CPU) and 5.5-6.0 s with one; its d slider 0.79-0.88 s against 0.42-0.59 s. The
PLST page's first run, one large SVD, lost 0.3-1.2 s. The test processes make the same
choice (``tests/conftest.py``).

**One OpenMP thread per call.** scikit-learn's k-means (the Label clusters page's K sweep
runs hundreds of small ones) and its neighbour searches (ML-KNN, CLEMS's decoding) run OpenMP
loops whose threads also wait by spinning. On an idle machine a second thread changed nothing
that could be measured (stop 44: the ML-KNN page's first run at delicious's shape; stop 51:
the K sweep on 20 rows x 1,820 labels, 19.1-20.5 s with one thread or two). With the other
core busy, as on a server with more than one session, the same sweep took 46.4 s with two
threads and 21.4 s with one (``OMP_NUM_THREADS``, another process looping on the second core).

OpenMP's thread count is a setting of each thread, which a new thread copies from the
process's default, and Streamlit runs every script run in a new thread: ``threadpoolctl``
changes only the thread that calls it, so it cannot set this. The default is read from
``OMP_NUM_THREADS`` once, when the OpenMP runtime loads (scikit-learn's first import), so this
module sets that variable (an operator's own value is kept) and ``pages/_app/__init__.py``
imports it before anything imports scikit-learn. It warns when it comes too late, i.e. after
scikit-learn and with no ``OMP_NUM_THREADS`` set.

The BLAS limit is set with ``threadpoolctl`` on NumPy's and SciPy's OpenBLAS, which this
module loads first. It changes the library's own setting: for OpenBLAS built with pthreads
(NumPy's and SciPy's wheels) that is every thread's setting. A fit that pins BLAS itself
(GroPLE, :func:`mlviz._parallel.map_blocks`) restores this one when it returns.
"""

from __future__ import annotations

import os
import sys
import warnings

#: BLAS threads per call in the server's process (see the module docstring).
BLAS_THREADS = 1
#: OpenMP threads per call (see the module docstring): the process's default, which every new
#: thread copies, unless ``OMP_NUM_THREADS`` was set before the server started.
OPENMP_THREADS = 1

if "sklearn" in sys.modules and "OMP_NUM_THREADS" not in os.environ:
    # (with the variable set, OpenMP was loaded with the value it names: nothing is lost)
    warnings.warn(
        "pages._app.server was imported after scikit-learn: OpenMP keeps the thread count it "
        "was loaded with. Import pages._app (or app.py) before scikit-learn, or set "
        "OMP_NUM_THREADS before the process starts.",
        RuntimeWarning,
        stacklevel=2,
    )
os.environ.setdefault("OMP_NUM_THREADS", str(OPENMP_THREADS))

# threadpoolctl limits the BLAS libraries loaded when it is called: NumPy's and SciPy's.
import numpy  # noqa: E402, F401
import scipy.linalg  # noqa: E402, F401
from threadpoolctl import threadpool_limits  # noqa: E402

# Kept for the life of the process: never restored.
_BLAS_LIMIT = threadpool_limits(limits=BLAS_THREADS, user_api="blas")
