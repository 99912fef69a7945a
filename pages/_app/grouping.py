"""One label grouping for the whole app (issue 25): its affinity, its K and the rows it uses.

Label clusters, the Hypercube's colouring, GroPLE's stage 1 and the Lesson's groups step all
read the grouping from here: two widgets with the same keys on every page (``groups_affinity``
and ``groups_k``, kept for the session and bound to the URL), one default K by one rule
(:meth:`mlviz.label_clustering.LabelClustering.default_n_groups`: the largest eigengap whose
partition puts at most half the labels into one group and leaves at most half of them alone;
K opens at the rule's value for the
paper's heat kernel, and a page offers the rule's K of another affinity with a button), and
one fit: spectral clustering of the labels that occur, on **all rows** of the data set
(describing the labels predicts nothing, so no test row is held out), whose spectrum gives
the groups at every K (:meth:`~mlviz.label_clustering.LabelClustering.with_n_groups`: the
partitions the rule judged are the ones shown, and K moves without refitting). A page that
must group on the training split (GroPLE, whose stage 1 is part of the model) says so with
:func:`training_note`, which shows the agreement (ARI) of its groups with the all-rows
grouping.

Glue only: the clustering and the rule live in :mod:`mlviz.label_clustering`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from weakref import WeakKeyDictionary

import numpy as np
import pandas as pd
import streamlit as st
from sklearn.metrics import adjusted_rand_score

from mlviz.label_clustering import (
    MIN_ADJUSTED_STABILITY,
    MIN_COHERENT_SHARE,
    KRecommendation,
    LabelClustering,
    recommend_n_groups,
)
from mlviz.methods import AFFINITY_LABELS
from pages._app import fitting, links, source, tables

AFFINITY_KEY = "groups_affinity"
K_KEY = "groups_k"
#: Largest K offered (and the spectrum fitted, so that every eigengap up to it is known).
MAX_K = 30
#: Below this many occurring labels there is no grouping to choose (and no eigengap).
MIN_LABELS = 3
#: Where each page records the grouping it showed in this run: {page: (affinity, K, ids)}.
SHOWN_KEY = "_groupings_shown"
#: The affinity whose default K the slider opens at (the paper's heat kernel, the default
#: affinity): the slider's default must not change with the affinity, because Streamlit gives a
#: widget whose default changed a new identity and reads a link value equal to the default as
#: no value, so pages and URL would disagree. Another affinity's rule K is offered by a button.
OPENING_AFFINITY = "heat"
_AFFINITY_DOMAIN = links.Domain.choice(list(AFFINITY_LABELS))


@dataclass(frozen=True)
class Grouping:
    """The app's label grouping on the loaded data set."""

    affinity: str
    k: int
    #: K of the default rule and of the plain eigengap, for this affinity
    default_k: int
    eigengap_k: int
    k_max: int
    #: the label columns that occur (the grouping is of these) and their names
    columns: np.ndarray
    names: list[str]
    #: spectrum fitted at min(MAX_K, L) and the clustering at K from it (all rows, occurring
    #: columns; the rule judged the same partitions)
    spectrum: LabelClustering
    model: LabelClustering

    @property
    def labels_(self) -> np.ndarray:
        """Group id per occurring label (``model.labels_``)."""
        return self.model.labels_

    def full_labels(self, n_labels: int) -> np.ndarray:
        """Group id per label column of the data set; labels that never occur get an extra
        id of their own (they are on no label set, so they colour nothing)."""
        ids = np.full(n_labels, int(self.model.n_groups_), dtype=np.intp)
        ids[self.columns] = self.model.labels_
        return ids


#: The occurring columns of each data set object (weakly held, as the digests in
#: :mod:`pages._app.source`): every page that groups asks for them several times a run.
_OCCURRING: WeakKeyDictionary = WeakKeyDictionary()


def occurring_columns() -> np.ndarray:
    """The label columns of the loaded data set with at least one positive instance (read
    only; summed once per data set, not on every call: ~10 ms each at 16,105 x 983)."""
    ds = source.loaded_dataset()
    columns = _OCCURRING.get(ds)
    if columns is None:
        columns = np.flatnonzero(np.asarray(ds.Y.sum(axis=0)).ravel() > 0)
        columns.flags.writeable = False
        _OCCURRING[ds] = columns
    return columns


def _occurring_labels(columns: np.ndarray) -> np.ndarray:
    return source.loaded_dataset().Y[:, columns]


def occurring_labels() -> np.ndarray | None:
    """The label columns that occur, ``Y[:, occurring_columns()]``, as a result of the fit
    cache: a cached computation given it keys it by where it came from. A fresh copy on every
    run was hashed instead (16 MB at 16,105 x 983: ~70 ms of every rerun of the Label
    clusters page, and of every move of its K slider). The data set's own Y when every label
    occurs (no copy; keyed by name). None only if the copy failed."""
    ds = source.loaded_dataset()
    if occurring_columns().size == ds.n_labels:
        return ds.Y
    return fitting.compute(
        _occurring_labels,
        {"columns": occurring_columns()},
        label="Labels that occur",
        uses_split=False,
    )


def available() -> bool:
    """Whether the loaded data set has enough occurring labels to be grouped."""
    return occurring_columns().size >= MIN_LABELS


def _default_k(spectrum: LabelClustering, k_max: int) -> int:
    return spectrum.default_n_groups(k_max)


def _rule_k(
    affinity: str, columns: np.ndarray, k_max: int, spectrum: LabelClustering | None
) -> int | None:
    """The default rule's K for ``affinity`` (cached with the spectrum it is read from)."""
    if spectrum is None:
        spectrum = _fit(min(MAX_K, columns.size), affinity, columns, "Label spectrum")
        if spectrum is None:
            return None
    value = fitting.compute(
        _default_k, {"spectrum": spectrum, "k_max": k_max}, label="Default K", uses_split=False
    )
    return None if value is None else int(value)


def _fit(k: int, affinity: str, columns: np.ndarray, label: str) -> LabelClustering | None:
    return fitting.fit(
        LabelClustering(n_groups=k, affinity=affinity, random_state=0),
        rows="all",
        columns=columns,
        label=label,
        spinner=f"Clustering {columns.size:,} labels ({AFFINITY_LABELS[affinity]})…",
    )


def _at_k(spectrum: LabelClustering, k: int) -> LabelClustering:
    return spectrum.with_n_groups(k)


def _model(k: int, affinity: str, columns: np.ndarray, spectrum=None) -> LabelClustering | None:
    """The grouping at K: the spectrum fit's own k-means at K
    (:meth:`LabelClustering.with_n_groups`, the same estimator as a fit at K, which would
    recompute the affinity and its eigenvectors: ~0.4 s at 983 labels, on every K)."""
    if spectrum is None:
        spectrum = _fit(min(MAX_K, columns.size), affinity, columns, "Label spectrum")
        if spectrum is None:
            return None
    return fitting.compute(
        _at_k, {"spectrum": spectrum, "k": int(k)}, label="Label clustering", uses_split=False
    )


def controls(
    affinity_slot: Callable[..., object] | None = None,
    k_slot: Callable[..., object] | None = None,
) -> Grouping | None:
    """The grouping's two widgets (affinity, K) and the all-rows grouping they give.

    ``affinity_slot``/``k_slot``: where to draw them (``st`` or a column); the same widgets
    on every page, so a value set on one page is the value on the next. Returns None with a
    note when the data cannot be grouped (fewer than 3 occurring labels) or a fit failed.
    """
    affinity_slot = affinity_slot or st
    k_slot = k_slot or st
    columns = occurring_columns()
    L = columns.size
    if L < MIN_LABELS:
        st.caption(
            f"Label groups need at least {MIN_LABELS} labels that occur; this data set has {L:,}."
        )
        return None
    k_max = min(MAX_K, L - 1)  # K = L (every label alone) groups nothing
    if st.session_state.get(K_KEY, 0) > k_max or st.session_state.get(K_KEY, 2) < 2:
        st.session_state.pop(K_KEY, None)  # a previous data set had more labels
    affinity = links.bound(
        affinity_slot.selectbox,
        "Label affinity of the groups",
        list(AFFINITY_LABELS),
        format_func=AFFINITY_LABELS.__getitem__,
        key=AFFINITY_KEY,
        persist_state="session",
        help="How labels are compared before they are grouped; one setting for every page "
        "(Label clusters, Hypercube, GroPLE, the Lesson). The paper uses the heat kernel; "
        "co-occurrence keeps rare labels with the labels they occur with.",
    )
    spectrum = _fit(min(MAX_K, L), affinity, columns, "Label spectrum")
    if spectrum is None:
        return None
    default_k = _rule_k(affinity, columns, k_max, spectrum)
    opening_k = (
        default_k
        if affinity == OPENING_AFFINITY
        else _rule_k(OPENING_AFFINITY, columns, k_max, None)
    )
    if default_k is None or opening_k is None:
        return None
    eigengap_k = spectrum.suggest_n_groups(max_groups=k_max)
    if k_max <= 2:
        k_slot.caption(f"Number of groups K is 2: with {L:,} labels no other K groups them.")
        k = 2
    else:
        k = int(
            links.bound(
                k_slot.slider,
                "Number of groups K",
                2,
                k_max,
                int(opening_k),
                key=K_KEY,
                persist_state="session",
                help=f"Opens at K = {opening_k}: the largest eigengap of the "
                f"{AFFINITY_LABELS[OPENING_AFFINITY]} whose groups put at most half the labels "
                "into one group and leave at most half alone. For the "
                f"{AFFINITY_LABELS[affinity]} that rule gives K = {default_k} (the plain "
                f"eigengap K = {eigengap_k}). One setting for every page.",
            )
        )
    model = _model(k, affinity, columns, spectrum)
    if model is None:
        return None
    ds = source.loaded_dataset()
    return Grouping(
        affinity=affinity,
        k=k,
        default_k=int(default_k),
        eigengap_k=int(eigengap_k),
        k_max=k_max,
        columns=columns,
        names=[str(ds.label_names[j]) for j in columns],
        spectrum=spectrum,
        model=model,
    )


def k_choice(k: int) -> dict:
    """Session-state entries that set the shared K as the user's choice (apply them before
    the slider is drawn, e.g. from a button's callback)."""
    return {K_KEY: int(k)}


def use_k_button(slot, k: int, text: str, *, key: str, current: int) -> None:
    """A button that sets the shared K (before the next run draws the slider)."""
    slot.button(
        text,
        key=key,
        disabled=k == current,
        on_click=lambda: st.session_state.update(k_choice(k)),
    )


def record(page: str, affinity: str, k: int, ids: np.ndarray) -> None:
    """Note the grouping ``page`` showed in this run (what tests compare across pages)."""
    st.session_state.setdefault(SHOWN_KEY, {})[page] = (affinity, int(k), tuple(map(int, ids)))


def _agreement(all_rows: np.ndarray, training: np.ndarray) -> float:
    """ARI of two groupings of the same labels (cached: on every rerun of the GroPLE page,
    scikit-learn's checks and contingency table were a twentieth of it)."""
    return float(adjusted_rand_score(all_rows, training))


def training_note(grouping: Grouping, training_groups: np.ndarray, what: str) -> float:
    """Say that ``what`` groups the labels on the training rows, and how far that is from the
    app's all-rows grouping (ARI over the labels that occur); returns the ARI."""
    ids = np.asarray(training_groups)[grouping.columns]
    ari = fitting.compute(
        _agreement,
        {"all_rows": grouping.labels_, "training": ids},
        label="Agreement of the groupings",
        uses_split=False,
        small=True,
    )
    if ari is None:
        return float("nan")
    same = "the same groups as" if ari >= 1.0 - 1e-12 else "groups that differ from"
    st.caption(
        f"{what} groups the labels on the training split only (its first stage is part of the "
        f"model, so test rows are held out), with the app's K = {grouping.k} and "
        f"{AFFINITY_LABELS[grouping.affinity]}: {same} the Label clusters page's all-rows "
        f"grouping (adjusted Rand index {ari:.2f}; 1 = identical)."
    )
    return ari


def settings() -> tuple[str, int] | None:
    """The shared (affinity, K) without drawing the widgets (for a page that only uses them,
    e.g. the Lesson's GroPLE step): the link's values (parsed as for the widgets), else the
    session's, else the affinity's default K; written back to the URL, so that a link from
    such a page carries the grouping it used. None when the data cannot be grouped or the
    spectrum fit failed."""
    columns = occurring_columns()
    if columns.size < MIN_LABELS:
        return None
    affinity = links.setting(AFFINITY_KEY, _AFFINITY_DOMAIN, OPENING_AFFINITY)
    k_max = min(MAX_K, columns.size - 1)
    if k_max <= 2:
        return affinity, 2
    domain = links.Domain.integer(2, k_max)
    k = st.session_state.get(K_KEY)
    parsed = links.read(K_KEY, domain)
    if not domain.contains(k) and (parsed is None or not domain.contains(parsed.value)):
        k = _rule_k(OPENING_AFFINITY, columns, k_max, None)  # nobody chose K: the default
        if k is None:
            return None
    return affinity, int(links.setting(K_KEY, domain, int(k) if domain.contains(k) else 2))


def keep_link() -> None:
    """Keep the grouping a session chose in the URL on a run that does not use it.

    For the Lesson, whose link carries every step's settings: only values the session (or
    the link) already holds are written, so a run that never grouped computes nothing.
    """
    if any(key in st.session_state or key in st.query_params for key in (AFFINITY_KEY, K_KEY)):
        settings()


def training_agreement(training_groups: np.ndarray) -> float | None:
    """ARI between groups found on the training rows (one id per label column of the data
    set) and the all-rows grouping at the shared settings, over the labels that occur."""
    shared = settings()
    if shared is None:
        return None
    affinity, k = shared
    columns = occurring_columns()
    model = _model(k, affinity, columns)
    if model is None:
        return None
    return float(adjusted_rand_score(model.labels_, np.asarray(training_groups)[columns]))


def _k_advice(
    spectrum: LabelClustering,
    Y,
    sweep,
    tail: float,
    eigengap_k: int,
    default_k: int,
    k_max: int,
) -> KRecommendation:
    return recommend_n_groups(
        spectrum,
        Y,
        max_groups=k_max,
        sweep=sweep,
        tail_threshold=tail,
        eigengap_k=eigengap_k,
        default_k=default_k,
    )


def k_advice(grouping: Grouping, Y, *, sweep, tail: float, metric_slot, text_slot) -> None:
    """One suggested K for the grouping's affinity, with the evidence for and against each
    candidate (:func:`mlviz.label_clustering.recommend_n_groups`; issue 31: the eigengap, the
    default rule and the stability sweep each gave their own answer on its own line).

    ``Y``: the occurring label columns the grouping was fitted on; ``sweep``: the stability
    sweep when it has run (else None, and the caption says how to weigh stability in);
    ``metric_slot`` gets the "Suggested K" metric and its button, ``text_slot`` the verdict
    in words and the candidates' table.
    """
    advice = fitting.compute(
        _k_advice,
        {
            "spectrum": grouping.spectrum,
            "Y": Y,
            "sweep": sweep,
            "tail": tail,
            "eigengap_k": grouping.eigengap_k,
            "default_k": grouping.default_k,
            "k_max": grouping.k_max,
        },
        label="Suggested K",
        uses_split=False,
    )
    if advice is None:
        return
    with metric_slot:
        st.metric(
            "Suggested K",
            advice.k if advice.has_structure else "none",
            help="One K from the eigengap, the default rule and (after the sweep) the "
            "stability against shuffled labels, weighed by the groups' verdicts: see "
            "'Choosing K from evidence'.",
        )
        if advice.has_structure:
            use_k_button(
                st,
                advice.k,
                f"Use K = {advice.k}",
                key="clusters_use_suggested",
                current=grouping.k,
            )
    table = advice.candidates
    others = [int(k) for k in table["n_groups"] if k != advice.k]
    ks = ", ".join(f"K = {k}" for k in others)
    affinity = AFFINITY_LABELS[grouping.affinity]
    with text_slot:
        if advice.has_structure:
            winner = table[table["n_groups"] == advice.k].iloc[0]
            st.info(
                f"**Suggested K = {advice.k}** ({winner['proposed_by']}; {affinity}): "
                f"{winner['why']} ({winner['verdicts']})."
                + (f" Why {ks} lost: in the table." if others else "")
            )
        else:
            st.warning(
                f"**No clear group structure at the {affinity}**: none of the "
                f"{len(table)} candidate K ({', '.join(str(k) for k in table['n_groups'])}) "
                "puts most labels into coherent groups; each one's reasons are in the table. "
                "Any K gives a partition, not evidence that its labels belong together: try "
                "another affinity, or read the groups below as buckets."
            )
        # one row per candidate; the eigengap joins its rule's name and the verdicts join the
        # reasons, so that the reasons keep a readable width at 1280 px
        shown = pd.DataFrame(
            {
                "K": table["n_groups"],
                "proposed by": [
                    f"{by} (gap {gap:.3f})" if np.isfinite(gap) else by
                    for by, gap in zip(table["proposed_by"], table["eigengap"], strict=True)
                ],
                "largest group": [f"{v:.0%}" for v in table["largest_group_share"]],
                "coherent": [f"{v:.0%}" for v in table["coherent_share"]],
                "adj. stability": [
                    f"{v:.2f}" if np.isfinite(v) else "sweep not run"
                    for v in table["adjusted_stability"]
                ],
                "for / against": [
                    f"{why} — groups: {verdicts}"
                    for why, verdicts in zip(table["why"], table["verdicts"], strict=True)
                ],
            }
        )
        tables.fitted_table(
            shown,
            hide_index=True,
            column_config={
                "K": st.column_config.NumberColumn(width=40, help="number of groups K"),
                "proposed by": st.column_config.TextColumn(width=130, help="rule (eigengap)"),
                "largest group": st.column_config.TextColumn(
                    width=95, help="share of the labels in its largest group"
                ),
                "coherent": st.column_config.TextColumn(
                    width=80, help="share of the labels in coherent groups"
                ),
                "adj. stability": st.column_config.TextColumn(
                    width=100, help="stability beyond shuffled labels (the sweep below)"
                ),
                "for / against": st.column_config.TextColumn(
                    width=tables.MAIN_AREA_PX - 40 - 130 - 95 - 80 - 100 - 10,
                    help="why this K was suggested, or why it lost; its groups' verdicts",
                ),
            },
            row_height=tables.WRAP_ROW_PX,
        )
        st.caption(
            "The rule (mlviz.label_clustering.recommend_n_groups): a candidate loses when its "
            "largest group holds more than half the labels, when fewer than "
            f"{MIN_COHERENT_SHARE:.0%} of the labels are in coherent groups (the verdicts of "
            "the group table, co-occurrence rules), or, once the sweep has run, when it is no "
            f"more stable than shuffled labels (adjusted stability < {MIN_ADJUSTED_STABILITY:g})"
            "; of the rest, the most labels in coherent groups wins."
            + (
                ""
                if sweep is not None
                else " The stability sweep below has not run: press it to weigh stability in."
            )
        )
