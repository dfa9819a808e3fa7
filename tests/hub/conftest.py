"""Fixtures of the hub's tests: real simulated games' event logs, and the club database on
SQLite and on a real PostgreSQL."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hub import schema
from hub.db import ClubDB, open_db
from tests.hub.postgres import LocalPostgres, PostgresUnavailable

MJTABLE = str(Path(sys.executable).with_name("mjtable"))


def simulated_log(store: Path, *args: str) -> list[dict[str, Any]]:
    """Every event of a whole simulated table, in seq order, from its store."""
    subprocess.run([MJTABLE, "simulate", "--headless", "--store", str(store), *args],
                   check=True, capture_output=True, timeout=300)
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT body FROM events ORDER BY seq").fetchall()
    return [json.loads(body) for (body,) in rows]


@pytest.fixture(scope="session")
def american_game(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """A whole American game (four hands, as the table's config makes one)."""
    store = tmp_path_factory.mktemp("american") / "store.db"
    return simulated_log(store, "--ruleset", "american", "--game", "--seed", "2",
                         "--names", "Ann,Bob,Cy,Dee")


@pytest.fixture(scope="session")
def code_hands(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """Three hands of a Code 1924 game still going on."""
    store = tmp_path_factory.mktemp("code") / "store.db"
    return simulated_log(store, "--hands", "3", "--seed", "3", "--names", "Ann,Eve,Fay,Gus")


@pytest.fixture(scope="session")
def postgres() -> Iterator[LocalPostgres]:
    try:
        with LocalPostgres() as pg:
            yield pg
    except PostgresUnavailable as exc:
        pytest.fail(f"PostgreSQL is part of the project's set-up (./dev): {exc}")


@pytest.fixture(params=["sqlite", "postgresql"])
def db_target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The club database's target, on each backend, empty."""
    if request.param == "sqlite":
        return str(tmp_path / "club.db")
    pg: LocalPostgres = request.getfixturevalue("postgres")
    db = open_db(pg.url)
    schema.metadata.drop_all(db.engine)
    db.close()
    return pg.url


@pytest.fixture
def club_db(db_target: str) -> Iterator[ClubDB]:
    db = open_db(db_target)
    yield db
    db.close()
