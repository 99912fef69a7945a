"""What the app's pages share, one module per concern (Streamlit is imported only here and in
the page scripts, never from ``mlviz``):

* :mod:`~pages._app.source`: the data set: loaders, the sidebar's picker, ``current_dataset``;
* :mod:`~pages._app.experiment`: experiment settings (split, feature scaling, tail threshold) and
  the train/test split, with an explanation when the data cannot support one;
* :mod:`~pages._app.fitting`: the one cache of fits and computations, keyed by what they are;
* :mod:`~pages._app.library_warnings`: library warnings of a fit, shown on the page;
* :mod:`~pages._app.links`: widgets bound to the URL, so a link reopens a view;
* :mod:`~pages._app.tables`: dataframes that fit the page at 1280 x 720;
* :mod:`~pages._app.export`: charts (slide-sized PNG/SVG export) and the page's HTML report;
* :mod:`~pages._app.presentation`: presentation mode (``?present=1``) for a projector, and the
  charts' image export settings;
* :mod:`~pages._app.router`: the navigation and the sidebar (``app.py`` calls only it);
* :mod:`~pages._app.server`: process-wide settings of the server (one BLAS and one OpenMP
  thread per call), imported here, before any of the others, because OpenMP reads its
  setting when scikit-learn first loads it.

Glue between widgets and ``mlviz``: no algorithm code here.
"""

from pages._app import server  # noqa: F401  (first, for its effect: see its docstring)
