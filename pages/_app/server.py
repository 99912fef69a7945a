"""Process-wide settings of the app's server, made once when the router is first imported.

**One BLAS thread per call.** The server's two cores are shared by its sessions, by the worker
thread that fits a page's other estimators while its own fit runs (``fitting.fit``'s
``alongside``) and by CLEMS's blocks (:data:`mlviz.methods.APP_THREADS`), so a second BLAS
thread per call finds no idle core. OpenBLAS's threads wait for work by spinning, so they
cost CPU the other work needs: at delicious's shape (``benchmarks/bench_app_scale.py``,
stop 44) the GroPLE page's first run took 8.6-9.2 s with OpenBLAS's default two threads
(15-17 s of CPU) and 5.5-6.0 s with one; its d slider 0.79-0.88 s against 0.42-0.59 s. The
PLST page's first run, one large SVD, lost 0.3-1.2 s. The test processes make the same
choice (``tests/conftest.py``).

OpenMP (scikit-learn's neighbour searches and k-means) keeps its default: limiting it too
made no difference that this VM could show (the ML-KNN page's first run at delicious's shape,
alternating: 5.20 and 4.13 s with one OpenMP thread, 3.87 and 5.39 s with the default; its
CPU time equals its wall time either way), so only the measured cause is changed.

The limit is set with ``threadpoolctl`` on the BLAS libraries loaded when the router is first
imported (NumPy's and SciPy's OpenBLAS: every page's imports load them first). It changes the
library's own setting: for OpenBLAS built with pthreads (NumPy's and SciPy's wheels) that is
every thread's setting. A fit that pins BLAS itself (GroPLE,
:func:`mlviz._parallel.map_blocks`) restores this one when it returns.
"""

from __future__ import annotations

from threadpoolctl import threadpool_limits

#: BLAS threads per call in the server's process (see the module docstring).
BLAS_THREADS = 1

# Kept for the life of the process: never restored.
_BLAS_LIMIT = threadpool_limits(limits=BLAS_THREADS, user_api="blas")
