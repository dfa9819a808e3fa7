"""Several looks at a photo before abstaining on it (vision/photo_looks.py): only photos wider
than the scanner's cut, only abstentions, and an abstention the views let the gate name."""

from __future__ import annotations

import numpy as np
import pytest

from vision.crops import CROP_H, CROP_W, normalise_crop
from vision.identify import DEFAULT_MODEL_DIR, Recogniser
from vision.identity import DOUBTED, SIDES, UNREAD, Identity
from vision.photo_looks import VIEWS, PhotoLooks, picked
from vision.synth.artwork import load_set
from vision.synth.crops import synthetic_crop

ALL = tuple(VIEWS)


def test_views_must_be_known_and_photos_only() -> None:
    with pytest.raises(ValueError, match="unknown view sideways"):
        PhotoLooks(("shifts", "sideways"))
    with pytest.raises(ValueError, match="never looked at again"):
        PhotoLooks(ALL, min_width=CROP_W)
    with pytest.raises(ValueError, match="neither"):
        PhotoLooks(ALL, embed=False, read=False)


def test_each_view_is_the_photo_moved_at_the_networks_size() -> None:
    rng = np.random.default_rng(3)
    photo = rng.integers(0, 256, (128, 96, 3), dtype=np.uint8)
    views = PhotoLooks(ALL).of(photo)
    assert len(views) == 4 + 2 + 2 + 1
    plain = normalise_crop(photo)
    for view in views:
        assert view.shape == (CROP_H, CROP_W, 3)
        assert not np.array_equal(view, plain)


def test_only_abstentions_on_photos_wider_than_the_cut_are_looked_at_again() -> None:
    photo = np.zeros((128, 96, 3), np.uint8)
    cut = np.zeros((CROP_H, CROP_W, 3), np.uint8)
    doubted = Identity(None, 0.6, "WD", why=DOUBTED)
    named = Identity("WD", 0.9, "WD")
    looks = PhotoLooks(ALL)
    crops = [photo, cut, photo, photo, photo]
    answers = [doubted, doubted, named, Identity(None, 0.4, "S2", why=SIDES), doubted]
    answers[4] = Identity(None, 0.4, "S2", why=UNREAD)  # the bonus side's "which one"
    assert picked(looks, crops, answers) == [0, 3]
    assert picked(PhotoLooks(), crops, answers) == []  # no views: off


def test_an_abstention_is_named_from_its_views() -> None:
    # A gnome-smooth autumn photographed 96 px wide: far from its prototypes and the reader
    # doubting, abstained on; over its views the reader reads the season.
    face = load_set("gnome-smooth")["S3"]
    photo = synthetic_crop(face, np.random.default_rng(240), camera_width=96, native=True)
    recogniser = Recogniser.load(DEFAULT_MODEL_DIR)
    recogniser.bonus_ocr = None
    [once] = recogniser.identify([photo])
    recogniser.photo_looks = PhotoLooks(ALL)
    [looked] = recogniser.identify([photo])
    assert once.label is None and once.why == DOUBTED
    assert looked.label == "S3" and looked.how is not None and looked.how.startswith("looks: ")
    # The scanner's cut of the same photo is answered as without the views.
    cut = normalise_crop(photo)
    assert recogniser.identify([cut]) == Recogniser.load(DEFAULT_MODEL_DIR).identify([cut])
