"""Tile identity: enrolment of a set the network never saw in training, abstention, and
model directories that round-trip."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.crops import CROP_H, CROP_W
from vision.embedder import MODELS_DIR, Embedder, ModelError, quantised_path
from vision.identify import (
    DEFAULT_MODEL_DIR,
    RETRY_SHIFT_PX,
    PrototypeBank,
    Recogniser,
    enrolment_variants,
)
from vision.synth.artwork import load_set
from vision.synth.crops import synthetic_crop

from .conftest import HELD_OUT_ART


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return Embedder()


def test_held_out_set_is_not_in_training() -> None:
    import json

    meta = json.loads((MODELS_DIR / "tile_embed.json").read_text())
    assert HELD_OUT_ART in meta["held_out_sets"]
    assert HELD_OUT_ART not in meta["train_sets"]


def test_leave_one_tileset_out_enrol_three_then_recognise(embedder: Embedder) -> None:
    """Enrol 3 camera-like crops per kind of a set held out of training; recognise new crops
    of it (CI's share: 2 per kind; the full evaluation is bench/vision/bench_vision.py)."""
    rng = np.random.default_rng(21)
    faces = load_set(HELD_OUT_ART)
    enrol = [(label, synthetic_crop(f, rng)) for label, f in faces.items() for _ in range(3)]
    recogniser = Recogniser.enrol(embedder, enrol)
    tests = [(label, synthetic_crop(f, rng)) for label, f in faces.items() for _ in range(2)]
    ids = recogniser.identify([crop for _, crop in tests])
    best = np.mean([i.best == label for i, (label, _) in zip(ids, tests, strict=True)])
    assert best >= 0.95
    answered = [(i.label, label) for i, (label, _) in zip(ids, tests, strict=True) if i.label]
    assert np.mean([a == b for a, b in answered]) >= 0.97
    assert all(0.0 <= i.confidence <= 1.0 for i in ids)


def test_a_tile_seen_at_fewer_camera_pixels_keeps_less_of_its_face() -> None:
    """``camera_width`` fixes the pixels a tile covers (part 1w of the benchmark): the same
    draw seen 16 px wide is the network's input size but holds less detail than 48 px wide."""
    face = load_set(HELD_OUT_ART)["9C"]

    def detail(width: int, seed: int) -> float:
        crop = synthetic_crop(face, np.random.default_rng(seed), camera_width=width)
        assert crop.shape == (CROP_H, CROP_W, 3)
        grey = crop.mean(axis=2)
        return float(np.abs(np.diff(grey, axis=0)).mean() + np.abs(np.diff(grey, axis=1)).mean())

    for seed in range(5):
        assert detail(16, seed) < 0.8 * detail(48, seed)


def test_noise_is_never_named_as_a_face_up_tile(embedder: Embedder) -> None:
    """Whatever it is, it is not a tile the table showed: abstain (or call it a tile back)."""
    recogniser = Recogniser.load(DEFAULT_MODEL_DIR)
    rng = np.random.default_rng(0)
    noise = [rng.integers(0, 255, size=(64, 48, 3), dtype=np.uint8) for _ in range(8)]
    ids = recogniser.identify(noise)
    assert all(i.label in (None, "BACK", "BLANK") for i in ids)


def test_abstention_threshold_is_honoured(embedder: Embedder) -> None:
    rng = np.random.default_rng(4)
    faces = load_set(HELD_OUT_ART)
    enrol = [(label, synthetic_crop(f, rng)) for label, f in faces.items() for _ in range(3)]
    strict = Recogniser.enrol(embedder, enrol, threshold=1.01)  # never sure enough
    crops = [synthetic_crop(faces["5D"], rng)]
    assert strict.identify(crops)[0].label is None
    assert strict.identify(crops)[0].best == "5D"


def test_save_and_load_give_the_same_answers(embedder: Embedder, tmp_path: Path) -> None:
    rng = np.random.default_rng(8)
    faces = load_set("kde-traditional")
    enrol = [(label, synthetic_crop(f, rng)) for label, f in faces.items() for _ in range(3)]
    recogniser = Recogniser.enrol(embedder, enrol)
    recogniser.retry_below = 0.6
    recogniser.save(tmp_path / "model", images=len(enrol))
    # The folder holds both networks: the 8-bit one ONNX Runtime runs, the float one for
    # OpenCV.
    assert quantised_path(tmp_path / "model" / "tile_embed.onnx").exists()
    again = Recogniser.load(tmp_path / "model")
    assert again.embedder.quantised and again.retry_below == 0.6
    crops = [synthetic_crop(faces[label], rng) for label in ("1B", "RD", "S3", "J", "BACK")]
    a, b = recogniser.identify(crops), again.identify(crops)
    assert [x.best for x in a] == [x.best for x in b]
    assert np.allclose([x.confidence for x in a], [x.confidence for x in b], atol=0.02)


def test_the_prototypes_sources_are_saved_beside_them(embedder: Embedder, tmp_path: Path) -> None:
    rng = np.random.default_rng(9)
    faces = load_set("kde-traditional")
    enrol = [(label, synthetic_crop(faces[label], rng)) for label in ("1B", "RD", "F1")]
    recogniser = Recogniser.enrol(embedder, enrol)
    owners = np.array([f"set{k}" for k in range(len(recogniser.labels))])
    recogniser.save(tmp_path / "model", images=len(enrol), sources=owners)
    with np.load(tmp_path / "model" / "prototypes.npz") as data:
        assert list(data["sources"]) == list(owners)
        assert list(data["labels"]) == recogniser.labels
    with pytest.raises(ValueError, match="2 sources for"):
        recogniser.save(tmp_path / "other", images=len(enrol), sources=owners[:2])


def test_damaged_model_directories_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match=r"no meta\.json"):
        Recogniser.load(tmp_path)
    (tmp_path / "meta.json").write_text("{")
    with pytest.raises(ModelError, match="not readable JSON"):
        Recogniser.load(tmp_path)
    (tmp_path / "meta.json").write_text('{"version": 1, "temperature": 0.05, "threshold": 0.5}')
    with pytest.raises(ModelError):
        Recogniser.load(tmp_path)


def test_enrolment_variants_are_the_same_tile_moved_and_relit() -> None:
    rng = np.random.default_rng(3)
    crop = synthetic_crop(load_set(HELD_OUT_ART)["7B"], rng)
    variants = enrolment_variants(crop)
    assert len(variants) == 12
    assert all(v.shape == (CROP_H, CROP_W, 3) and v.dtype == np.uint8 for v in variants)
    assert len({v.tobytes() for v in variants}) == len(variants)  # all different


def test_leave_one_photo_out_ignores_a_photos_own_variants(embedder: Embedder) -> None:
    """Fitted on augmented prototypes, the similarity floor must come from other photos of
    the kind, not from a photo's near-copies (which would make it abstain on everything)."""
    rng = np.random.default_rng(21)
    faces = load_set(HELD_OUT_ART)
    enrol = [(label, synthetic_crop(f, rng)) for label, f in faces.items() for _ in range(3)]
    augmented = Recogniser.enrol(embedder, enrol)
    assert len(augmented.labels) == 12 * len(enrol)
    _, careless_floor = augmented._fit_leave_one_out()  # each variant left out on its own
    assert augmented.min_similarity < careless_floor - 0.1
    tests = [(label, synthetic_crop(f, rng)) for label, f in faces.items() for _ in range(2)]
    augmented.bonus_reader = None  # the floor alone: the bonus gate's abstentions are its own
    ids = augmented.identify([crop for _, crop in tests])
    assert np.mean([i.label is None for i in ids]) <= 0.05


def test_background_prototypes_round_trip_and_name_kinds_not_enrolled(
    embedder: Embedder, tmp_path: Path
) -> None:
    rng = np.random.default_rng(5)
    faces = load_set("kde-traditional")
    enrol = [(label, synthetic_crop(faces[label], rng)) for label in ("1B", "2B", "RD") * 3]
    recogniser = Recogniser.enrol(embedder, enrol)
    recogniser.with_background(Recogniser.load(DEFAULT_MODEL_DIR))
    recogniser.shift_px = 2
    recogniser.save(tmp_path / "model", images=len(enrol))
    again = Recogniser.load(tmp_path / "model")
    assert again.background_labels == recogniser.background_labels and again.shift_px == 2
    symbola = load_set("symbola")  # a trained set, present among the bundled prototypes
    crops = [synthetic_crop(symbola[label], rng) for label in ("EW", "9C", "1B")]
    ids = again.identify(crops)
    assert [i.best for i in ids] == ["EW", "9C", "1B"]
    assert [i.best for i in recogniser.identify(crops)] == ["EW", "9C", "1B"]


def test_only_unsure_crops_get_a_second_look(embedder: Embedder) -> None:
    """Under ``retry_below`` a crop is named again from shifted copies (what naming it with
    ``shift_px`` gives); a sure crop keeps its first answer; 0 turns the second look off."""
    rng = np.random.default_rng(13)
    faces = load_set(HELD_OUT_ART)
    enrol = [(label, synthetic_crop(f, rng)) for label, f in faces.items() for _ in range(3)]
    recogniser = Recogniser.enrol(embedder, enrol)
    recogniser.bonus_reader = None  # this look alone (the bonus tiles' is test_bonus.py's)
    crops = [synthetic_crop(f, rng, strength=1.5) for f in faces.values()]
    first = recogniser.identify_embeddings(embedder.embed(crops))
    shifted = recogniser.identify_embeddings(embedder.embed(crops, shift_px=RETRY_SHIFT_PX))
    recogniser.retry_below = float(np.median([i.confidence for i in first]))
    unsure = [i.confidence < recogniser.retry_below for i in first]
    assert 0 < sum(unsure) < len(crops)
    again = recogniser.identify(crops)
    for was, now, other, retried in zip(first, again, shifted, unsure, strict=True):
        expected = other if retried else was
        assert now.best == expected.best and now.label == expected.label
        assert now.confidence == pytest.approx(expected.confidence, abs=1e-4)
    recogniser.retry_below = 0.0
    assert recogniser.identify(crops) == first


def test_prototype_bank_is_the_best_similarity_of_each_kind() -> None:
    rng = np.random.default_rng(2)
    kinds = ["1B", "RD", "F1", "EW"]
    labels = [str(k) for k in rng.choice(["1B", "RD", "EW"], size=40)]  # F1: none
    vectors = rng.normal(size=(40, 8)).astype(np.float32)
    crops = rng.normal(size=(5, 8)).astype(np.float32)
    best = PrototypeBank(labels, vectors, kinds).best_per_kind(crops)
    sims = crops @ vectors.T
    for k, kind in enumerate(kinds):
        mine = [n for n, lab in enumerate(labels) if lab == kind]
        expected = sims[:, mine].max(axis=1) if mine else np.full(5, -2.0)
        assert np.allclose(best[:, k], expected, atol=1e-6)


def test_a_run_beside_other_work_takes_one_thread_and_gives_the_same_vectors() -> None:
    """``shared`` runs go through a one-thread session, made on first use; the vectors are
    those of the session that spreads over every core, to the bit."""
    embedder = Embedder(threads=2)
    rng = np.random.default_rng(4)
    crops = [synthetic_crop(f, rng) for f in list(load_set(HELD_OUT_ART).values())[:6]]
    blob = embedder.blob(crops)
    alone = embedder.forward(blob)
    assert embedder._forward_alone is None  # not made until a shared run needs it
    beside = embedder.forward(blob, shared=True)
    assert embedder._forward_alone is not None
    assert np.array_equal(beside, alone)
    assert np.array_equal(embedder.embed(crops, shared=True), embedder.embed(crops))
