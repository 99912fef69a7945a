"""Independent blocks of one computation on threads, with BLAS pinned to one thread each.

The out-of-sample placement of CLEMS (:func:`mlviz.mds.out_of_sample_smacof`) and its stress
over all candidate pairs work block by block of rows, each block independent of the others,
and most of a block's time is NumPy's element-wise work, which one BLAS call does not spread
over the cores. Threads do: NumPy releases the GIL in both, and the blocks share the inputs
without copies (measured on CLEMS's shape in ``benchmarks/bench_placement.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from numbers import Integral
from typing import TypeVar

from joblib import Parallel, delayed, effective_n_jobs
from threadpoolctl import threadpool_limits

from mlviz._compat import Interval

Item = TypeVar("Item")
Result = TypeVar("Result")

#: The parameter constraint of an ``n_jobs``: joblib's convention without its one meaningless
#: value, 0, which joblib rejects only when the threads start (after the work before them).
N_JOBS_CONSTRAINT = [
    Interval(Integral, 1, None, closed="left"),
    Interval(Integral, None, -1, closed="right"),
    None,
]


def map_blocks(
    function: Callable[[Item], Result], items: Iterable[Item], n_jobs: int | None
) -> list[Result]:
    """``[function(item) for item in items]``, on up to ``n_jobs`` threads.

    ``n_jobs`` follows joblib's convention (None is 1 unless a ``joblib.parallel_config``
    context says otherwise; -1 is every core). With more than one thread, BLAS runs one
    thread per call for the duration (``threadpoolctl``; the limit is the process's, as
    GroPLE's fit sets it), so the threads' products do not oversubscribe the cores. The
    results come in the order of ``items`` whatever the number of threads, so sums over them
    are the same.

    Examples
    --------
    >>> from mlviz._parallel import map_blocks
    >>> map_blocks(lambda n: n * n, range(5), n_jobs=2)
    [0, 1, 4, 9, 16]
    """
    items = list(items)
    n_threads = min(effective_n_jobs(n_jobs), len(items))
    if n_threads <= 1:
        return [function(item) for item in items]
    with threadpool_limits(limits=1, user_api="blas"):
        # sharedmem: threads whatever backend a parallel_config context names, since the
        # blocks write into and read from arrays they share
        return Parallel(n_jobs=n_threads, require="sharedmem")(
            delayed(function)(item) for item in items
        )
