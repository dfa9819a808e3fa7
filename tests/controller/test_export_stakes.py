"""`mjtable export` with stakes and American tournament points, read back from the command's
own output: the money beside the points, nothing that was there changed."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

NAMES = "Ann,Bob,Cy,Dee"


def mjtable(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "import sys; from controller.cli import main; sys.exit(main())",
         *args], capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def american_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    store = tmp_path_factory.mktemp("american") / "table.sqlite3"
    done = mjtable("simulate", "--headless", "--ruleset", "american", "--hands", "3",
                   "--seed", "2", "--names", NAMES, "--store", str(store))
    assert done.returncode == 0, done.stderr
    yield store


def export(store: Path, *args: str) -> dict[str, Any]:
    done = mjtable("export", "--store", str(store), *args)
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def test_money_beside_the_points_at_a_cent_a_point(american_store: Path) -> None:
    plain = export(american_store)["games"][0]
    game = export(american_store, "--unit", "USD", "--per-point", "0.01")["games"][0]
    # nothing that was there changes: the same game with fields added
    for key, value in plain.items():
        if key != "hands":
            assert game[key] == value
    for before, after in zip(plain["hands"], game["hands"], strict=True):
        assert {k: v for k, v in after.items() if k != "money"} == before
    stakes = game["stakes"]
    assert stakes["unit"] == "USD" and stakes["per_point"] == "0.01"
    assert "Values and units" in stakes["rules"]["settling"]
    won = 0
    for hand, money in zip(game["hands"], stakes["hands"], strict=True):
        # each payment a cent a point, each hand summing to zero, as the points do
        for paid in money["payments"]:
            assert Decimal(paid["money"]) == Decimal(paid["points"]) / 100
        assert sum(Decimal(v) for v in hand["money"].values()) == 0
        assert {p: Decimal(v) * 100 for p, v in hand["money"].items()} == {
            p: Decimal(v) for p, v in hand["net"].items()}
        won += hand["winner"] is not None
    assert won >= 1
    assert {p: Decimal(v) * 100 for p, v in stakes["totals"].items()} == {
        p: Decimal(v) for p, v in game["totals"].items()}


def test_tournament_points_are_the_tables_summed(american_store: Path) -> None:
    game = export(american_store)["games"][0]
    points = game["tournament"]
    sums = {p: 0 for p in game["players"]}
    for hand in game["hands"]:
        for p, v in hand["score"]["tournament"].items():
            sums[p] += v
    assert points["totals"] == sums
    assert points["standing"][0] == max(sums, key=lambda p: sums[p])
    reasons = [why for h in points["hands"] for got in h["points"].values()
               for why in got["why"]]
    assert reasons and all("SC-9" in why for why in reasons)


def test_csv_gains_money_columns_from_the_config(american_store: Path, tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[table]\nid = "t1"\nruleset = "american"\n[board]\nserial = "emulated"\n'
                      '[stakes]\nunit = "chips"\nper_point = 0.2\n')
    done = mjtable("export", "--store", str(american_store), "--config", str(config),
                   "--format", "csv")
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    assert list(rows[0]) == ["game", "hand", "player", "seat", "wind", "net", "total", "money",
                             "money_total"]
    for row in rows:  # a chip for every 5 points: whole chips
        assert Decimal(row["money"]) == (Decimal(row["net"]) / 5).quantize(Decimal(1))
    last = {r["player"]: r for r in rows if r["hand"] == rows[-1]["hand"]}
    assert sum(Decimal(r["money_total"]) for r in last.values()) == 0


@pytest.mark.parametrize(("args", "where"), [
    (["--unit", "USD", "--per-point", "ten"], "--per-point"),
    (["--unit", "USD", "--per-point", "0"], "--per-point"),
    (["--per-point", "0.01"], "--per-point"),
    (["--settle", "game"], "--settle"),
    (["--config", "/nonexistent/table.toml"], "--config"),
])
def test_bad_stakes_are_refused_by_name(american_store: Path, args: list[str],
                                        where: str) -> None:
    done = mjtable("export", "--store", str(american_store), *args)
    assert done.returncode == 2
    answer = json.loads(done.stdout)
    assert answer["where"] == where and answer["error"]
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(("stakes", "error"), [
    ("USD:x", "not a number"),
    (":0.1", "name the unit"),
    ("USD:-2", "greater than 0"),
    ("USD:5000", "less than or equal to 1000"),
])
def test_simulate_refuses_bad_stakes_by_name(stakes: str, error: str) -> None:
    done = mjtable("simulate", "--headless", "--hands", "1", "--stakes", stakes)
    assert done.returncode == 2
    answer = json.loads(done.stdout)
    assert answer["where"] == "--stakes" and error in answer["error"]
    assert "Traceback" not in done.stderr
