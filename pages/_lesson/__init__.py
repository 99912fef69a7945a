"""The Lesson page's parts (``pages/lesson.py`` is the page script that runs them).

A package, not a page: the router lists the pages explicitly, and ``pages/`` holds page
scripts plus underscore packages only. Modules:

- :mod:`.methods`: the methods, costs and affinities the lesson offers, and their estimators.
- :mod:`.state`: the lesson's context for one run (:class:`~.state.Lesson`), its widgets'
  defaults and the helpers that keep them valid, bound to the URL and set by "try this";
  what a step shows (``formula``, ``explain``, ``chart``), revealed part by part while
  presenting and recorded for "Export this Lesson".
- :mod:`.fits`: every model fit the lesson makes (through the app's fit cache).
- :mod:`.text`: sentence and legibility helpers shared by the steps.
- one module per step, each with ``show(lesson)``: :mod:`.hypercube`, :mod:`.plst`,
  :mod:`.groups`, :mod:`.grople`, :mod:`.clems`, :mod:`.mlknn`, :mod:`.compare`.

Only :mod:`.state` and :mod:`.fits` import the app's helpers (:mod:`pages._app`).
"""
