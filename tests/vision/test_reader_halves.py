"""The bonus reader's run shared by rows with the scan's second thread (the crops as they lie
here, turned over there) reads every crop as one run on one thread does, even a lone crop;
and whole tables of the three held-out sets, enrolled and not, are named with the second
thread exactly as without it, every field of every answer."""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np
import pytest
from numpy.typing import NDArray

from vision.bonus import BonusReader, BonusReading, default_bonus_reader
from vision.calibration import calibrate
from vision.embedder import Embedder
from vision.gate_reading import read_gated
from vision.identify import DEFAULT_MODEL_DIR, Recogniser
from vision.scan import Scanner
from vision.synth.render import Rendered
from vision.synth.table_enrol import labelled_crops

from .conftest import rendered_table, scanned_tile_crops

SETS = ("xmj-real", "kde-traditional", "gnome-smooth")


@pytest.fixture(scope="module")
def reader() -> BonusReader:
    found = default_bonus_reader()
    assert found is not None
    return found


@pytest.fixture(scope="module")
def tables() -> dict[str, Rendered]:
    return {art: rendered_table(741 + n, art) for n, art in enumerate(SETS)}


@pytest.fixture(scope="module")
def default() -> Recogniser:
    return Recogniser.load(DEFAULT_MODEL_DIR)


def _enrolled(art: str, default: Recogniser) -> Recogniser:
    """The set enrolled from the scanner's cuts of two other tables of it, the bundled
    prototypes behind it (as a club's table is set up)."""
    samples = [named for seed in (901, 902) for named in labelled_crops(rendered_table(seed, art))]
    recogniser = Recogniser.enrol(Embedder(), samples)
    recogniser.with_background(default)
    return recogniser


def _runs_by_thread(
    reader: BonusReader, monkeypatch: pytest.MonkeyPatch, helper_first: bool = False
) -> list[tuple[str, int]]:
    """Each of the reader's runs from now on: its thread's name and its rows.
    ``helper_first``: each run on this thread waits (up to 2 s) for one to begin on the
    helper, so that a loaded machine, on which the helper may not get a core before this
    thread is done with its half, does not have the helper's half taken back unbegun."""
    runs: list[tuple[str, int]] = []
    forward = reader._forward
    helper_began = threading.Event()

    def counted(blob: NDArray[np.float32]) -> NDArray[np.float32]:
        name = threading.current_thread().name
        if name != "MainThread":
            helper_began.set()
        elif helper_first:
            helper_began.wait(2.0)  # a half begun there but late is done here again
            helper_began.clear()
        runs.append((name, len(blob)))
        return forward(blob)

    monkeypatch.setattr(reader, "_forward", counted)
    return runs


def test_a_lone_crop_is_read_half_on_each_thread_as_on_one(
    reader: BonusReader, tables: dict[str, Rendered], monkeypatch: pytest.MonkeyPatch
) -> None:
    crops = scanned_tile_crops(tables["xmj-real"])[:12]
    alone = [reader.read([crop])[0] for crop in crops]
    together = reader.probabilities(crops)
    runs = _runs_by_thread(reader, monkeypatch, helper_first=True)
    with ThreadPoolExecutor(1, thread_name_prefix="helper") as helper:
        shared = [reader.read([crop], helper)[0] for crop in crops]
        several = reader.probabilities(crops, helper)
    assert shared == alone  # every field to the bit
    for mine, whole in zip(several, together, strict=True):
        assert np.array_equal(mine, whole)
    # The crop as it lies here, turned over on the helper: one row each; all 12 crops,
    # 12 rows a side.
    assert {("MainThread", 1), ("helper_0", 1), ("MainThread", 12), ("helper_0", 12)} <= set(runs)
    assert {rows for _, rows in runs} == {1, 12}


def test_a_busy_helper_leaves_the_whole_reading_here(
    reader: BonusReader, tables: dict[str, Rendered], monkeypatch: pytest.MonkeyPatch
) -> None:
    crops = scanned_tile_crops(tables["gnome-smooth"])[:3]
    alone = reader.read(crops)
    runs = _runs_by_thread(reader, monkeypatch)
    held = threading.Event()
    with ThreadPoolExecutor(1, thread_name_prefix="helper") as helper:
        helper.submit(held.wait, 5.0)
        shared = reader.read(crops, helper)
        held.set()
    assert shared == alone
    assert runs == [("MainThread", 3), ("MainThread", 3)]


def test_a_reading_begun_ahead_but_taken_back_is_shared_with_the_helper(
    reader: BonusReader, tables: dict[str, Rendered], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gate's reads of crops sure on their first look were handed to the helper ahead;
    never begun (the helper was busy then), they are read here, the crops turned over on
    the helper now that it is free: the readings of one run of all."""
    crops = scanned_tile_crops(tables["kde-traditional"])[:7]
    looked = [0, 2, 3, 5, 6]
    alone = reader.read([crops[n] for n in looked])
    never_begun: Future[list[BonusReading]] = Future()
    runs = _runs_by_thread(reader, monkeypatch, helper_first=True)
    with ThreadPoolExecutor(1, thread_name_prefix="helper") as helper:
        readings = read_gated(reader, crops, looked, helper, ([2, 5, 6], never_begun))
    assert list(readings) == looked
    assert list(readings.values()) == alone
    assert never_begun.cancelled()
    # The rest (crops 0 and 3), then the three taken back: each half here, half there.
    assert {("MainThread", 2), ("MainThread", 3), ("helper_0", 2), ("helper_0", 3)} == set(runs)


@pytest.mark.parametrize("art", SETS)
def test_tables_are_named_with_the_second_thread_as_without_it(
    art: str,
    tables: dict[str, Rendered],
    default: Recogniser,
    reader: BonusReader,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every field of every answer, the set never enrolled (the bundled prototypes alone)
    and enrolled; and the whole scan's result. The gate read crops on both threads."""
    table = tables[art]
    crops = scanned_tile_crops(table)
    cal = calibrate(table.image, table.geometry)
    runs = _runs_by_thread(reader, monkeypatch)
    for recogniser in (default, _enrolled(art, default)):
        assert recogniser.bonus_reader is reader
        vectors = recogniser.embed(crops)
        alone = recogniser.identify_embedded(crops, vectors)
        with ThreadPoolExecutor(1, thread_name_prefix="helper") as helper:
            shared = recogniser.identify_embedded(crops, vectors, helper)
        assert shared == alone
        at_once = Scanner(cal, recogniser, ahead=False).scan(table.image)
        with Scanner(cal, recogniser, ahead=True, away=False) as scanner:
            assert scanner.scan(table.image) == at_once
    assert {name.split("_")[0] for name, _ in runs} >= {"MainThread", "helper"}
