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

**No transparent huge pages for NumPy's arrays.** NumPy asks the kernel for huge pages
(``madvise(MADV_HUGEPAGE)``) for every array of 4 MB or more, and under the usual kernel policy
(``/sys/kernel/mm/transparent_hugepage/defrag`` = ``madvise``) a fault in such an array may
stall while the kernel compacts memory to find one. On this project's 2-core VM an 87 MB
product took 0.22 s (0.21 s of system time) the first time in a process, 0.044 s without the
request. At delicious's shape (``benchmarks/bench_app_scale.py``, stop 53, two runs each) no
step was slower without the requests beyond the spread between runs, and the first runs of the
largest fits were faster: CLEMS's first run 4.54, 4.25 -> 3.86, 3.45 s, PLST's 4.28, 3.99 ->
3.61, 3.49 s; all nine pages and their buttons but Compare's 89.7, 83.2 -> 83.7, 79.1 s, system
time 16.7, 15.6 -> 12.8, 12.6 s. NumPy reads ``NUMPY_MADVISE_HUGEPAGE`` when it is imported,
before this module can set it, so this module turns the requests off at run time
(``_set_madvise_hugepage``, NumPy's switch for that variable), unless the variable was set
before the process started (an operator's own value is kept).

The BLAS limit is set with ``threadpoolctl`` on NumPy's and SciPy's OpenBLAS, which this
module loads first. It changes the library's own setting: for OpenBLAS built with pthreads
(NumPy's and SciPy's wheels) that is every thread's setting. A fit that pins BLAS itself
(GroPLE, :func:`mlviz._parallel.map_blocks`) restores this one when it returns.
"""

from __future__ import annotations

import importlib
import os
import sys
import warnings

#: BLAS threads per call in the server's process (see the module docstring).
BLAS_THREADS = 1
#: OpenMP threads per call (see the module docstring): the process's default, which every new
#: thread copies, unless ``OMP_NUM_THREADS`` was set before the server started.
OPENMP_THREADS = 1
#: Whether NumPy asks for transparent huge pages (see the module docstring), unless
#: :data:`HUGE_PAGES_ENV` was set before the server started.
HUGE_PAGES = False
#: NumPy's own variable for that choice, read when NumPy is imported.
HUGE_PAGES_ENV = "NUMPY_MADVISE_HUGEPAGE"

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


def _madvise_switch():
    """NumPy's run-time switch for ``NUMPY_MADVISE_HUGEPAGE`` (``numpy._core`` from NumPy 2,
    ``numpy.core`` before), or None if this NumPy has none."""
    for name in ("numpy._core.multiarray", "numpy.core.multiarray"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        switch = getattr(module, "_set_madvise_hugepage", None)
        if switch is not None:
            return switch
    return None


def numpy_huge_pages() -> bool | None:
    """Whether NumPy asks for huge pages now (None if it has no switch). The switch returns the
    value it replaces, so reading it means setting it back."""
    switch = _madvise_switch()
    if switch is None:
        return None
    value = switch(True)
    switch(value)
    return bool(value)


def set_huge_pages(environ=os.environ, switch=_madvise_switch) -> bool:
    """Make NumPy ask for :data:`HUGE_PAGES` from now on, unless ``environ`` names
    :data:`HUGE_PAGES_ENV` (an operator's choice, which NumPy read on import). ``switch``
    finds NumPy's switch. Returns whether the setting was made; warns when NumPy has no
    switch."""
    if HUGE_PAGES_ENV in environ:
        return False
    found = switch()
    if found is None:
        warnings.warn(
            f"NumPy {numpy.__version__} has no _set_madvise_hugepage: it keeps asking for "
            f"transparent huge pages. Set {HUGE_PAGES_ENV}=0 before the server starts.",
            RuntimeWarning,
            stacklevel=2,
        )
        return False
    found(HUGE_PAGES)
    return True


set_huge_pages()
