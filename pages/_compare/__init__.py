"""The Compare page's parts (``pages/compare.py`` is the page script that runs them).

- :mod:`.context`: the page's context for one run (:class:`~.context.Compare`): the data set,
  the tail rule, the Dask scheduler.
- :mod:`.settings`: the methods and their settings (from :mod:`mlviz.methods` only), the run's
  time estimate, the estimators each fold fits.
- :mod:`.runs`: the cross-validation (one method after another, its scores dropped once its
  loss reasons are computed) and the failure messages.
- :mod:`.results`: the metrics table and chart.
- :mod:`.per_label`: which labels each method loses and why.
- :mod:`.thresholds`: what a per-label threshold would give.
- :mod:`.sweep`: a metric against the embedding dimension.

The functions that :func:`pages._app.fitting.compute` caches take only their parameters and read
the data set with :func:`pages._app.source.loaded_dataset`: the cache key is the data set's
digest and the parameters, so nothing of one run is held at module level.
"""
