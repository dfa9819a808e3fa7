"""The README's vision table, from one results file of ``bench_vision.py --against REV``.

    .venv/bin/python bench/vision/readme_table.py bench/vision/results-round15.json
    .venv/bin/python bench/vision/readme_table.py RESULTS --readme README.md

prints the table in markdown (one row a measure: what, where in the run, this tree's figure,
REV's in the same run, the goal and whether it is met), or with ``--readme`` writes it into the
README between its two ``vision table`` markers. Every figure is read from the file; the goals
are the project's (``GOALS``). A file that lacks a part the table needs is refused, naming the
part.

``--against REV`` runs REV's code on this tree's networks and prototypes, so where the networks
changed it cannot say what REV read. Then run the same command in a checkout of REV too (its own
networks) and pass that file as ``--before``: REV's column is read from its own figures.

    .venv/bin/python bench/vision/readme_table.py RESULTS --before RESULTS_AT_REV --readme README.md
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BEGIN = "<!-- vision table: bench/vision/readme_table.py writes from here -->"
END = "<!-- vision table: to here -->"
RUN = ("`.venv/bin/python bench/vision/bench_vision.py --frames 5 --per-kind 6 --repeat 2 "
       "--dice-frames 6 --hands 4 --against REV --json RESULTS`")
PARTS = ("mixed_sets", "scan", "detector", "hands", "cache", "dice", "held_out_enrolled")

# (at least, at most): the goal a figure must reach; None where the row has no goal. SAME_AS_REV:
# no set below REV's figure in the same run (the speed goal is "with the same accuracy").
Goal = tuple[float | None, float | None]
SAME_AS_REV = "same as REV"
GOALS: dict[str, Goal | str] = {
    "never enrolled": (0.97, None),
    "bonus": (0.90, None),
    "abstained": (None, 0.03),
    "crossings": (None, 0),
    "enrolled scan": SAME_AS_REV,
    "enrolled crops": (0.99, None),
    "speed": (3.0, None),
}


class ResultsError(ValueError):
    """The results file cannot give the table: what is missing, and where."""


@dataclass(frozen=True)
class Row:
    what: str
    part: str  # where in the run's output (bench_vision.py prints its parts in order)
    ours: list[float]  # one figure, or one a set
    theirs: list[float]  # REV's, in the same run
    unit: str  # "%", "x", "ms" or "" (a count)
    goal: Goal | str | None = None

    def met(self) -> str:
        if self.goal is None:
            return "—"
        if isinstance(self.goal, str):  # SAME_AS_REV
            ok = all(v >= w for v, w in zip(self.ours, self.theirs, strict=True))
        else:
            low, high = self.goal
            ok = all((low is None or v >= low) and (high is None or v <= high)
                     for v in self.ours)
        return "**met**" if ok else "not met"


def _number(value: float, unit: str) -> str:
    if unit == "%":
        return f"{100 * value:.1f}"
    if unit == "x":
        return f"{value:.2f}"
    if unit == "ms":
        return f"{1000 * value:.0f}"
    return f"{value:g}"


def figure(values: Sequence[float], unit: str) -> str:
    """``93.9 / 95.7 / 95.4 %``: one figure a set, in the run's order of sets."""
    text = " / ".join(_number(v, unit) for v in values)
    return f"{text} {unit}".rstrip() if unit in ("%", "ms") else text + unit


def goal_text(goal: Goal | str | None, unit: str, rev: str) -> str:
    if goal is None:
        return "—"
    if isinstance(goal, str):
        return f"no set below `{rev}`"
    low, high = goal
    if low is not None:
        return f"≥ {_goal_number(low, unit)}"
    return f"≤ {_goal_number(high or 0, unit)}" if high else "none"


def _goal_number(value: float, unit: str) -> str:
    return f"{100 * value:g} %" if unit == "%" else f"{value:g}{unit}"


def _part(results: dict[str, Any], name: str) -> Any:
    if name not in results:
        raise ResultsError(f"no {name!r} in the results: run bench_vision.py without "
                           f"--identity-only/--scan-only and with --against REV")
    return results[name]


def revision(results: dict[str, Any]) -> str:
    """The REV the run compared against (``--against``)."""
    for entry in _part(results, "scan"):
        if "against" in entry:
            return str(entry["against"]["rev"])
    raise ResultsError("'scan' holds no 'against': run bench_vision.py with --against REV")


def _field(entry: dict[str, Any], key: str, where: str) -> Any:
    if key not in entry:
        raise ResultsError(f"{where}: no {key!r}")
    return entry[key]


def mixed_rows(results: dict[str, Any], rev: str) -> list[Row]:
    """Part 2: crops of sets never enrolled, enrolled from a mix of other sets."""
    mixed = _part(results, "mixed_sets")

    def pick(group: str, key: str) -> tuple[list[float], list[float]]:
        where = f"mixed_sets[{group!r}]"
        both = _field(mixed, group, "mixed_sets")
        ours = _field(both, "new", where)
        theirs = _field(both, f"at {rev}", where)
        return ([float(_field(ours, key, where + "['new']"))],
                [float(_field(theirs, key, f"{where}['at {rev}']"))])

    never = "never enrolled"
    n = int(mixed[never]["new"]["n"])
    rows = [
        Row(f"sets never enrolled ({n:,} crops): named right", "part 2", *pick(never, "top1"),
            "%", GOALS["never enrolled"]),
        Row("… their bonus tiles named right", "part 2", *pick(never, "bonus_top1"), "%",
            GOALS["bonus"]),
        Row("… abstained (no answer given)", "part 2", *pick(never, "abstain"), "%",
            GOALS["abstained"]),
        Row("… named wrong", "part 2", *pick(never, "wrong"), "%"),
        Row("… a bonus tile named as another kind, or the reverse", "part 2",
            *pick(never, "bonus_suit_crossings"), "", GOALS["crossings"]),
        Row("sets neither enrolled nor trained on: named right", "part 2",
            *pick("never enrolled, never trained", "top1"), "%"),
        Row("the enrolled sets' own crops: named right", "part 2",
            *pick("enrolled set", "top1"), "%"),
    ]
    return rows


def held_out_rows(results: dict[str, Any], rev: str) -> list[Row]:
    """Part 1: crops of each held-out set, enrolled with its own crops (today's enrolment)."""
    held = _part(results, "held_out_enrolled")
    sets = sets_of(results)

    def pick(key: str, who: str) -> list[float]:
        where = "held_out_enrolled"
        return [float(_field(_field(_field(held, s, where), who, f"{where}[{s!r}]"), key,
                             f"{where}[{s!r}][{who!r}]")) for s in sets]

    n = int(held[sets[0]]["new"]["n"])
    return [
        Row(f"held-out sets enrolled ({n} crops a set): named right", "part 1",
            pick("top1", "new"), pick("top1", f"at {rev}"), "%", GOALS["enrolled crops"]),
        Row("… abstained", "part 1", pick("abstain", "new"), pick("abstain", f"at {rev}"), "%"),
        Row("… their bonus tiles named right", "part 1", pick("bonus_top1", "new"),
            pick("bonus_top1", f"at {rev}"), "%"),
    ]


def _per_set(entries: list[dict[str, Any]], part: str,
             value: Callable[[dict[str, Any]], float]) -> list[float]:
    try:
        return [float(value(e)) for e in entries]
    except KeyError as exc:
        raise ResultsError(f"{part}: an entry has no {exc}") from None


def scan_rows(results: dict[str, Any]) -> list[Row]:
    """Part 3: whole tables of the held-out sets, enrolled from frames the finder cut (today's
    enrolment); the tree against REV frame by frame."""
    scans = [e for e in _part(results, "scan") if e.get("method", "new") == "new"]
    if not scans:
        raise ResultsError("'scan' holds no entry of today's enrolment ('method': 'new')")
    frames = int(scans[0]["frames"])
    return [
        Row(f"whole tables ({frames} frames a set, set enrolled): tiles found", "part 3",
            _per_set(scans, "scan", lambda e: e["found"]),
            _per_set(scans, "scan", lambda e: e["against"]["found"]), "%"),
        Row("… found tiles named right", "part 3",
            _per_set(scans, "scan", lambda e: e["identity_of_found"]),
            _per_set(scans, "scan", lambda e: e["against"]["identity_of_found"]), "%",
            GOALS["enrolled scan"]),
        Row("… found tiles abstained on", "part 3",
            _per_set(scans, "scan", lambda e: e["abstained_of_found"]),
            _per_set(scans, "scan", lambda e: e["against"]["abstained_of_found"]), "%"),
        Row("… found tiles named wrong", "part 3",
            _per_set(scans, "scan", _named_wrong),
            _per_set(scans, "scan", lambda e: _named_wrong(e["against"])), "%"),
        Row("… a frame scanned (median)", "part 3",
            _per_set(scans, "scan", lambda e: e["median_scan_s"]),
            _per_set(scans, "scan", lambda e: e["against"]["median_scan_s"]), "ms"),
    ]


def _named_wrong(side: dict[str, Any]) -> float:
    """Found tiles given another kind's name: neither named right nor abstained on."""
    return 1.0 - float(side["identity_of_found"]) - float(side["abstained_of_found"])


def detector_rows(results: dict[str, Any]) -> list[Row]:
    """Part 4: PyPI ``mahjong-detector`` on the same frames, its 34 kinds."""
    runs = _part(results, "detector")

    def ratio(run: dict[str, Any], clock: str) -> float:
        return float(run["detector"][clock] / run["ours_enrolled_at_rev"][clock])

    return [
        Row("`mahjong-detector`'s time over our scan's, wall clock", "part 4",
            _per_set(runs, "detector", lambda r: r["detector_s_over_ours_enrolled_s"]),
            _per_set(runs, "detector", lambda r: ratio(r, "median_s")), "x", GOALS["speed"]),
        Row("… in CPU time", "part 4",
            _per_set(runs, "detector", lambda r: r["detector_cpu_over_ours_enrolled_cpu"]),
            _per_set(runs, "detector", lambda r: ratio(r, "median_cpu_s")), "x"),
        Row("on its 34 kinds, our scan (set enrolled) named right", "part 4",
            _per_set(runs, "detector", lambda r: r["ours_enrolled"]["accuracy"]),
            _per_set(runs, "detector", lambda r: r["ours_enrolled_at_rev"]["accuracy"]), "%"),
        Row("… `mahjong-detector` itself named right (its whole frame)", "part 4",
            _per_set(runs, "detector", lambda r: r["detector"]["accuracy"]), [], "%"),
    ]


def live_rows(results: dict[str, Any]) -> list[Row]:
    """Parts 3b, 3c and 5: the scan cache, dice, hands laid out to be scored."""
    hands = _part(results, "hands")
    cache = _part(results, "cache")
    dice = _part(results, "dice")
    rev = revision(results)
    n = int(hands[0]["hands"])

    def dice_read(layout: str, who: str) -> list[float]:
        where = f"dice[{layout!r}]"
        return [float(_field(_field(_field(dice, layout, "dice"), who, where), "pairs_read",
                             f"{where}[{who!r}]"))]

    return [
        Row(f"hands laid out to be scored ({n} a set): read whole", "part 5",
            _per_set(hands, "hands", lambda h: h["hands_read_whole"]),
            _per_set(hands, "hands", lambda h: h["against"]["hands_read_whole"]), "%"),
        Row("the live cache: a frame unchanged, times cheaper than a whole scan", "part 3b",
            _per_set(cache, "cache", lambda c: c["unchanged"]["plain_over_cached_median_of_pairs"]),
            [], "x"),
        Row("… one new discard, times cheaper", "part 3b",
            _per_set(cache, "cache",
                     lambda c: c["new_discard"]["plain_over_cached_median_of_pairs"]), [], "x"),
        Row("dice read, touching", "part 3c", dice_read("touching", "this"),
            dice_read("touching", rev), "%"),
        Row("dice read, apart", "part 3c", dice_read("apart", "this"), dice_read("apart", rev),
            "%"),
    ]


def rows_of(results: dict[str, Any]) -> list[Row]:
    for name in PARTS:
        _part(results, name)
    rev = revision(results)
    return (held_out_rows(results, rev) + mixed_rows(results, rev) + scan_rows(results)
            + detector_rows(results) + live_rows(results))


def sets_of(results: dict[str, Any]) -> list[str]:
    return [str(e["art"]) for e in _part(results, "scan") if e.get("method", "new") == "new"]


SPEED_UNITS = ("x", "ms")


def with_before(rows: list[Row], before: list[Row], rev: str) -> list[Row]:
    """Each row with REV's column taken from REV's own run of the same command, but for the
    speed rows: speed is compared frame by frame in one run, and the networks' sizes are
    the same."""
    if [r.what for r in rows] != [r.what for r in before]:
        missing = sorted({r.what for r in rows} ^ {r.what for r in before})
        raise ResultsError(f"the run at {rev} is not the same command: rows differ: {missing}")
    return [r if r.unit in SPEED_UNITS else Row(r.what, r.part, r.ours, b.ours, r.unit, r.goal)
            for r, b in zip(rows, before, strict=True)]


def table(results: dict[str, Any], source: str,
          before: tuple[dict[str, Any], str] | None = None) -> str:
    """The markdown: a line naming the run, then one row a measure. ``before``: the same
    command's results in a checkout of REV, with their file's name."""
    rev = revision(results)
    sets = " / ".join(f"`{s}`" for s in sets_of(results))
    rows = rows_of(results)
    if before is None:
        compared = f"this tree beside `{rev}` in the same run"
    else:
        try:
            same = revision(before[0]) == rev and sets_of(before[0]) == sets_of(results)
            before_rows = rows_of(before[0])
        except ResultsError as exc:
            raise ResultsError(f"{before[1]}: {exc}") from None
        if not same:
            raise ResultsError(f"{before[1]} was not run with --against {rev} on the same sets")
        rows = with_before(rows, before_rows, rev)
        compared = (f"then the same command in a checkout of `{rev}` with its own networks "
                    f"(`{before[1]}`), one after the other: `{rev}`'s column is from that "
                    f"run, but for its times and speeds, which are from the first run (`{rev}`'s "
                    "code beside this tree's, frame by frame)")
    lines = [
        f"One run of {RUN.replace('REV', rev).replace('RESULTS', source)} "
        f"(`{source}`), {compared}; figures per held-out set are {sets}.",
        "",
        f"| what | where in the run | this tree | `{rev}` | goal | met |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        theirs = figure(row.theirs, row.unit) if row.theirs else "—"
        lines.append(f"| {row.what} | {row.part} | {figure(row.ours, row.unit)} | {theirs} | "
                     f"{goal_text(row.goal, row.unit, rev)} | {row.met()} |")
    return "\n".join(lines) + "\n"


def write_into(readme: Path, text: str) -> None:
    """Replace what stands between the README's markers with ``text``."""
    old = readme.read_text()
    if BEGIN not in old or END not in old:
        raise ResultsError(f"{readme}: no markers {BEGIN!r} … {END!r} to write between")
    head, rest = old.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    readme.write_text(f"{head}{BEGIN}\n{text}{END}{tail}")


def _load(path: Path) -> dict[str, Any]:
    try:
        results = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ResultsError(f"{path}: {exc}") from None
    if not isinstance(results, dict):
        raise ResultsError(f"{path}: the file holds no JSON object")
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results", type=Path, help="a bench_vision.py --against REV --json file")
    parser.add_argument("--readme", type=Path, help="write the table into this README")
    parser.add_argument("--before", type=Path,
                        help="the same command's results run in a checkout of REV")
    args = parser.parse_args(argv)
    try:
        results = _load(args.results)
        before = None
        if args.before is not None:
            before = (_load(args.before), args.before.as_posix())
        text = table(results, args.results.as_posix(), before)
        if args.readme is not None:
            write_into(args.readme, text)
        else:
            sys.stdout.write(text)
    except (OSError, ResultsError) as exc:
        sys.stderr.write(f"readme_table: {args.results}: {exc}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
