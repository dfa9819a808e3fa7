"""Naming a frame's tiles with half of the work on the scan's second thread gives what naming
them on one thread gives: the prototypes' product in two halves, the bonus reader's crops in
two halves, and the first looks decided as whole arrays."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from vision.halves import collect, in_two
from vision.identify import DEFAULT_MODEL_DIR, Identity, Recogniser
from vision.identity import UNLIKE, UNSURE
from vision.image import Image
from vision.prototypes import SPLIT_KINDS, PrototypeBank

from .conftest import HELD_OUT_ART, rendered_table, scanned_tile_crops


@pytest.fixture(scope="module")
def held_out_crops() -> list[Image]:
    """The crops a scan cuts from a table of a set the bundled network never saw: many of
    them unsure, far from their prototypes, or gated for the bonus reader."""
    return scanned_tile_crops(rendered_table(733, HELD_OUT_ART))


@pytest.fixture(scope="module")
def recogniser() -> Recogniser:
    return Recogniser.load(DEFAULT_MODEL_DIR)


def test_in_two_gives_every_item_once_in_order() -> None:
    def work(part: slice) -> list[int]:
        return list(range(100))[part]

    with ThreadPoolExecutor(1) as helper:
        for count, least in ((0, 1), (1, 1), (3, 2), (4, 2), (17, 8), (100, 8)):
            parts = in_two(work, count, helper, least)
            assert [i for part in parts for i in part] == list(range(count))
            assert len(parts) == (2 if count >= 2 * least else 1)
    assert in_two(work, 100, None, 1) == [list(range(100))]


def test_a_half_the_helper_never_begins_is_done_here() -> None:
    """A helper busy with other work (another scan's runs, no core for it): this thread
    does both halves rather than wait."""
    release = threading.Event()
    threads: list[str] = []

    def work(part: slice) -> list[int]:
        threads.append(threading.current_thread().name)
        return list(range(10))[part]

    with ThreadPoolExecutor(1, thread_name_prefix="helper") as helper:
        helper.submit(release.wait)  # the helper is busy until released
        parts = in_two(work, 10, helper, 1)
        release.set()
    assert parts == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]
    assert threads == [threading.current_thread().name] * 2


def test_the_first_looks_in_two_halves_are_those_on_one_thread(
    held_out_crops: list[Image], recogniser: Recogniser
) -> None:
    vectors = recogniser.embed(held_out_crops)
    assert len(vectors) >= 2 * SPLIT_KINDS
    alone = recogniser.identify_embeddings(vectors)
    with ThreadPoolExecutor(1) as helper:
        halves = recogniser.identify_embeddings(vectors, helper)
    assert halves == alone  # every float to the bit
    # Decided as arrays: what deciding each crop by itself gives, crop by crop.
    for n in range(0, len(vectors), 5):
        one = recogniser.identify_embeddings(np.repeat(vectors[n : n + 1], 2, axis=0))[0]
        assert one == alone[n]
        assert (one.label is None) == (one.why in (UNSURE, UNLIKE))


def test_the_bonus_gate_reads_in_two_halves_as_on_one_thread(
    held_out_crops: list[Image], recogniser: Recogniser
) -> None:
    """On a set never enrolled the gate reads several crops a frame: half are read on the
    second thread, and every answer is the one-thread answer."""
    reader = recogniser.bonus_reader
    assert reader is not None
    read_where: list[str] = []
    read = reader.read

    def counted(crops: list[Image], helper: object = None) -> object:
        read_where.append(threading.current_thread().name)
        return read(crops, helper)  # type: ignore[arg-type]

    vectors = recogniser.embed(held_out_crops)
    alone = recogniser.identify_embedded(held_out_crops, vectors)
    reader.read = counted  # type: ignore[method-assign,assignment]
    try:
        with ThreadPoolExecutor(1, thread_name_prefix="helper") as helper:
            halves = recogniser.identify_embedded(held_out_crops, vectors, helper)
    finally:
        del reader.read
    assert halves == alone
    gated = [i for i in alone if i.how is not None]
    assert len(gated) >= 2
    # Some crops were unsure (a second look on this thread): the gate's reads of the sure
    # ones were begun on the second thread meanwhile.
    assert any(
        i.confidence < recogniser.retry_below for i in recogniser.identify_embeddings(vectors)
    )
    assert any(name.startswith("helper") for name in read_where)
    assert all(isinstance(i, Identity) for i in halves)


def test_the_products_parts_by_kind_are_the_whole_products_columns(
    held_out_crops: list[Image], recogniser: Recogniser
) -> None:
    """Each kind's best similarity worked out with its kind's prototypes alone is what the
    product with all of them gives, to the bit, wherever the kinds are cut in two."""
    vectors = recogniser.embed(held_out_crops)
    bank = recogniser._banks().enrolled  # the bundled prototypes: no enrolment of its own
    assert recogniser._banks().background is None and bank.columns > 5_000
    whole = bank.best_per_kind(vectors)
    kinds = len(bank.present)
    for split in (1, kinds // 3, kinds // 2, kinds - 1):
        first, rest = bank.best_per_kind(vectors, 0, split), bank.best_per_kind(vectors, split)
        assert np.array_equal(np.maximum(first, rest), whole)
        assert (first[:, bank.present[split:]] == -2.0).all()
    assert 1 <= bank.kind_at(bank.columns // 2) < kinds


@pytest.mark.parametrize("seed", [0, 3, 5, 11])
def test_every_cut_of_a_bank_of_any_kinds_sizes_gives_the_whole_products_bests(seed: int) -> None:
    """45 kinds of 60-400 prototypes, so that parts end anywhere past a block of columns
    (where BLAS sums the last few otherwise): every cut gives the whole product's bests to
    the bit. (Without whole blocks, each of these banks had a cut or two that did not.)"""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(60, 400, size=45)
    kinds = [f"k{n}" for n in range(len(sizes))]
    labels = [kind for kind, size in zip(kinds, sizes, strict=True) for _ in range(size)]
    vectors = rng.normal(size=(len(labels), 64)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    bank = PrototypeBank(labels, vectors, kinds)
    crops = rng.normal(size=(int(rng.integers(8, 90)), 64)).astype(np.float32)
    crops /= np.linalg.norm(crops, axis=1, keepdims=True)
    whole = bank.best_per_kind(crops)
    names = np.array(labels)
    plain = (crops @ vectors.T).astype(np.float64)
    for k, kind in enumerate(kinds):  # each kind's best, whatever the order of the sums
        assert np.allclose(whole[:, k], plain[:, names == kind].max(axis=1), atol=1e-5)
    for split in range(1, len(kinds)):
        first, rest = bank.best_per_kind(crops, 0, split), bank.best_per_kind(crops, split)
        assert np.array_equal(np.maximum(first, rest), whole)


def test_a_part_begun_on_a_thread_that_lost_its_core_is_done_here() -> None:
    """Begun, but not back within the patience given (the other thread lost its core to
    other work): the calling thread does the part itself rather than wait without end."""
    begun, release = threading.Event(), threading.Event()

    def slow() -> str:
        begun.set()
        release.wait(10)
        return "there"

    with ThreadPoolExecutor(1) as helper:
        far = helper.submit(slow)
        assert begun.wait(10)
        assert collect(far, lambda: "here", 0.01) == "here"
        release.set()
        assert far.result() == "there"  # it went on: its answer, no longer needed
        begun.clear()

        def prompt() -> str:
            begun.set()
            return "there"

        done = helper.submit(prompt)
        assert begun.wait(10)
        assert collect(done, lambda: "here", 10.0) == "there"  # back in time: its own
