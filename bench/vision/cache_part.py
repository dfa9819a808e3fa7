"""Part 3b of the vision benchmark (bench_vision.py): the live-table scan cache."""

from __future__ import annotations

import copy
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from scan_parts import count_scan, enrolled_recogniser, match_tile  # noqa: E402

from vision.calibration import calibrate  # noqa: E402
from vision.embedder import Embedder  # noqa: E402
from vision.geometry import TableGeometry  # noqa: E402
from vision.labels import LABELS  # noqa: E402
from vision.scan import Scanner  # noqa: E402
from vision.synth.layout import TilePlacement, random_layout  # noqa: E402
from vision.synth.render import Style, render_still  # noqa: E402


def free_spot(
    layout: Any,
    geometry: TableGeometry,
    rng: np.random.Generator,
    draw: Callable[[], tuple[float, float]] | None = None,
    tries: int = 1000,
) -> tuple[float, float]:
    """A place in the discard area at least 34 mm from every tile and die: where a new
    discard lands. ``draw``: where to look (a place each call; default anywhere in the
    middle of the table)."""
    taken = np.array([[t.x, t.y] for t in layout.tiles] + [[d.x, d.y] for d in layout.dice])
    for _ in range(tries):
        x, y = draw() if draw is not None else rng.uniform(200, 700, size=2)
        zone = geometry.zone_at(x, y)
        in_discards = zone is not None and zone.name == "discards"
        if in_discards and np.hypot(*(taken - [x, y]).T).min() > 34:
            return float(x), float(y)
    raise RuntimeError("no free place for a new discard")


def cache_bench(
    embedder: Embedder, art: str, count: int, seed: int, repeat: int = 1
) -> dict[str, Any]:
    """Part 3b, the live-table cache (``Scanner(cache=True)``, what the camera loop runs).
    Per frame, a table that holds still (``render_still``: same scene and light, new sensor
    noise each frame); a cached scanner warmed on three frames of it (not timed: a tile is
    recalled once named alike three times), then timed on
    the next frame: (a) the same table, (b) the exposure 5 % lower (every pixel changed, no
    tile: the frame is scanned, the tiles are not named), (c) one new discard landed on the
    cloth; the uncached scan of the same frame alternately before and after."""
    recogniser = enrolled_recogniser(embedder, art, seed, "new")
    g = TableGeometry()
    cases = ("unchanged", "exposure", "new_discard")
    times: dict[str, dict[str, list[float]]] = {c: {"cached": [], "plain": []} for c in cases}
    named: dict[str, list[int]] = {c: [] for c in cases}
    agree = {"same": 0, "tiles": 0}
    keys = ("truth", "found", "correct", "best", "abstained")
    counts = {side: dict.fromkeys(keys, 0) for side in ("cached", "plain")}
    for i in range(count):
        rng = np.random.default_rng(seed + i)
        style = Style.random(rng, art)
        layout = random_layout(rng, LABELS, g, discards=44, exposures=4, walls=False)
        look = seed + 500 + i
        base = render_still(layout, style, look, 1, g).image
        # Three looks at the still table: the cache recalls a tile once named alike 3 times.
        warm = [base] + [render_still(layout, style, look, k, g).image for k in (5, 6)]
        x, y = free_spot(layout, g, rng)
        landed = copy.deepcopy(layout)
        landed.tiles.append(TilePlacement(LABELS[int(rng.integers(34))], x, y, 0.0))
        shown = {
            "unchanged": render_still(layout, style, look, 2, g).image,
            "exposure": render_still(layout, style, look, 3, g, gain=0.95).image,
            "new_discard": render_still(landed, style, look, 4, g).image,
        }
        truth = {"unchanged": layout, "exposure": layout, "new_discard": landed}
        cal = calibrate(base, g)
        plain = Scanner(cal, recogniser)
        for case, frame in shown.items():
            for rep in range(repeat):
                cached = Scanner(cal, recogniser, cache=True)
                for frame_before in warm:
                    cached.scan(frame_before)
                assert cached.memory is not None
                before = cached.memory.stats.tiles_named
                order = ("cached", "plain") if (i + rep) % 2 == 0 else ("plain", "cached")
                for side in order:
                    scanner = cached if side == "cached" else plain
                    start = time.perf_counter()
                    result = scanner.scan(frame)
                    times[case][side].append(time.perf_counter() - start)
                    if side == "cached":
                        seen = result
                    else:
                        uncached = result
                    if rep == 0:
                        rows = [
                            [t.x, t.y, t.tile, t.best, t.face_down, t.blank] for t in result.tiles
                        ]
                        count_scan(rows, truth[case], counts[side])
                if rep == 0:
                    named[case].append(cached.memory.stats.tiles_named - before)
                    agree["tiles"] += len(uncached.tiles)
                    agree["same"] += _same_names(seen, uncached)
    out: dict[str, Any] = {"art": art, "frames": count, "repeat": repeat}
    for case in cases:
        cached_s, plain_s = times[case]["cached"], times[case]["plain"]
        out[case] = {
            "cached_median_ms": 1000 * statistics.median(cached_s),
            "plain_median_ms": 1000 * statistics.median(plain_s),
            "plain_over_cached_median_of_pairs": statistics.median(
                p / c for c, p in zip(cached_s, plain_s, strict=True)
            ),
            "tiles_named_median": statistics.median(named[case]),
        }
    # Cached and uncached scans of the same frames: the same tiles at the same places, and
    # the same names but where the frame before named a tile differently than this one does.
    out["same_tile_and_name_as_uncached"] = agree["same"] / max(1, agree["tiles"])
    # Against the renderer's truth, over the three cases: the cache must not name worse.
    for side, c in counts.items():
        out[f"{side}_found"] = c["found"] / c["truth"]
        out[f"{side}_identity_of_found"] = c["correct"] / max(1, c["found"])
    return out


def _same_names(seen: Any, truth: Any) -> int:
    """Tiles of ``truth`` that ``seen`` has within 3 mm under the same name."""
    if not seen.tiles:
        return 0
    xy = np.array([[t.x, t.y] for t in seen.tiles])
    same = 0
    for tile in truth.tiles:
        k = match_tile(xy, tile.x, tile.y, tol=3.0)
        same += k is not None and seen.tiles[k].tile == tile.tile
    return same
