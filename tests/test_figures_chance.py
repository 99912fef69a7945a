"""The grouping-against-chance figure and sentence (issue 32 item 5)."""

from __future__ import annotations

import numpy as np

from mlviz.figures.chance import grouping_vs_random_figure, grouping_vs_random_sentence
from mlviz.label_clustering import GroupingVsRandom, _beats_share


def _result(score, randoms, scoring="micro_f1", greater=True):
    randoms = np.asarray(randoms, dtype=float)
    share = _beats_share(score, randoms, greater)
    return GroupingVsRandom(score, randoms, share, scoring, greater, (3, 3), 3)


def test_sentence_says_beats_when_it_beats():
    text = grouping_vs_random_sentence(_result(0.9, np.linspace(0.5, 0.6, 20)))
    assert "beats 20 of 20 random groupings" in text and "nearly every random split" in text
    assert "Only" not in text  # 20 is enough: no warning


def test_sentence_says_chance_when_it_does_not_beat_chance():
    text = grouping_vs_random_sentence(_result(0.55, np.linspace(0.5, 0.6, 21)))
    assert "within the spread of chance" in text and "nearly every" not in text


def test_sentence_says_worse_and_follows_the_metric_direction():
    worse = grouping_vs_random_sentence(_result(0.4, np.linspace(0.5, 0.6, 20)))
    assert "hurt this model" in worse
    # Hamming loss: lower is better, so a low loss beats every random grouping
    loss = grouping_vs_random_sentence(
        _result(0.01, np.linspace(0.1, 0.2, 20), scoring="hamming_loss", greater=False)
    )
    assert "beats 20 of 20" in loss and "Hamming loss" in loss


def test_sentence_warns_when_few_random_groupings():
    text = grouping_vs_random_sentence(_result(0.9, [0.5, 0.6, 0.7, 0.8, 0.85]))
    assert "Only 5 random groupings" in text and "steps of 20%" in text


def test_figure_marks_the_grouping_and_shows_every_random_score():
    result = _result(0.55, np.linspace(0.5, 0.6, 7))
    fig = grouping_vs_random_figure(result)
    np.testing.assert_allclose(fig.data[0].x, result.random_scores)
    assert fig.layout.shapes[0].x0 == 0.55
    assert "7 random groupings" in fig.layout.title.text.replace("<br>", " ")
