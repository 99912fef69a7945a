"""The GroPLE page's parts (``pages/grople.py`` runs them in order)."""
