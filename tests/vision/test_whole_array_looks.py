"""The second looks' per-crop work done for all crops at once gives exactly what it gave crop
by crop: the bonus reader's readings from its probabilities, its input, and the shifted
copies a crop is looked at again through. The references are the versions they replaced."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.bonus import (
    BONUS_KINDS,
    READ_KINDS,
    BonusReader,
    BonusReading,
    default_bonus_reader,
    reading_from,
    readings_from,
)
from vision.crops import normalise_crop
from vision.embedder import Embedder, both_ways_up, shifted, shifted_all, unit, warp
from vision.image import Image

from .conftest import rendered_table, scanned_tile_crops


def reference_reading(kind_p: np.ndarray, number_p: np.ndarray) -> BonusReading:
    """One crop's reading, worked out on its own rows."""
    k, m = int(kind_p.argmax()), int(number_p.argmax())
    bonus_p = float(kind_p[: len(BONUS_KINDS)].sum())
    shares = kind_p[: len(BONUS_KINDS)] / max(bonus_p, 1e-9)
    b = int(shares.argmax())
    flowers = float(shares[:4].sum())
    joint = shares * np.tile(number_p, 2)
    joint = joint / max(float(joint.sum()), 1e-9)
    j = int(joint.argmax())
    return BonusReading(
        READ_KINDS[k],
        float(kind_p[k]),
        m + 1,
        float(number_p[m]),
        bonus_p,
        BONUS_KINDS[b],
        float(shares[b]),
        "F" if flowers >= 0.5 else "S",
        max(flowers, 1.0 - flowers),
        BONUS_KINDS[j],
        float(joint[j]),
    )


def warped_copies(crop: Image, px: int) -> list[Image]:
    """The crop and four copies moved ``px`` right, left, down and up by a warp, its border
    repeated: what the shifted copies were made by, crop by crop."""
    moves = ((px, 0), (-px, 0), (0, px), (0, -px))
    return [crop] + [warp(crop, np.array([[1.0, 0, dx], [0, 1.0, dy]])) for dx, dy in moves]


def reference_embed_shifted(
    embedder: Embedder, crops: list[Image], px: int, unshifted: np.ndarray | None
) -> np.ndarray:
    """Each crop's four warped copies embedded (and its own vector, given or embedded), the
    vectors averaged."""
    copies = [warped_copies(normalise_crop(c), px) for c in crops]
    if unshifted is not None:
        copies = [group[1:] for group in copies]
    flat = embedder.embed([v for group in copies for v in group])
    stacked = flat.reshape(len(crops), len(copies[0]), -1)
    if unshifted is not None:
        stacked = np.concatenate([unshifted[:, None], stacked], axis=1)
    return unit(stacked.mean(axis=1))


@pytest.fixture(scope="module")
def scanned_crops() -> list[Image]:
    return scanned_tile_crops(rendered_table(812, "xmj-real", discards=40))


def probability_rows(seed: int, n: int, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """Rows as the reader's heads give them (float32, each summing to about 1), from plain
    to sharp (``scale`` small: one kind takes nearly all, the rest under 1e-9)."""
    rng = np.random.default_rng(seed)
    kinds = rng.dirichlet(np.full(len(READ_KINDS), scale), n).astype(np.float32)
    numbers = rng.dirichlet(np.full(4, scale), n).astype(np.float32)
    kinds[: n // 4] = np.round(kinds[: n // 4], 1)  # ties, and rows with no bonus probability
    return kinds, numbers


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 40),
    scale=st.sampled_from([0.01, 0.1, 1.0, 10.0]),
)
def test_readings_of_all_rows_at_once_are_each_rows_own(seed: int, n: int, scale: float) -> None:
    kinds, numbers = probability_rows(seed, n, scale)
    expected = [reference_reading(k, m) for k, m in zip(kinds, numbers, strict=True)]
    assert readings_from(kinds, numbers) == expected
    assert [reading_from(k, m) for k, m in zip(kinds, numbers, strict=True)] == expected


def test_the_readers_readings_of_scanned_crops_are_each_crops_own(
    scanned_crops: list[Image],
) -> None:
    reader = default_bonus_reader()
    assert isinstance(reader, BonusReader)
    kinds, numbers = reader.temperatures.apply(*reader.probabilities(scanned_crops))
    got = reader.read(scanned_crops)
    assert got == [reference_reading(k, m) for k, m in zip(kinds, numbers, strict=True)]
    assert len({r.kind for r in got}) > 1 and len({r.group for r in got}) == 2


@pytest.mark.parametrize("px", [1, 3, 7])
def test_all_crops_shifted_at_once_are_each_crops_warped_copies(
    scanned_crops: list[Image], px: int
) -> None:
    stack = np.stack(scanned_crops)
    expected = np.stack([np.stack(warped_copies(c, px)) for c in scanned_crops])
    assert np.array_equal(shifted_all(stack, px), expected)
    noise = np.random.default_rng(px).integers(0, 256, stack.shape, np.uint8)  # edges unlike
    assert np.array_equal(
        shifted_all(noise, px), np.stack([np.stack(warped_copies(c, px)) for c in noise])
    )
    # One crop's copies (enrolment's) are the same copies.
    assert all(
        np.array_equal(got, want)
        for got, want in zip(shifted(noise[0], px), warped_copies(noise[0], px), strict=True)
    )


def test_the_vectors_through_shifted_copies_are_those_of_each_crops_warped_copies(
    scanned_crops: list[Image],
) -> None:
    embedder = Embedder()
    crops = scanned_crops[:9]
    photo = np.asarray(np.random.default_rng(3).integers(0, 256, (90, 70, 3)), np.uint8)
    own = embedder.embed(crops)
    assert np.array_equal(
        embedder.embed(crops, shift_px=3, unshifted=own),
        reference_embed_shifted(embedder, crops, 3, own),
    )
    # Crops of any size (a photo) are brought to the network's first, as before.
    mixed = [*crops[:3], photo]
    assert np.array_equal(
        embedder.embed(mixed, shift_px=3), reference_embed_shifted(embedder, mixed, 3, None)
    )


def test_the_readers_input_is_each_crop_both_ways_up_as_it_was(scanned_crops: list[Image]) -> None:
    """The bonus reader's input, now the embedding's (planes cast from OpenCV's split), is
    the one it made with numpy's transposing casts, photos brought to the network's size."""
    photo = np.asarray(np.random.default_rng(5).integers(0, 256, (100, 80, 3)), np.uint8)
    crops = [*scanned_crops, photo]
    chunk = np.stack([normalise_crop(c) for c in crops])
    expected = np.concatenate(
        [chunk.transpose(0, 3, 1, 2), chunk[:, ::-1, ::-1].transpose(0, 3, 1, 2)]
    ).astype(np.float32)
    assert np.array_equal(both_ways_up(crops), expected)
