"""Training episodes (bench/vision/episodes.py): prototypes from some art sets, queries from
others, and never a held-out set, so the first look learns what a table that never enrolled
its set asks of it and the benchmark's unseen sets stay unseen."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "vision"))

from episodes import (
    Episode,
    FaceSet,
    draw_episode,
    procedural_seeds,
    refuse_held_out,
    render_crops,
    training_sets,
)

from vision.crops import CROP_H, CROP_W
from vision.labels import LABELS
from vision.synth.artwork import PROCEDURAL_PREFIX
from vision.synth.procedural import procedural_set

HOLD_OUT = ["xmj-real", "kde-traditional", "gnome-smooth"]


def _fake_set(name: str, kinds: range) -> FaceSet:
    return FaceSet(name, {k: np.full((4, 3, 3), k, np.uint8) for k in kinds})


def _pools() -> tuple[list[FaceSet], list[FaceSet]]:
    packaged = [_fake_set(n, range(45)) for n in ("kde-classic", "kde-jade", "symbola")]
    # Sets that lack a few kinds (as kde-egypt lacks its bonus tiles).
    packaged.append(_fake_set("kde-egypt", range(34)))
    generated = [_fake_set(f"{PROCEDURAL_PREFIX}{10_000 + n}", range(45)) for n in range(6)]
    return packaged, generated


def test_support_and_queries_come_from_different_sets() -> None:
    packaged, generated = _pools()
    rng = np.random.default_rng(0)
    for _ in range(200):
        episode = draw_episode(packaged, generated, rng, HOLD_OUT, 3, 2, 48)
        assert len(episode.support_sets) == 3
        assert 1 <= len(episode.query_sets) <= 2
        assert not episode.support_sets & episode.query_sets
        # Every face of every support set is a prototype, as the bundle enrols them.
        by_name = {s.name: s for s in packaged + generated}
        assert len(episode.support) == sum(len(by_name[n].faces) for n in episode.support_sets)
        assert len(episode.queries) == 48
        kinds = {label for _, label, _ in episode.support}
        assert all(label in kinds for _, label, _ in episode.queries)


def test_both_kinds_of_set_give_prototypes_and_queries() -> None:
    packaged, generated = _pools()
    rng = np.random.default_rng(1)
    names = {s.name for s in packaged}
    support_seen, query_seen = set(), set()
    for _ in range(100):
        episode = draw_episode(packaged, generated, rng, HOLD_OUT, 3, 2, 8)
        support_seen |= {n in names for n in episode.support_sets}
        query_seen |= {n in names for n in episode.query_sets}
    assert support_seen == query_seen == {True, False}


def test_an_episode_never_draws_a_held_out_set() -> None:
    packaged, _ = _pools()
    with pytest.raises(ValueError, match="'xmj-real' is held out"):
        # A pool that let a held-out set in is caught at the first episode that draws it.
        for seed in range(50):
            draw_episode(
                [*packaged, _fake_set("xmj-real", range(45))],
                [],
                np.random.default_rng(seed),
                HOLD_OUT,
            )


def test_the_benchmarks_procedural_seeds_are_refused() -> None:
    refuse_held_out(f"{PROCEDURAL_PREFIX}89999", HOLD_OUT)
    with pytest.raises(ValueError, match="seed 90000 is kept for the benchmark"):
        refuse_held_out(f"{PROCEDURAL_PREFIX}90000", HOLD_OUT)
    with pytest.raises(ValueError, match="held out"):
        refuse_held_out("gnome-smooth", HOLD_OUT)


def test_the_training_pool_leaves_held_out_sets_out() -> None:
    packaged, generated = training_sets(["xmj-real", "kde-traditional"], 2, 1, HOLD_OUT)
    assert packaged == []
    assert [s.name for s in generated] == [
        f"{PROCEDURAL_PREFIX}10000",
        f"{PROCEDURAL_PREFIX}10001",
        f"{PROCEDURAL_PREFIX}30000",
    ]
    assert all(len(s.faces) >= 43 for s in generated)  # every kind, the joker and a back


def test_too_few_sets_for_an_episode_is_said() -> None:
    packaged, _ = _pools()
    with pytest.raises(ValueError, match="too few art sets"):
        draw_episode(packaged[:3], [], np.random.default_rng(0), HOLD_OUT, 3, 2)


def test_crops_of_an_episode_are_network_input() -> None:
    _, generated = training_sets([], 2, 0, HOLD_OUT)
    episode = draw_episode([], generated, np.random.default_rng(2), HOLD_OUT, 1, 1, 5)
    assert isinstance(episode, Episode)
    faces = [(label, face) for _, label, face in episode.queries]
    xs, ys = render_crops(faces, np.random.default_rng(3), 1.0)
    assert xs.shape == (5, 3, CROP_H, CROP_W) and xs.dtype == np.float32
    assert xs.min() >= -1.0 and xs.max() <= 1.0 and xs.std() > 0.05
    assert list(ys) == [label for label, _ in faces]


def test_the_assorted_training_sets_never_draw_a_measured_seed() -> None:
    """The assorted grammar's training seeds stay clear of every procedural seed a
    measurement draws: the benchmark's (90000 on) and the calibration group's drawn,
    cornered and unfamiliar sets (choose_bars.py's seeds 11-13, photo_abstentions.py's
    2024: DRAWN_SEEDS + 100 x seed + n, n < 100)."""
    from choose_bars import DRAWN_SEEDS

    seeds = procedural_seeds(300, 300, 10_000)
    assert len({s for s, _ in seeds}) == len(seeds)
    mine = [s for s, grammar in seeds if grammar == "assorted"]
    assert mine[0] == 80_000 and mine[-1] == 89_999
    measured = {DRAWN_SEEDS + 100 * seed + n for seed in (11, 12, 13, 2024) for n in range(100)}
    assert not set(mine) & measured
    for seed in mine:
        refuse_held_out(f"{PROCEDURAL_PREFIX}{seed}", HOLD_OUT)
    with pytest.raises(ValueError, match="--assorted 10001: from 0 to 10000"):
        procedural_seeds(300, 300, 10_001)


def test_the_training_pool_draws_assorted_sets_by_their_grammar() -> None:
    _, generated = training_sets([], 1, 0, HOLD_OUT, assorted=1)
    assert [s.name for s in generated] == [f"{PROCEDURAL_PREFIX}10000", f"{PROCEDURAL_PREFIX}80000"]
    drawn = procedural_set(80_000, assorted=True)
    assert np.array_equal(generated[1].faces[LABELS.index("5D")], drawn["5D"])
