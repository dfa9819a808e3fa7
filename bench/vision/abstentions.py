"""Where the abstentions come from: part 2's never-enrolled crops (``bench_vision.py
--identity-only``, the same crops to the pixel) and the width sweep's (``--widths``), each
looked at once, then tabulated by kind group, set, tile width and the rule of the decision
that abstained (``Identity.why`` and ``Identity.how``), and replayed through the gate under
other bars.

    .venv/bin/python bench/vision/abstentions.py --looks LOOKS.pkl [--bars A.json ...] \\
        [--json out.json]

``--looks`` keeps the looks (measured when the file is missing), so that a change of the gate
or its bars is replayed in seconds. A diagnosis, not a way to choose: these crops measure the
result, so no bar may be chosen on them (choose_bars.py chooses on the calibration group).
"""

from __future__ import annotations

import argparse
import collections
import pickle
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from gate_looks import Look, decided, looks_of  # noqa: E402
from identity_parts import (  # noqa: E402
    BONUS_KINDS,
    kind_group,
    never_enrolled_start,
    width_cases,
)
from report_file import show_and_write  # noqa: E402

from vision.bonus_gate import BARS_FILE, GateBars  # noqa: E402
from vision.embedder import MODELS_DIR, Embedder  # noqa: E402
from vision.synth.crops import synthetic_crop  # noqa: E402
from vision.threads import SCAN_THREADS  # noqa: E402

NEVER_ENROLLED = "never enrolled"
SWEEP = "width sweep"
# The width bands of part 2's crops (drawn 18-43 px wide).
BANDS = ((18, 21), (22, 25), (26, 31), (32, 43))


class Row(NamedTuple):
    """One crop: its group, set and width in the camera's pixels, and its looks."""

    group: str
    art: str
    width: int
    look: Look


class _WidthsDrawn:
    """The benchmark's generator, passed through, noting each tile width
    :func:`synthetic_crop` draws (its only call of ``integers(18, 44)``)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self._rng = rng
        self.last = 0

    def integers(self, *args: Any, **kwargs: Any) -> Any:
        drawn = self._rng.integers(*args, **kwargs)
        if args[:2] == (18, 44):
            self.last = int(drawn)
        return drawn

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rng, name)


def never_enrolled(embedder: Embedder, per_kind: int, seed: int) -> list[Row]:
    """Part 2's never-enrolled crops as the benchmark draws them (part 1's draws first)."""
    rng, sets, new, enrolled = never_enrolled_start(embedder, per_kind, seed)
    noted = _WidthsDrawn(rng)
    rows: list[tuple[str, int, str, np.ndarray]] = []
    for name, faces in sets.items():
        for label, face in faces.items():
            for _ in range(max(1, per_kind // 2)):
                crop = synthetic_crop(face, noted)  # type: ignore[arg-type]
                if name not in enrolled[label]:
                    rows.append((name, noted.last, label, crop))
    looks = looks_of(new, [c for *_, c in rows], [t for *_, t, _ in rows])
    return [Row(NEVER_ENROLLED, n, w, look) for (n, w, _, _), look in zip(rows, looks, strict=True)]


def sweep(embedder: Embedder, per_kind: int, widths: list[int], seed: int) -> list[Row]:
    """The width sweep's crops (each held-out set enrolled at each width)."""
    rng = np.random.default_rng(seed)
    return [
        Row(SWEEP, case.name, case.width, look)
        for case in width_cases(embedder, per_kind, widths, rng)
        for look in looks_of(case.recogniser, case.crops, case.truth)
    ]


def band(width: int) -> str:
    return next(f"{lo}-{hi} px" for lo, hi in BANDS if lo <= width <= hi)


def outcome(named: str | None, truth: str) -> str:
    if named is None:
        return "abstained"
    if named == truth:
        return "right"
    crossed = (named in BONUS_KINDS) != (truth in BONUS_KINDS)
    return "crossing" if crossed else "wrong"


def tally(rows: list[Row], bars: GateBars, key: Callable[[Row], str]) -> dict[str, Any]:
    """Right / wrong (crossings among them) / abstained counts of ``rows`` under ``bars``,
    by ``key``."""
    out: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for row in rows:
        said = decided(row.look, bars)
        for k in (key(row), "all"):
            out[k]["n"] += 1
            out[k][outcome(said.label, row.look.truth)] += 1
    return {k: dict(c) for k, c in sorted(out.items())}


def causes(rows: list[Row], bars: GateBars) -> dict[str, Any]:
    """The abstentions of ``rows`` by the rule that abstained (``why``, and the gate's path
    ``how``), each by kind group; and how many of them the first look had right."""
    by_rule: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for row in rows:
        said = decided(row.look, bars)
        if said.label is not None:
            continue
        rule = f"{said.why} ({said.how or 'not gated'})"
        by_rule[rule][kind_group(row.look.truth)] += 1
        by_rule[rule]["all"] += 1
        by_rule[rule]["first look's best right"] += row.look.first.best == row.look.truth
    return {k: dict(c) for k, c in sorted(by_rule.items(), key=lambda kv: -kv[1]["all"])}


def width_of(group: str) -> Callable[[Row], str]:
    """A crop's width as its group is told by: part 2's in bands, the sweep's as drawn."""
    if group == NEVER_ENROLLED:
        return lambda r: band(r.width)
    return lambda r: f"{r.width} px"


def report(rows: list[Row], bars: GateBars) -> dict[str, Any]:
    """Every table of causes, per group."""
    out: dict[str, Any] = {}
    for group in dict.fromkeys(r.group for r in rows):
        mine = [r for r in rows if r.group == group]
        width = width_of(group)
        out[group] = {
            "by kind group": tally(mine, bars, lambda r: kind_group(r.look.truth)),
            "by set": tally(mine, bars, lambda r: r.art),
            "by width": tally(mine, bars, width),
            "by set and width": tally(mine, bars, lambda r, w=width: f"{r.art} {w(r)}"),
            "abstained, by rule": causes(mine, bars),
        }
    return out


def measured(args: argparse.Namespace) -> Iterator[Row]:
    embedder = Embedder()
    yield from never_enrolled(embedder, args.per_kind, args.seed)
    if args.widths:
        yield from sweep(embedder, args.sweep_per_kind, args.widths, args.seed)


def _named(path: Path) -> str:
    """A bars file as the report names it: within the project, from its root."""
    path = path.resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--looks", type=Path, required=True)
    parser.add_argument("--per-kind", type=int, default=6, help="part 2's, as the benchmark's")
    parser.add_argument("--widths", type=int, nargs="*", default=[18, 22, 24, 28, 32, 40, 48])
    parser.add_argument("--sweep-per-kind", type=int, default=20)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--bars", type=Path, nargs="+", default=[MODELS_DIR / BARS_FILE])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    SCAN_THREADS.apply()
    if args.looks.exists():
        with args.looks.open("rb") as kept:
            rows: list[Row] = pickle.load(kept)
    else:
        rows = list(measured(args))
        with args.looks.open("wb") as kept:
            pickle.dump(rows, kept)
    out = {_named(path): report(rows, GateBars.from_file(path)) for path in args.bars}
    show_and_write(out, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
