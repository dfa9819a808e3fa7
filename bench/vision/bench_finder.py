"""Tile finding on rendered tables, every art set: tiles missed, false tiles, hands seen.

    .venv/bin/python bench/vision/bench_finder.py [--against REV] [--json out.json]

1. *Tables as the scan benchmark renders them* (``scan_parts.frames``: discards, exposures
   with sideways tiles, dice; random cloth, light and blur): ``--frames`` per art set.
2. *Late in a hand*: each seat's discards 13 to 24 deep as the simulated table lays them
   (rows of six, joined by blur and shadow into blobs two to four rows deep).
   *A second row started* (``started``): 7 to 11 discards each, a row of six and the first
   of the next, which blur and shadow join into one blob of two rows, the second short.
3. *Two-by-two blocks*: four discards in two short rows, turned either way.
4. *With the walls*: ``--walls`` tables per art set as the tests render them (the walls'
   face-down rows around the table, discards two rows deep before each seat).
5. *A hand shown*: the 14 tiles of a winning hand laid in a row on a seat's rack strip,
   touching (``--shown`` tables per art set) and as many laid up to 1.5 mm apart.
6. *A hand over the table*: ``--hands`` tables with a hand reaching in on a forearm; it must
   be reported as an obstruction whose rectangle holds the fingers, and nothing under it
   taken for a tile.

A tile counts as found when a found tile lies within 8 mm of it, and as *turned* when the tile
found there has its long side across the true tile's (more than 45 degrees off): it is then
cut out sideways, squashed, and misread. With ``--against REV`` the
finder of that git revision (only the finder, ``vision/finder.py`` or the package
``vision/finder/``, on the rest of this tree) finds the same frames, side by side, and each
table's two outputs are compared within a tolerance (``beyond_tolerance_tables``): the same
things found, matched one to one kind by kind (tiles, dice, obstructions), each centre within
``--tol-mm`` (0.5 mm) and each direction within ``--tol-deg`` (1 degree), an obstruction's
sides within ``--tol-mm`` too, and the same flags (a tile's long side along the table's x or y
axis: sideways in its seat or not). Whole-image arithmetic sums in another order than blob by
blob and differs in the last bit, so the tables that differ at all are only counted beside it
(``bitwise_differing_tables``). Each table beyond the tolerance is listed with the reason
(``beyond_tolerance``). ``--same`` exits 1 when a table differs beyond the tolerance or any
count (missed, false, turned, hands seen) differs.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from report_file import write_report  # noqa: E402
from scan_parts import frames, hand_laid_out  # noqa: E402

from controller.scene import table_layout  # noqa: E402
from vision import finder  # noqa: E402
from vision.calibration import calibrate  # noqa: E402
from vision.geometry import TableGeometry  # noqa: E402
from vision.labels import CHINESE_LABELS, LABELS  # noqa: E402
from vision.scan import ObstructionSeen  # noqa: E402
from vision.synth.artwork import ART_SETS, load_set  # noqa: E402
from vision.synth.layout import Layout, TilePlacement, random_layout  # noqa: E402
from vision.synth.render import Rendered, Style, render  # noqa: E402

Find = Callable[..., Any]


def finder_at(rev: str, workdir: Path) -> ModuleType:
    """The finder of a git revision, loaded beside this tree's: ``vision/finder.py``, or the
    package ``vision/finder/`` (its modules import one another relatively, so the copy is
    whole; everything else comes from this tree)."""
    name = f"finder_{rev}"
    single = subprocess.run(
        ["git", "-C", str(ROOT), "cat-file", "-e", f"{rev}:vision/finder.py"], capture_output=True
    )
    if single.returncode == 0:
        path = workdir / f"{name}.py"
        path.write_text(_moved(_git_show(rev, "vision/finder.py")))
        spec = importlib.util.spec_from_file_location(name, path)
    else:
        package = workdir / name
        package.mkdir()
        listing = _git(["ls-tree", "--name-only", f"{rev}:vision/finder/"]).split()
        for file in (f for f in listing if f.endswith(".py")):
            (package / file).write_text(_moved(_git_show(rev, f"vision/finder/{file}")))
        spec = importlib.util.spec_from_file_location(
            name, package / "__init__.py", submodule_search_locations=[str(package)]
        )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _git(args: list[str]) -> str:
    return subprocess.run(
        ["git", "-C", str(ROOT), *args], check=True, capture_output=True, text=True
    ).stdout


def _git_show(rev: str, path: str) -> str:
    return _git(["show", f"{rev}:{path}"])


# What an older finder imported from where it is no longer found.
_MOVED = {"from vision.artwork import Image\n": "from vision.image import Image\n"}


def _moved(source: str) -> str:
    for old, new in _MOVED.items():
        source = source.replace(old, new)
    return source


def _exactly(found: list[Any]) -> list[str]:
    """A finder's output to the last bit (``repr`` of a float is exact), whichever module's
    ``Found`` it is made of."""
    return [repr((f.kind, f.x, f.y, f.angle, f.w, f.h)) for f in found]


def _folded(angle: float, period: float) -> float:
    """How far apart two directions are, in degrees, for things that look the same turned by
    ``period`` (180 for a tile or an obstruction, 90 for a die)."""
    off = angle % period
    return min(off, period - off)


def _matched(ours: list[Any], theirs: list[Any], tol_mm: float) -> list[tuple[Any, Any]] | None:
    """``ours`` and ``theirs`` (one kind) paired one to one, nearest centres first; None when
    the counts differ or a pair lies ``tol_mm`` or more apart."""
    if len(ours) != len(theirs):
        return None
    if not ours:
        return []
    a = np.array([[f.x, f.y] for f in ours])
    b = np.array([[f.x, f.y] for f in theirs])
    dist = np.linalg.norm(a[:, None] - b[None], axis=2)
    pairs: list[tuple[Any, Any]] = []
    free_a, free_b = np.ones(len(a), bool), np.ones(len(b), bool)
    for flat in np.argsort(dist, axis=None, kind="stable"):
        i, j = divmod(int(flat), len(b))
        if free_a[i] and free_b[j]:
            if dist[i, j] >= tol_mm:
                return None
            free_a[i] = free_b[j] = False
            pairs.append((ours[i], theirs[j]))
    return pairs


def within_tolerance(
    ours: list[Any], theirs: list[Any], tol_mm: float = 0.5, tol_deg: float = 1.0
) -> str | None:
    """Why two finders' outputs for one table differ beyond the tolerance, or None: per kind
    the same count, matched one to one within ``tol_mm``, directions within ``tol_deg``, the
    same flags (a tile along x or along y), an obstruction's sides within ``tol_mm``."""
    for kind, period in (("tile", 180.0), ("die", 90.0), ("obstruction", 180.0)):
        mine = [f for f in ours if f.kind == kind]
        other = [f for f in theirs if f.kind == kind]
        pairs = _matched(mine, other, tol_mm)
        if pairs is None:
            return f"{kind}s: {len(mine)} against {len(other)}, or not matched within {tol_mm} mm"
        for a, b in pairs:
            where = f"{kind} at ({a.x:.1f}, {a.y:.1f})"
            if _folded(a.angle - b.angle, period) >= tol_deg:
                return f"{where}: turned {a.angle:.2f} against {b.angle:.2f} degrees"
            if kind == "tile" and (_folded(a.angle, 180) < 45) != (_folded(b.angle, 180) < 45):
                return f"{where}: along another axis ({a.angle:.2f} against {b.angle:.2f})"
            if max(abs(a.w - b.w), abs(a.h - b.h)) >= tol_mm:
                return f"{where}: {a.w:.1f} x {a.h:.1f} against {b.w:.1f} x {b.h:.1f} mm"
    return None


def _missed(table: Rendered, found: list[Any]) -> tuple[int, int, int]:
    """Tiles of the table no found tile lies within 8 mm of; found tiles near no tile; tiles
    found with their long side across the true one's."""
    truth = np.array([[t.x, t.y] for t in table.layout.tiles])
    tiles = [f for f in found if f.kind == "tile"]
    if not tiles:
        return len(truth), 0, 0
    xy = np.array([[f.x, f.y] for f in tiles])
    dist = np.linalg.norm(truth[:, None] - xy[None], axis=2)
    nearest = dist.argmin(axis=1)
    turned = 0
    for placed, k, d in zip(table.layout.tiles, nearest, dist.min(axis=1), strict=True):
        off = (tiles[k].angle - placed.angle) % 180
        turned += bool(d < 8 and 45 < off < 135)
    return int((dist.min(axis=1) >= 8).sum()), int((dist.min(axis=0) >= 8).sum()), turned


def late_table(art: str, per_seat: int, seed: int) -> Rendered:
    kinds = list(CHINESE_LABELS[:34])
    seats = {
        seat: {"discards": [kinds[(s * 5 + k + seed) % 34] for k in range(per_seat)]}
        for s, seat in enumerate("ESWN")
    }
    geometry = TableGeometry()
    layout = table_layout({"seats": seats}, geometry=geometry)
    rng = np.random.default_rng(seed)
    return render(layout, Style.random(rng, art), rng, geometry)


def block_table(art: str, seed: int) -> Rendered:
    east = [(635, 483), (669, 482), (635, 507), (669, 504)]
    south = [(396, 635), (421, 636), (394, 669), (419, 669)]
    labels = ["2D", "F2", "F4", "7B", "6D", "S4", "S1", "F3"]
    places = [(x, y, 90.0) for x, y in east] + [(x, y, 0.0) for x, y in south]
    layout = Layout(
        tiles=[TilePlacement(lab, x, y, a) for lab, (x, y, a) in zip(labels, places, strict=True)],
        dice=[],
    )
    rng = np.random.default_rng(seed)
    return render(layout, Style.random(rng, art), rng, TableGeometry())


def random_table(art: str, seed: int, **layout_options: Any) -> Rendered:
    """A mid-game table as ``random_layout`` lays it (the walls on it), as the tests render
    tables; ``hand=1.0``: with a hand reaching over it."""
    rng = np.random.default_rng(seed)
    geometry = TableGeometry()
    style = Style.random(rng, art)
    layout = random_layout(rng, LABELS, geometry, **layout_options)
    return render(layout, style, rng, geometry)


def _compared(ours: list[Any], theirs: list[Any], args: argparse.Namespace) -> dict[str, Any]:
    """Whether another finder's output for a table differs from ours at all (to the last
    bit), and why it differs beyond the tolerance (None: it does not)."""
    return {
        "bitwise_differing_tables": _exactly(theirs) != _exactly(ours),
        "beyond_tolerance_tables": within_tolerance(ours, theirs, args.tol_mm, args.tol_deg),
    }


def _complete_arts(only: list[str] | None) -> list[str]:
    """The art sets that draw every kind (``only``: of these)."""
    complete = [a for a in ART_SETS if all(lab in load_set(a) for lab in LABELS)]
    return [a for a in complete if not only or a in only]


def scenes_of(art: str, args: argparse.Namespace) -> list[tuple[str, Rendered]]:
    """Every table of parts 1 to 5 for one art set, each with its part's name."""
    scenes = [("frames", t) for t in frames(args.frames, art, args.seed)]
    scenes += [
        ("late", late_table(art, per_seat, seed))
        for seed, per_seat in ((1, 13), (2, 16), (3, 18), (4, 21), (5, 24))
    ]
    scenes += [
        ("started", late_table(art, per_seat, seed))
        for seed, per_seat in ((6, 7), (7, 8), (8, 9), (9, 10), (10, 11))
    ]
    scenes += [("blocks", block_table(art, seed)) for seed in range(args.blocks)]
    scenes += [("walls", random_table(art, 2000 + seed)) for seed in range(args.walls)]
    scenes += [
        ("shown", hand_laid_out(art, 3000 + seed, apart))
        for seed in range(args.shown)
        for apart in (0.0, 1.5)
    ]
    return scenes


def measure(finders: dict[str, ModuleType], args: argparse.Namespace) -> dict[str, Any]:
    complete = _complete_arts(args.arts)
    keys = list(finders)
    out: dict[str, Any] = {"arts": complete, "per_art": {}, "totals": {}}
    totals: dict[str, dict[str, float]] = {k: {} for k in keys}
    seconds: dict[str, float] = dict.fromkeys(keys, 0.0)

    def add(key: str, name: str, value: float) -> None:
        totals[key][name] = totals[key].get(name, 0) + value

    looked = [0]
    label = [""]  # the table being looked at, for the list of those beyond the tolerance
    beyond: list[dict[str, str]] = []
    ratios: dict[str, list[float]] = {k: [] for k in keys[1:]}

    def look(table: Rendered) -> dict[str, list[Any]]:
        cal = calibrate(table.image, table.geometry)
        seen = {}
        # Each finder first on every other table: the one that goes second finds the frame
        # warm in the caches, and the machine's load drifts.
        order = keys if looked[0] % 2 == 0 else keys[::-1]
        looked[0] += 1
        took = {}
        for key in order:
            module = finders[key]
            start = time.perf_counter()
            seen[key] = module.find(table.image, cal)
            took[key] = time.perf_counter() - start
            seconds[key] += took[key]
        for key in keys[1:]:
            ratios[key].append(took[key] / took[keys[0]])
        seen = {key: seen[key] for key in keys}
        for key in keys[1:]:
            compared = _compared(seen[keys[0]], seen[key], args)
            for name, value in compared.items():
                add(key, name, int(value is not None and value is not False))
            if compared["beyond_tolerance_tables"] is not None:
                beyond.append({"table": label[0], "why": str(compared["beyond_tolerance_tables"])})
        return seen

    for art in complete:
        row: dict[str, Any] = {k: {} for k in keys}
        scenes = scenes_of(art, args)
        for n, (part, table) in enumerate(scenes):
            label[0] = f"{art} {part} #{n}"
            for key, found in look(table).items():
                missed, false, turned = _missed(table, found)
                for name, value in (
                    (f"{part}_tiles", len(table.layout.tiles)),
                    (f"{part}_missed", missed),
                    (f"{part}_false", false),
                    (f"{part}_turned", turned),
                    (f"{part}_tables_all_found", int(missed == 0 and false == 0)),
                    (f"{part}_tables", 1),
                ):
                    row[key][name] = row[key].get(name, 0) + value
                    add(key, name, value)
        out["per_art"][art] = row
        print(art, json.dumps({k: row[k] for k in keys}), flush=True)
    for n in range(args.hands):
        art = complete[n % len(complete)]
        table = random_table(art, 1000 + n, hand=1.0)
        assert table.layout.hand is not None
        hx, hy = table.layout.hand
        label[0] = f"{art} hand #{n}"
        for key, found in look(table).items():
            # Its rectangle must hold the fingers' middle (the forearm runs on to the edge).
            seen = any(
                f.kind == "obstruction" and ObstructionSeen.of(f).covers(hx, hy) for f in found
            )
            add(key, "hands", 1)
            add(key, "hands_seen", int(seen))
            add(key, "hands_false_tiles", _missed(table, found)[1])
    for key in keys:
        totals[key]["seconds_finding"] = round(seconds[key], 2)
        if key in ratios:  # its time over this tree's, table by table
            totals[key]["median_time_ratio"] = round(float(np.median(ratios[key])), 3)
    out["totals"] = totals
    out["beyond_tolerance"] = beyond
    return out


def counts_differ(totals: dict[str, dict[str, float]], rev: str) -> list[str]:
    """The counts (tiles missed, false, turned, tables all found, hands seen) where the
    finder of ``rev`` and this tree's differ."""
    ours, theirs = totals["now"], totals[rev]
    skip = ("seconds_finding", "median_time_ratio")
    names = [k for k in ours if not k.endswith("differing_tables") and k not in skip]
    names = [k for k in names if not k.startswith("beyond_tolerance")]
    return [k for k in names if ours[k] != theirs.get(k)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=8, help="part 1: frames per art set")
    parser.add_argument("--blocks", type=int, default=6, help="part 3: tables per art set")
    parser.add_argument("--walls", type=int, default=4, help="part 4: tables per art set")
    parser.add_argument("--shown", type=int, default=12, help="part 5: hands per art set")
    parser.add_argument("--hands", type=int, default=48, help="part 6: tables with a hand")
    parser.add_argument("--seed", type=int, default=500)
    parser.add_argument("--arts", nargs="*", help="only these art sets (default: every one)")
    parser.add_argument("--against", metavar="REV", help="also the finder of git revision REV")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument(
        "--same",
        action="store_true",
        help="exit 1 when REV's finder differs beyond the tolerance on a table, or a count differs",
    )
    parser.add_argument("--tol-mm", type=float, default=0.5, help="centres and sides (mm)")
    parser.add_argument("--tol-deg", type=float, default=1.0, help="directions (degrees)")
    args = parser.parse_args()
    finders: dict[str, ModuleType] = {"now": finder}
    with tempfile.TemporaryDirectory() as workdir:
        if args.against:
            finders[args.against] = finder_at(args.against, Path(workdir))
        report = measure(finders, args)
    report["settings"] = vars(args) | {"json": str(args.json) if args.json else None}
    print(json.dumps(report["totals"], indent=1))
    write_report(report, args.json)
    if not args.against:
        return 0
    differing = report["totals"][args.against]["beyond_tolerance_tables"]
    counts = counts_differ(report["totals"], args.against)
    report["counts_differ"] = counts
    write_report(report, args.json)
    for entry in report["beyond_tolerance"]:
        print(f"beyond the tolerance: {entry['table']}: {entry['why']}")
    print(f"{differing} tables beyond the tolerance; counts that differ: {counts or 'none'}")
    return 1 if args.same and (differing or counts) else 0


if __name__ == "__main__":
    raise SystemExit(main())
