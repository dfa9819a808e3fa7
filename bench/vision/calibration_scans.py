"""The enrolled tables of bench/vision/choose_bars.py's calibration group: each training set
(never a held-out one) rendered as whole tables and enrolled as a table is set up, from 3
frames of it that the finder cut (scan_parts.py's :func:`enrolled_recogniser`, as the
benchmark's enrolled scan does), its own art left out of the bundled prototypes; then other
frames of it, and hands laid out on a rack strip, cut by the finder and each crop looked at
once (gate_looks.py), at each camera size.

The width sweep's rendered crops (the other enrolled groups) are cut around the tile; the
finder's are cut where it put the tile, a few pixels off, at the camera's own scale, and it
is on these that the gate costs an enrolled table its tiles."""

from __future__ import annotations

import collections
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from gate_looks import Look, decided, looks_of_renders  # noqa: E402
from identity_parts import HELD_OUT, TRAIN_SETS, own_art_out  # noqa: E402
from scan_parts import enrolled_recogniser, frames, hand_laid_out  # noqa: E402

from vision.bonus_gate import GateBars  # noqa: E402
from vision.embedder import Embedder  # noqa: E402

# The frames' seeds, far from the benchmark's (2024 on, enrolment 1,000 later, hands 300).
SCAN_SEEDS = 40_000
# Drawn sets (vision/synth/procedural.py) enrolled as tables: seeds no network trained on (the
# embedding draws from 10,000 and 30,000, the reader from 0 and 100,000, choose_bars.py's
# rendered crops from 60,000, the benchmark from 90,000).
DRAWN_TABLE_SEEDS = 70_000
SIZES = ((1920, 1080), (2304, 1296))
TABLES = "enrolled tables scanned"
HANDS = "enrolled hands scanned"
# The groups of drawn sets: a table's own set the network never saw, as a real table's is.
DRAWN = "drawn sets, "


def scan_group_name(kind: str, size: tuple[int, int], prefix: str = "") -> str:
    return f"{prefix}{kind}, {size[0]}x{size[1]}"


def drawn_table_sets(seed: int, count: int) -> list[str]:
    """``count`` drawn sets for the enrolled tables of calibration seed ``seed``."""
    return [f"procedural#{DRAWN_TABLE_SEEDS + 100 * seed + n}" for n in range(count)]


def scanned_tables(
    embedder: Embedder,
    seed: int,
    tables: int,
    hands: int,
    sizes: tuple[tuple[int, int], ...] = SIZES,
    sets: list[str] | None = None,
    prefix: str = "",
) -> dict[str, list[Look]]:
    """The groups *enrolled tables scanned* and *enrolled hands scanned*, one a camera size:
    every training set (or each of ``sets``, the groups' names led by ``prefix``) enrolled
    from 3 frames, ``tables`` more frames of it (~69 tiles each) and ``hands`` hands laid out
    (14 tiles, touching or up to 1.5 mm apart by turns)."""
    sets = TRAIN_SETS if sets is None else sets
    if set(sets) & set(HELD_OUT):
        raise ValueError("a held-out set among the calibration group's enrolled tables")
    out: dict[str, list[Look]] = {}
    for size in sizes:
        table_looks: list[Look] = []
        hand_looks: list[Look] = []
        for n, name in enumerate(sets):
            base = SCAN_SEEDS + 1_000 * seed + 10 * n
            recogniser = own_art_out(enrolled_recogniser(embedder, name, base, "new", size), name)
            table_looks += looks_of_renders(recogniser, frames(tables, name, base, size))
            hand_looks += looks_of_renders(
                recogniser,
                (hand_laid_out(name, base + 500 + i, 1.5 * (i % 2), size) for i in range(hands)),
            )
        out[scan_group_name(TABLES, size, prefix)] = table_looks
        if hands:
            out[scan_group_name(HANDS, size, prefix)] = hand_looks
    return out


def paths(looks: list[Look], bars: GateBars) -> dict[str, int]:
    """The crops not named right, by outcome and the gate's path (``Identity.how``; "not
    gated": the first look's own answer), the commonest first."""
    tally: collections.Counter[str] = collections.Counter()
    for look in looks:
        said = decided(look, bars)
        if said.label == look.truth:
            continue
        outcome = "abstained" if said.label is None else "wrong"
        tally[f"{outcome}: {said.how or 'not gated'}"] += 1
    return dict(tally.most_common())
