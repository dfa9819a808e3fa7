"""The hub's fold of the tables' events into the club database, on SQLite and PostgreSQL:
each event counted once whatever the order, the copies, or the number of hubs."""

from __future__ import annotations

import random
import threading
from typing import Any

import pytest

from controller.games import export_games
from hub.db import ClubDB, PlayerError, open_db
from hub.ingest import EventError, Folder
from hub.standings import standings


def ingest_all(db: ClubDB, table: str, events: list[dict[str, Any]]) -> Folder:
    folder = Folder(db)
    for event in events:
        folder.ingest(table, event)
    return folder


def summary(db: ClubDB, table: str) -> list[tuple[Any, ...]]:
    return [(g.game, g.finished, dict(g.totals), [(h.hand, h.winner, h.outcome, dict(h.net))
                                                  for h in g.hands])
            for g in db.games(table=table)]


def expected(events: list[dict[str, Any]], ruleset: str) -> list[tuple[Any, ...]]:
    """The table's own scoresheet (`mjtable export`'s fold) of the same log."""
    out = []
    for game in export_games(events, ruleset):
        final = game["final"]
        totals = final["settlement"] if final else game["totals"]
        out.append((game["id"], final is not None, totals,
                    [(h["hand"], h["winner"], h["outcome"], h["net"]) for h in game["hands"]]))
    return out


def test_games_are_the_tables_own_scoresheet(club_db: ClubDB,
                                             american_game: list[dict[str, Any]],
                                             code_hands: list[dict[str, Any]]) -> None:
    ingest_all(club_db, "t1", american_game)
    ingest_all(club_db, "t2", code_hands)
    assert summary(club_db, "t1") == expected(american_game, "american")
    assert summary(club_db, "t2") == expected(code_hands, "code1924/mixed")
    [finished] = club_db.games(finished=True)
    [running] = club_db.games(finished=False)
    assert (finished.table, finished.ruleset, running.table) == ("t1", "american", "t2")
    assert [s.wind + s.name for s in finished.seats] == ["EAnn", "SBob", "WCy", "NDee"]
    # every hand keeps what the schemes read: the winner's value and line, the event's seq
    won = [h for h in finished.hands if h.outcome == "win"]
    assert won and all(h.value and h.name and h.seq for h in won)
    chinese = [h for h in running.hands if h.outcome == "win"]
    assert chinese and all(h.value and h.value > 0 for h in chinese)
    table = {t.table: t for t in club_db.tables()}
    assert (table["t1"].last_seq, table["t1"].missing) == (len(american_game), 0)


def test_copies_and_any_order_count_once(club_db: ClubDB,
                                         code_hands: list[dict[str, Any]]) -> None:
    shuffled = code_hands + random.Random(7).sample(code_hands, 150)
    random.Random(8).shuffle(shuffled)
    ingest_all(club_db, "t1", shuffled)
    assert summary(club_db, "t1") == expected(code_hands, "code1924/mixed")
    assert club_db.tables()[0].events == len(code_hands)
    assert club_db.gaps() == []


def test_two_hubs_on_one_database_count_each_hand_once(
        db_target: str, code_hands: list[dict[str, Any]]) -> None:
    # Two hubs, each with its own connection and cache, take overlapping shares of one
    # stream at the same time (a shared subscription hands messages round-robin; a table
    # resends its outbox after a crash): the database's key decides.
    hubs = [open_db(db_target), open_db(db_target)]
    shares = [code_hands[0::2] + code_hands[100:250], code_hands[1::2]]
    failures: list[BaseException] = []

    def run(db: ClubDB, events: list[dict[str, Any]]) -> None:
        try:
            ingest_all(db, "t1", events)
        except BaseException as exc:  # reported below, not lost in the thread
            failures.append(exc)

    threads = [threading.Thread(target=run, args=pair) for pair in zip(hubs, shares,
                                                                         strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert failures == []
    assert summary(hubs[0], "t1") == expected(code_hands, "code1924/mixed")
    assert hubs[1].tables()[0].events == len(code_hands)
    for db in hubs:
        db.close()


def test_a_gap_is_recorded_until_its_events_arrive(club_db: ClubDB,
                                                   american_game: list[dict[str, Any]]) -> None:
    folder = Folder(club_db)
    for event in american_game[:9]:
        folder.ingest("t1", event)
    done = folder.ingest("t1", american_game[12])
    assert done.gap == (10, 12)
    assert club_db.gaps() == [("t1", 10, 12)]
    folder.ingest("t1", american_game[10])  # seq 11: the gap splits around it
    assert club_db.gaps() == [("t1", 10, 10), ("t1", 12, 12)]
    for event in american_game[9:]:
        folder.ingest("t1", event)
    assert club_db.gaps() == []
    assert summary(club_db, "t1") == expected(american_game, "american")


@pytest.mark.parametrize(("table", "payload", "where"), [
    ("club", {"seq": 1, "type": "Drew"}, "topic"),
    ("t 1", {"seq": 1, "type": "Drew"}, "topic"),
    ("t1", [1, 2], "payload"),
    ("t1", {"type": "Drew"}, "payload.seq"),
    ("t1", {"seq": "3", "type": "Drew"}, "payload.seq"),
    ("t1", {"seq": 0, "type": "Drew"}, "payload.seq"),
    ("t1", {"seq": 3}, "payload.type"),
])
def test_a_bad_event_is_refused_and_changes_nothing(club_db: ClubDB, table: str,
                                                    payload: Any, where: str) -> None:
    with pytest.raises(EventError) as refused:
        Folder(club_db).ingest(table, payload)
    assert refused.value.where == where
    assert club_db.tables() == []


def test_players_registered_once_and_matched_to_seats(
        club_db: ClubDB, american_game: list[dict[str, Any]],
        code_hands: list[dict[str, Any]]) -> None:
    ann = club_db.register_player("C-001", "Ann")
    with pytest.raises(PlayerError, match="already registered: Ann") as twice:
        club_db.register_player("C-001", "Anne")
    assert twice.value.where == "club_id"
    with pytest.raises(PlayerError, match="name 'ann' is already registered: Ann") as same_name:
        club_db.register_player("C-002", "ann  ")
    assert same_name.value.where == "name"
    ingest_all(club_db, "t1", american_game)  # seated after Ann registered
    ingest_all(club_db, "t2", code_hands)
    eve = club_db.register_player("C-003", "Eve")  # registered after her game was seated
    assert [g.key for g in club_db.player_games(ann.id)] == ["t1/1", "t2/1"]
    assert [g.key for g in club_db.player_games(eve.id)] == ["t2/1"]
    assert club_db.games(finished=True)[0].player_id("Ann") == ann.id
    assert [p.club_id for p in club_db.players()] == ["C-001", "C-003"]


def test_raw_standings_sum_the_finished_games(club_db: ClubDB,
                                              american_game: list[dict[str, Any]],
                                              code_hands: list[dict[str, Any]]) -> None:
    ingest_all(club_db, "t1", american_game)
    ingest_all(club_db, "t2", code_hands)  # still going on: not counted
    [game] = export_games(american_game, "american")
    rows = standings(club_db)["players"]
    assert {r["name"]: r["points"] for r in rows} == game["final"]["settlement"]
    assert [r["points"] for r in rows] == sorted((r["points"] for r in rows), reverse=True)
    assert {r["name"]: r["hands_won"] for r in rows} == {
        name: sum(h["winner"] == name for h in game["hands"]) for name in game["players"]}
    assert all(r["games"] == 1 and set(r) == {"name", "points", "games", "hands_won"}
               for r in rows)


def test_a_long_read_never_holds_up_the_hub_on_sqlite(
        tmp_path: Any, code_hands: list[dict[str, Any]]) -> None:
    # The club page reads while the hub writes: on SQLite (WAL) a read transaction does not
    # take the write lock, so an event is stored while a read is still open.
    page, hub = open_db(str(tmp_path / "club.db")), open_db(str(tmp_path / "club.db"))
    folder = Folder(hub)
    folder.ingest("t1", code_hands[0])
    with page.reader.begin() as conn:
        assert conn.exec_driver_sql("SELECT COUNT(*) FROM club_events").scalar() == 1
        done = folder.ingest("t1", code_hands[1])
        assert done.new and hub.tables()[0].events == 2
    page.close()
    hub.close()
