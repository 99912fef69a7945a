"""Hostile links (issue 24): every page parses its URL values itself and shows user text as text.

A class gets links from the teacher, and a student can edit one. Whatever a link holds, a page
must not raise, must not render the link's text as markdown or HTML (no link, no image, no
LaTeX, no coloured directive), must keep its notes short, and every note must say what the page
really did (used / rounded / ignored). Each page is opened as its own main script without a
data set in the session, so the sidebar (data set picker, experiment settings) is drawn and its
parameters are read from the same link.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from pages._app import links, plain

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 300
PAGES = [
    "data.py",
    "hypercube.py",
    "plst.py",
    "label_clusters.py",
    "grople.py",
    "clems.py",
    "mlknn.py",
    "compare.py",
    "lesson.py",
]

MARKDOWN_PAYLOAD = (
    "x` [Sign in again](http://evil.example/login) ![p](http://127.0.0.1:1/pixel.png) `"
)
# the values, and more: every kind of text markdown, HTML or Streamlit would interpret
HOSTILE = [
    MARKDOWN_PAYLOAD,
    "inf",
    "-inf",
    "1e309",
    "9" * 400,
    "nan",
    "<img src=x onerror=alert(1)>",
    "[click](http://evil.example)",
    "![img](http://127.0.0.1:1/pixel.png)",
    "$$\\frac{1}{0}$$",
    ":red[x] :material/warning:",
    "**bold** _it_ # heading",
    "ünïcødé ✓ 日本語 \u202eevil",
    "line\nbreak\tand\x00nul",
    "a" * 500_000,
    "",
    "{used} {0} %s",
    "www.evil.example user@evil.example",
    # a leading markdown prefix before a scheme or www (issue 29: '_' is a word character, so a
    # word boundary before the scheme missed '_https://', and chromium made it a live link)
    "_https://evil.example/x",
    "*www.evil.example*",
    "~http://evil.example~",
    "(ftp://evil.example)",
    "x_mailto:a@evil.example",
]
# a pattern shows as markdown/HTML when its first character is not backslash-escaped
DANGEROUS = ["](http", "![", "<img", "<a ", "$$", ":red[", ":material/", "www.evil", "**bold"]
MAX_NOTE_CHARS = 1_000


def page_keys(page: str) -> list[str]:
    """The URL parameters ``page`` writes when opened without a link."""
    at = open_page(page, {})
    assert not at.exception, [e.message for e in at.exception]
    return sorted(at.query_params)


def open_page(page: str, params: dict) -> AppTest:
    at = AppTest.from_file(str(REPO / "pages" / page), default_timeout=TIMEOUT)
    for name, value in params.items():
        at.query_params[name] = value
    return at.run()


def link_notes(at: AppTest) -> list[str]:
    return [w.value for w in at.warning if w.value.startswith("The link's")]


def texts(at: AppTest) -> list[str]:
    """Every markdown body and widget label the page drew."""
    out = []
    for kind in ("markdown", "caption", "warning", "info", "error", "success", "title"):
        out += [str(e.value) for e in at.get(kind)]
    out += [str(e.proto.body) for e in at.get("header") + at.get("subheader")]
    for kind in ("slider", "select_slider", "selectbox", "radio", "multiselect", "checkbox"):
        out += [str(getattr(w, "label", "")) for w in at.get(kind)]
    return out


def unescaped(text: str, pattern: str) -> bool:
    """Whether ``pattern`` occurs in ``text`` without a backslash before its first character."""
    return any(
        m.start() == 0 or text[m.start() - 1] != "\\" for m in re.finditer(re.escape(pattern), text)
    )


def assert_safe(at: AppTest) -> None:
    assert not at.exception, [e.message for e in at.exception]
    for body in texts(at):
        for pattern in DANGEROUS:
            assert not unescaped(body, pattern), (pattern, body[:300])
    for note in link_notes(at):
        assert len(note) <= MAX_NOTE_CHARS, len(note)


# ---------------------------------------------------------------------------- the helper


@pytest.mark.parametrize("value", HOSTILE, ids=range(len(HOSTILE)))
def test_plain_markdown_escapes_every_punctuation_and_cuts(value):
    shown = plain.markdown(value)
    cut = plain.text(value)
    assert len(cut) <= plain.MAX_CHARS
    assert "\n" not in cut and "\x00" not in cut and "\t" not in cut
    # every ASCII punctuation character of the text is escaped, so nothing can open markdown
    unescaped_punct = re.findall(r"(?<!\\)[!-/:-@\[-`{-~]", shown.replace("\\\\", ""))
    assert [p for p in unescaped_punct if p != "\\"] == []
    # and unescaping (and dropping the autolink breakers) gives back the (cut) text
    assert re.sub(r"\\(.)", r"\1", shown).replace(plain.WORD_JOINER, "") == cut
    # no autolink literal is left: a scheme, www or @ is followed by the word joiner
    assert not re.search(r"(?i)(https?|www)\\?[:.]|@(?!\u2060)", shown)


def test_plain_keeps_short_text_and_cuts_long_text_with_an_ellipsis():
    assert plain.text("medical") == "medical"
    assert plain.markdown("a_b") == "a\\_b"
    long = plain.text("x" * 500)
    assert len(long) == plain.MAX_CHARS and long.endswith(plain.ELLIPSIS)
    assert plain.html("<b>") == "&lt;b&gt;"


# ----------------------------------------------------------------------- the link parser


@pytest.mark.parametrize("value", ["inf", "-inf", "1e309", "9" * 190, "nan", "NaN", "", " "])
def test_non_finite_and_empty_numbers_are_ignored(value):
    parsed = links.Domain.integer(0, 10_000).parse([value])
    assert parsed.value is links._MISSING
    assert "ignored" in parsed.note


def test_repeated_values_use_the_last_and_say_so():
    parsed = links.Domain.integer(0, 10_000).parse(["2", "3"])
    assert parsed.value == 3
    assert "the last is read" in parsed.note and "ignored" not in parsed.note


def test_a_fraction_for_a_whole_number_is_rounded_and_said_so():
    parsed = links.Domain.integer(0, 50).parse(["3.7"])
    assert parsed.value == 4
    assert "rounded to 4" in parsed.note and "ignored" not in parsed.note
    assert links.Domain.integer(0, 50).parse(["3"]).note is None


def test_out_of_range_is_ignored_with_the_range():
    parsed = links.Domain.integer(2, 30).parse(["999"])
    assert parsed.value is links._MISSING and "outside 2–30" in parsed.note


def test_options_by_stable_key_and_display_text_but_not_unknown_text():
    shown = {"pca": "PCA (PLST's view)", "umap": "UMAP (slow: a minute)"}
    domain = links.Domain("option", options=tuple(shown), display=shown.get)
    assert domain.parse(["umap"]).value == "umap"
    assert domain.parse(["UMAP (slow: a minute)"]).value == "umap"  # old links still open
    assert domain.parse(["UMAP (slow: seconds)"]).value is links._MISSING
    assert domain.tokens("umap") == ["umap"]  # the URL carries the key, never the text


def test_multiselect_keeps_known_options_and_names_unknown_ones():
    domain = links.Domain.choices(["BR", "PLST", "CLEMS"])
    parsed = domain.parse(["PLST", "<img src=x>", "PLST", "BR"])
    assert parsed.value == ["PLST", "BR"]
    assert "\\<img" in parsed.note and "left out" in parsed.note
    assert domain.parse([""]).value == [] and domain.parse([""]).note is None


def test_too_long_and_too_many_values_are_ignored_unread():
    domain = links.Domain.integer(0, 10)
    assert "too long" in domain.parse(["1" * 10_000]).note
    assert "values" in domain.parse(["1"] * 5_000).note


# issue 29: what ``float``/``int`` accept but a link number is not (other scripts' digits,
# underscores, whitespace, hex), and numbers a double cannot hold as written
NOT_PLAIN = ["\uff11\uff12", "\u0663", "1_0", " 5", "5 ", "0x10", "1e5_0", "\u0661.5"]
UNDERFLOW = ["1e-400", "-1e-400", "1e-320", "4.9e-324"]


@pytest.mark.parametrize("value", NOT_PLAIN)
def test_numbers_are_plain_ascii_decimals_only(value):
    for domain in (links.Domain.integer(0, 10_000), links.Domain("float", -100.0, 100.0)):
        parsed = domain.parse([value])
        assert parsed.value is links._MISSING, (value, parsed)
        assert "ignored" in parsed.note and "plain ASCII decimals" in parsed.note
    # a numeric option is not matched through float() either
    parsed = links.Domain.choice([0.0, 1.0, 1.5, 3.0, 5.0, 10.0, 12.0, 16.0]).parse([value])
    assert parsed.value is links._MISSING, (value, parsed)


@pytest.mark.parametrize("value", ["12", "+12", "-0.5", ".5", "5.", "1e3", "1E+3", "2.5e-2"])
def test_plain_decimals_are_read(value):
    parsed = links.Domain("float", -1e4, 1e4).parse([value])
    assert parsed.value == float(value) and parsed.note is None


@pytest.mark.parametrize("value", UNDERFLOW)
def test_a_nonzero_number_that_underflows_is_not_applied(value):
    for domain in (
        links.Domain("float", -1.0, 1.0),
        links.Domain.integer(-5, 5),
        links.Domain.choice([0.0, 1e-4, 1e-3]),  # 0 is an option: 1e-400 must not become it
    ):
        parsed = domain.parse([value])
        assert parsed.value is links._MISSING, (value, parsed)
        assert "ignored" in parsed.note and "underflows" in parsed.note
    assert links.Domain("float", -1.0, 1.0).parse(["0e-400"]).value == 0.0  # zero as written


def test_an_overflowing_number_is_not_applied():
    parsed = links.Domain("float", -1.0, 1.0).parse(["-2e308"])
    assert parsed.value is links._MISSING and "overflows" in parsed.note


def test_a_value_between_slider_steps_is_rounded_to_a_step_and_said_so():
    domain = links.Domain("float", 0.1, 0.5, step=0.05)
    parsed = domain.parse(["0.37"])
    assert parsed.value == 0.35 and "rounded to 0.35" in parsed.note
    assert "ignored" not in parsed.note
    assert domain.parse(["0.3"]).note is None  # 0.1 + 4 * 0.05, up to binary rounding
    assert domain.parse(["0.49"]).value == 0.5


def test_a_number_near_an_option_is_that_option_and_said_so():
    domain = links.Domain.choice([0.0, 1e-4, 1e-3, 1e-2, 1e-1, 1.0])
    parsed = domain.parse(["0.010000000001"])
    assert parsed.value == 0.01 and "not exactly an option" in parsed.note
    assert domain.parse(["1e-2"]).note is None  # the same double, written otherwise
    parsed = domain.parse(["0.0015"])  # between two options: not one of them, says so
    assert parsed.value is links._MISSING and "not one of the options" in parsed.note


@pytest.mark.parametrize(
    "value", NOT_PLAIN[:4] + ["0x10"] + UNDERFLOW[:3], ids=lambda v: v.encode().hex()
)
def test_grople_link_with_unread_numbers_opens_at_the_defaults_with_notes(value):
    """The issue's case: ``1e-400`` set λ2, α and β to 0, ``１２`` set d = 12, silently."""
    defaults = open_page("grople.py", {})
    keys = ("grople_d", "grople_lambda2", "grople_alpha", "grople_beta")
    at = open_page("grople.py", dict.fromkeys(keys, value))
    assert_safe(at)
    notes = link_notes(at)
    for key in keys:
        (note,) = [n for n in notes if n.startswith(f"The link's `{key}`")]
        assert "ignored" in note and "the page uses" in note, note
        widget = at.slider(key=key) if key == "grople_d" else at.select_slider(key=key)
        default = defaults.slider(key=key) if key == "grople_d" else defaults.select_slider(key=key)
        assert widget.value == default.value, (key, widget.value)


def test_test_fraction_between_steps_is_rounded_on_the_page():
    at = open_page("plst.py", {"test_size": "0.37"})
    assert_safe(at)
    assert at.slider(key="test_size").value == 0.35
    (note,) = link_notes(at)
    assert "rounded to 0.35" in note and "ignored" not in note
    assert at.query_params["test_size"] == "0.35"


def test_select_slider_value_near_an_option_is_noted_on_the_page():
    at = open_page("mlknn.py", {"mlknn_s": "0.50000000001"})
    assert_safe(at)
    assert at.select_slider(key="mlknn_s").value == 0.5
    (note,) = link_notes(at)
    assert "not exactly an option" in note and "ignored" not in note


# ------------------------------------------------------------------- every page, hostile


@pytest.mark.parametrize("page", PAGES)
def test_hostile_links_on_every_page(page):
    """Every parameter of the page (and ``dataset``) gets hostile values, four runs per page."""
    keys = page_keys(page)
    assert "dataset" in keys and len(keys) >= 3, keys
    defaults = open_page(page, {})
    default_values = {
        w.key: w.value
        for w in list(defaults.main) + list(defaults.sidebar)
        if getattr(w, "key", None) in keys
    }
    for run in range(4):
        params = {key: HOSTILE[(run * 5 + j) % len(HOSTILE)] for j, key in enumerate(keys)}
        params[keys[0]] = [HOSTILE[run], HOSTILE[run + 4]]  # repeated values
        at = open_page(page, params)
        assert_safe(at)
        notes = link_notes(at)
        for key, value in params.items():
            if key == "dataset" and value in ("", " "):
                continue
            noted = [n for n in notes if n.startswith(f"The link's `{key}`")]
            assert len(noted) <= 1, noted
            if noted and "ignored" in noted[0] and key in default_values:
                # an ignored value leaves the widget where it opens without a link
                widget = next(
                    w for w in list(at.main) + list(at.sidebar) if getattr(w, "key", None) == key
                )
                assert widget.value == default_values[key], (key, noted[0])
        # the URL now holds only values the page can read back without a note
        reopened = open_page(page, dict(at.query_params))
        assert_safe(reopened)
        assert not link_notes(reopened), link_notes(reopened)


@pytest.mark.parametrize(
    "value", ["inf", "-inf", "1e309", "9" * 400, "nan"], ids=["inf", "-inf", "1e309", "400", "nan"]
)
def test_non_finite_split_seed_falls_back_with_a_note(value):
    at = open_page("mlknn.py", {"split_seed": value, "mlknn_instance": value})
    assert_safe(at)
    assert at.number_input(key="split_seed").value == 0
    assert at.number_input(key="mlknn_instance").value == 0
    notes = link_notes(at)
    for key in ("split_seed", "mlknn_instance"):
        assert any(
            n.startswith(f"The link's `{key}`")
            and ("not a finite number" in n or "too long" in n)
            and "ignored" in n
            for n in notes
        )


def test_repeated_split_seed_says_the_last_is_used():
    at = open_page("plst.py", {"split_seed": ["2", "3"]})
    assert_safe(at)
    assert at.number_input(key="split_seed").value == 3
    (note,) = link_notes(at)
    assert "3 is used" in note and "ignored" not in note


def test_fractional_instance_is_rounded_and_the_note_says_so():
    at = open_page("plst.py", {"plst_instance": "3.7"})
    assert_safe(at)
    assert at.number_input(key="plst_instance").value == 4
    (note,) = link_notes(at)
    assert "rounded to 4" in note and "ignored" not in note


def test_markdown_payload_through_dataset_and_a_parameter_is_text():
    at = open_page("plst.py", {"dataset": MARKDOWN_PAYLOAD, "plst_m": MARKDOWN_PAYLOAD})
    assert_safe(at)
    notes = link_notes(at)
    assert len(notes) == 2
    for note in notes:
        assert "\\[Sign in again\\]\\(http\u2060\\:\\/\\/evil\\.example\\/login\\)" in note


def test_a_huge_value_gives_a_short_note():
    at = open_page("plst.py", {"plst_m": "a" * 500_000})
    assert_safe(at)
    (note,) = link_notes(at)
    assert "too long" in note and len(note) < 400


def test_lesson_step_buttons_give_no_note():
    at = open_page("lesson.py", {})
    assert_safe(at)
    for _ in range(2):
        at.button(key="lesson_next").click().run()
        assert_safe(at)
        assert not link_notes(at), link_notes(at)
    at.button(key="lesson_previous").click().run()
    assert not link_notes(at), link_notes(at)
    assert at.radio(key="lesson_step").value == "plst"
    assert at.query_params["lesson_step"] == "plst"


def test_lesson_try_this_logs_no_session_state_warning():
    """'Try this: set M = 1' sets the slider through the session only: no duplicate-default log."""
    from streamlit.elements.lib import policies

    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append
    logger = logging.getLogger(policies.__name__)
    logger.addHandler(handler)
    shown, policies._shown_default_value_warning = policies._shown_default_value_warning, False
    try:
        at = open_page("lesson.py", {"lesson_step": "plst"})
        assert_safe(at)
        at.button(key="lesson_try_plst").click().run()
        assert_safe(at)
        assert at.slider(key="lesson_plst_m").value == 1
        assert at.query_params["lesson_plst_m"] == "1"
    finally:
        policies._shown_default_value_warning = shown
        logger.removeHandler(handler)
    assert not [r for r in records if "default value" in r.getMessage()]


# --------------------------------------------------------- drill-down links on many labels


@pytest.fixture(scope="module")
def many_labels():
    from mlviz.synthetic import make_long_tailed

    return make_long_tailed(
        n_samples=600, n_features=60, n_labels=200, cardinality=5.0, random_state=0
    )


def open_with(page: str, dataset, params: dict, label: str = "200 labels (test)") -> AppTest:
    at = AppTest.from_file(str(REPO / "pages" / page), default_timeout=TIMEOUT)
    at.session_state["dataset"] = dataset
    at.session_state["dataset_label"] = label
    for name, value in params.items():
        at.query_params[name] = value
    return at.run()


@pytest.mark.parametrize(
    "page, key",
    [("label_clusters.py", "clusters_drill_group"), ("grople.py", "grople_drill_group")],
)
def test_drill_down_link_on_many_labels_reopens_the_group(many_labels, page, key):
    """Issue 24: valid drill-down links on > 60 labels said "not a number"."""
    at = open_with(page, many_labels, {})
    assert_safe(at)
    box = at.selectbox(key=key)
    other = box.options[-1]
    box.select(other).run()
    assert_safe(at)
    chosen = at.selectbox(key=key).value
    link = {k: v for k, v in at.query_params.items()}
    assert link[key] == str(chosen)  # the group by its key, not its display text
    fresh = open_with(page, many_labels, link)
    assert_safe(fresh)
    assert not link_notes(fresh), link_notes(fresh)
    assert fresh.selectbox(key=key).value == chosen


LESSON_STEPS = ["hypercube", "plst", "groups", "grople", "clems", "mlknn", "compare"]
VIEWS = [p for p in PAGES if p != "lesson.py"] + [f"lesson.py:{step}" for step in LESSON_STEPS]
# an autolink literal left live: a scheme or www not followed by the helper's word joiner
LIVE_AUTOLINK = re.compile(r"(?i)(https?|ftp|mailto|www)\\?[:.]")


@pytest.fixture(scope="module")
def hostile_sample():
    """The planted sample with hostile label, feature and data set names (each distinct)."""
    import dataclasses

    from mlviz import datasets

    ds = datasets.load_source("sample:planted")
    names = [f"{HOSTILE[i % len(HOSTILE)][:60]} {i}" for i in range(ds.n_labels)]
    features = [f"{HOSTILE[i % len(HOSTILE)][:60]} f{i}" for i in range(ds.n_features)]
    return dataclasses.replace(
        ds, name=MARKDOWN_PAYLOAD, label_names=tuple(names), feature_names=tuple(features)
    )


@pytest.mark.parametrize("view", VIEWS)
def test_hostile_label_and_file_names_render_as_text(hostile_sample, view):
    """Label, feature, data set and upload names are user text too: escaped wherever markdown
    shows them, on every page and every Lesson step (issue 29: steps 1 and 5 wrote label sets
    into "What to notice" unescaped)."""
    page, _, step = view.partition(":")
    at = AppTest.from_file(str(REPO / "pages" / page), default_timeout=TIMEOUT)
    at.session_state["dataset"] = hostile_sample
    at.session_state["dataset_label"] = "_https://evil.example/x.csv (upload)"
    if step:
        at.session_state["lesson_step"] = step
    at.run()
    assert_safe(at)
    for body in texts(at):
        live = [m.group(0) for m in LIVE_AUTOLINK.finditer(body)]
        assert not live, (view, live, body[:300])


# ------------------------------------------------------------- links Streamlit drops unread


@pytest.mark.parametrize(
    "query, says",
    [
        ("&".join(f"p{i}=1" for i in range(1001)), "more than 1,000 parameters (1,001)"),
        ("plst_m=" + "9" * 600_000, "longer than 524,288 characters (600,007)"),
    ],
    ids=["1001-parameters", "600-KiB"],
)
def test_a_link_streamlit_drops_gives_a_note(query, says):
    """Streamlit 1.67 empties such a query string in ``AppSession.request_rerun`` (only a log
    line): the rerun request is seen by the wrapper, the next run of that session says so.

    AppTest runs scripts without an ``AppSession``, so the request is made on the wrapped
    method with a session already shut down (Streamlit's method then returns at once); a real
    server's websocket path was checked by hand (see the links module docstring).
    """
    from types import SimpleNamespace

    from streamlit.proto.ClientState_pb2 import ClientState
    from streamlit.runtime.app_session import AppSession, AppSessionState

    assert getattr(AppSession.request_rerun, links._WATCHED, False)
    session = SimpleNamespace(id="test session id", _state=AppSessionState.SHUTDOWN_REQUESTED)
    AppSession.request_rerun(session, ClientState(query_string=query))
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT).run()
    assert_safe(at)
    (note,) = [w.value for w in at.warning if w.value.startswith("The link ")]
    assert says in note and "opens with its defaults" in note
    at.run()  # said once: the next run's request had a short query string (or none)
    assert not [w.value for w in at.warning if w.value.startswith("The link ")]
    # a link within the limits is read as before, and clears a pending note
    AppSession.request_rerun(session, ClientState(query_string=query))
    AppSession.request_rerun(session, ClientState(query_string="split_seed=3"))
    assert "test session id" not in links._DROPPED
