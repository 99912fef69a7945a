"""Numbers in sentences: one rule for counts with their noun and one for percentages.

Every caption, title and verdict that states a count or a share goes through these two, so
that no page writes "1 tail labels", "14labels" or rounds one cut-off two ways ("0.24 %" on
one page, "below 0.2 %" on another: issue 31).
"""

from __future__ import annotations

__all__ = ["counted", "percent_text"]


def counted(n: int, singular: str, *, plural: str | None = None) -> str:
    """``n`` with its noun in the right number, thousands separated.

    Parameters
    ----------
    n : int
    singular : str
        The words after the number when ``n`` is 1 (e.g. ``"tail label is"``).
    plural : str, optional
        The words otherwise; default ``singular + "s"``.

    Examples
    --------
    >>> from mlviz.wording import counted
    >>> counted(1, "label"), counted(14, "label"), counted(20000, "pair")
    ('1 label', '14 labels', '20,000 pairs')
    >>> counted(1, "tail label is", plural="tail labels are")
    '1 tail label is'
    >>> counted(0, "group")
    '0 groups'
    """
    n = int(n)
    return f"{n:,} {singular if n == 1 else (plural or singular + 's')}"


def percent_text(share: float) -> str:
    """A share as a percentage with three significant digits.

    Examples
    --------
    >>> from mlviz.wording import percent_text
    >>> percent_text(0.0024), percent_text(0.05), percent_text(0.123456), percent_text(1.0)
    ('0.24%', '5%', '12.3%', '100%')
    """
    return f"{100 * float(share):.3g}%"
