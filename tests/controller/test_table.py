"""Live adjudication at a mirrored table: claims on board time, the call window, held
observations, referee commands, recovery from the log. No network: the store on disk."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from controller.families import world_for
from controller.inputs import Observation, ObservationKind, Press
from controller.lights import LightLog, Show
from controller.store import EventStore
from controller.table import HELD, SETTLED, Table, TableSettings
from controller.world import Claims
from engine.game import public_view
from engine.seats import Seat
from tests.hand_feed import feed

PAUSE_US = 100_000
# The courtesy pause and the time a press made in it may take to arrive: the window's length.
WINDOW_US = PAUSE_US + TableSettings("t1").press_latency_ms * 1000


def _table(tmp_path: Path, ruleset: str = "code1924/mixed") -> Table:
    store = EventStore(tmp_path / "table.sqlite3")
    settings = TableSettings("t1", ruleset, courtesy_pause_ms=PAUSE_US // 1000)
    return Table(settings, store, LightLog(), scorer=None)


def obs(kind: str, seat: str | None, *tiles: str, conf: float = 0.99, **kw: Any) -> Observation:
    return Observation(ObservationKind(kind), seat, tuple(tiles), conf, **kw)


def _to_first_discard(table: Table, now: int = 1_000_000) -> int:
    """Dice (East 3+4 selects West, Law 15), West's throw, the deal, East's first discard."""
    table.start()
    for step in (
        obs("dice", "E", dice=(3, 4)),
        obs("dice", "W", dice=(2, 2)),
        obs("deal", None),
        obs("discard", "E", "5C"),
    ):
        now += 10_000
        outcome = table.observe(step, now)
        assert outcome.accepted, outcome.error
    return now


def _decision(table: Table) -> dict[str, Any]:
    return [e for e in table.store.events() if e["type"] == "ClaimsClosed"][-1]


def test_two_pungs_within_a_millisecond_go_to_the_earlier_board_time(tmp_path: Path) -> None:
    table = _table(tmp_path)
    now = _to_first_discard(table)
    # S's press reaches the service first, but W pressed 400 µs earlier on the board clock.
    assert table.press(Press("S", "pung", now + 900), now + 2_000).accepted
    assert table.press(Press("W", "pung", now + 500), now + 2_100).accepted
    assert table.tick(now + WINDOW_US - 1) == []  # the window is not over
    table.tick(now + WINDOW_US + 10_000)
    decision = _decision(table)
    assert decision["winner"] == "W" and decision["kind"] == "pung"
    assert decision["rule"] == "Code 1924, Law 52"
    assert decision["claims"] == ["S:pung", "W:pung"]  # in arrival order, as recorded
    shown = [(s.pattern.show, s.pattern.seat) for s in table.lights.history]
    assert (Show.CLAIM_WON, "W") in shown and (Show.CLAIM_REFUSED, "S") in shown


def test_mahjong_beats_an_earlier_pung(tmp_path: Path) -> None:
    table = _table(tmp_path)
    now = _to_first_discard(table)
    table.press(Press("N", "pung", now + 100), now + 1_000)
    table.press(Press("S", "mahjong", now + 700), now + 1_100)
    table.tick(now + WINDOW_US + 1_000)
    decision = _decision(table)
    assert (decision["winner"], decision["kind"]) == ("S", "mahjong")
    assert decision["rule"] == "Code 1924, Law 50"


def test_the_next_draw_closes_the_window_and_adjudicates_first(tmp_path: Path) -> None:
    table = _table(tmp_path)
    now = _to_first_discard(table)
    table.press(Press("W", "pung", now + 100), now + 1_000)
    # West was awarded the tile, so South's draw seen by the camera contradicts the table:
    outcome = table.observe(obs("draw", "S"), now + 20_000)
    assert _decision(table)["winner"] == "W"
    assert not outcome.accepted and outcome.asked is not None
    assert outcome.rule.startswith("Code 1924")


def test_a_refused_press_names_its_rule_and_lights_no(tmp_path: Path) -> None:
    table = _table(tmp_path)
    now = _to_first_discard(table)
    outcome = table.press(Press("N", "chow", now + 100), now + 1_000)  # only S may chow E
    assert not outcome.accepted and outcome.rule == "Code 1924, Law 34"
    assert table.lights.last(Show.CLAIM_REFUSED).pattern.seat == "N"  # type: ignore[union-attr]
    refusal = json.loads(table.store.pending()[-1].payload)
    assert refusal["type"] == "refused" and refusal["rule"] == "Code 1924, Law 34"


def test_low_confidence_is_held_asked_and_confirmed(tmp_path: Path) -> None:
    table = _table(tmp_path)
    now = _to_first_discard(table)
    table.tick(now + WINDOW_US + 1)
    table.observe(obs("draw", "S"), now + WINDOW_US + 2)
    doubtful = obs("discard", "S", "7D", conf=0.55)
    outcome = table.observe(doubtful, now + WINDOW_US + 3)
    assert not outcome.accepted and outcome.asked == 1
    assert table.pending[1]["tiles"] == ["7D"]
    assert table.lights.last().pattern.show is Show.ASK  # type: ignore[union-attr]
    assert public_view(table.state)["seats"]["S"]["discards"] == []  # type: ignore[arg-type]
    result = table.command("confirm", b'{"pending": 1}', now + WINDOW_US + 4)
    assert result["ok"] is True and result["pending"] == 1
    assert public_view(table.state)["seats"]["S"]["discards"] == ["7D"]  # type: ignore[arg-type]
    kinds = [e["type"] for e in table.store.events()]
    assert kinds.count(HELD) == 1 and kinds.count(SETTLED) == 1 and not table.pending


def test_referee_corrects_a_misread_tile(tmp_path: Path) -> None:
    table = _table(tmp_path)
    now = _to_first_discard(table)
    table.tick(now + WINDOW_US + 1)
    table.observe(obs("draw", "S"), now + WINDOW_US + 2)
    asked = table.observe(obs("discard", "S", "XX"), now + WINDOW_US + 3)  # not a tile
    assert asked.asked == 1 and "XX" in asked.error
    result = table.command("correct", b'{"pending": 1, "tiles": ["8D"]}', now + WINDOW_US + 4)
    assert result["ok"] is True
    settled = [e for e in table.store.events() if e["type"] == SETTLED][-1]
    assert settled["how"] == "corrected" and settled["observation"]["tiles"] == ["8D"]


@pytest.mark.parametrize(
    ("verb", "payload", "where", "words"),
    [
        ("frobnicate", b"{}", "verb", "unknown command 'frobnicate'"),
        ("confirm", b"{not json", "payload", "not JSON"),
        ("confirm", b"[1, 2]", "payload", "expected a JSON object"),
        ("confirm", b'{"pending": 99}', "pending", "no held observation 99"),
        ("correct", b'{"at": 2, "command": null}', "reason", "names its reason"),
        ("observe", b'{"kind": "sneeze"}', "payload", "is not one of"),
        ("claim", b'{"seat": "Q", "kind": "pung"}', "seat", "not one of E S W N"),
        ("roll", b'{"seat": 7}', "seat", "is not one of"),
        ("confirm", b"\xff\xfe", "payload", "not JSON"),
        # A boolean is not a number: JSON true must not settle held observation 1.
        ("confirm", b'{"pending": true}', "pending", "expected a whole number, not true"),
        ("correct", b'{"at": false, "reason": "x"}', "at", "expected a whole number, not false"),
        ("dismiss", b'{"pending": 1e3}', "pending", "expected a whole number, not 1000.0"),
        ("confirm", b'{"pending": ' + b"9" * 400 + b"}", "pending",
         "expected a whole number from 0 to 9007199254740992, not 999"),
        ("correct", b'{"at": -1, "reason": "x"}', "at", "from 0 to"),
        ("confirm", b'{"pending": ' + b"9" * 5_000 + b"}", "payload", "not readable"),
        ("correct", b'{"at": 1, "reason": "x", "command": [1]}', "command",
         "an engine command as a JSON object, or null"),
        ("claim", b'{"seat": "E", "kind": 5}', "kind", "expected a string, not 5"),
        ("claim", b'{"seat": "E", "kind": "sneeze"}', "kind", "'sneeze' is not one of chow"),
        ("roll", b'{"seat": ["E"]}', "seat", '["E"] is not one of E S W N'),
        ("observe", b"[" * 100_000 + b"]" * 100_000, "payload", "nested too deeply"),
        ("confirm", b'{"a": ' * 100_000 + b"1" + b"}" * 100_000, "payload", "nested too deeply"),
    ],
)
def test_malformed_commands_get_an_error_result_never_a_crash(
    tmp_path: Path, verb: str, payload: bytes, where: str, words: str
) -> None:
    table = _table(tmp_path)
    _to_first_discard(table)
    seq = table.seq
    result = table.command(verb, payload, 2_000_000)
    assert result["ok"] is False and result["where"] == where and words in result["error"]
    published = json.loads(table.store.pending()[-1].payload)
    assert table.store.pending()[-1].topic == f"mahjong/v1/t1/cmd/{verb}/result"
    assert published == result
    assert table.seq == seq  # nothing happened to the game


def test_status_command_answers(tmp_path: Path) -> None:
    table = _table(tmp_path)
    _to_first_discard(table)
    result = table.command("status", b"", 2_000_000)
    assert result["ok"] and result["phase"] == "claims" and result["seq"] == table.seq


def test_roll_uses_the_injected_dice_and_applies_the_throw(tmp_path: Path) -> None:
    faces = iter([6, 3])
    store = EventStore(tmp_path / "t.sqlite3")
    table = Table(TableSettings("t1"), store, roll=lambda: next(faces), scorer=None)
    result = table.command("roll", b'{"seat": "E"}', 1_000)
    assert result["ok"] and table.last_dice == (6, 3)
    thrown = next(e for e in store.events() if e["type"] == "DiceThrown")
    assert thrown["dice"] == [6, 3] and thrown["seat"] == "E"
    assert table.next_thrower() == "E"  # 9 selects East again (Law 15)


def _play(table: Table, steps: int, seed: int) -> int:
    """Feed ``steps`` steps of a bots' hand to the table; the time reached."""
    world = world_for("code1924/mixed", random.Random(seed), prevailing=Seat.E, hand=1)
    now = 1_000_000
    for i, step in enumerate(world.steps()):
        if i >= steps:
            break
        now += 20_000
        if isinstance(step, Claims):
            for seat, kind in step.presses:
                now += 200
                table.press(Press(seat, kind, now), now)
        else:
            assert table.observe(step, now).accepted
    return now


@pytest.mark.parametrize("steps", [5, 37, 80])
def test_a_new_table_on_the_same_store_is_in_the_same_state(tmp_path: Path, steps: int) -> None:
    table = _table(tmp_path)
    table.start()
    _play(table, steps, seed=11)
    before = (table.public_state(), table.scores(), table.seq, table.hand_no)
    again = _table(tmp_path)  # what a restart after kill -9 does
    assert (again.public_state(), again.scores(), again.seq, again.hand_no) == before


def test_nothing_published_names_a_concealed_tile(tmp_path: Path) -> None:
    table = _table(tmp_path)
    table.start()
    _play(table, 400, seed=3)
    for message in table.store.pending(limit=100_000):
        body = json.loads(message.payload)
        for private in ("wall", "concealed_tiles", "own"):
            assert private not in body
        if body.get("type") in ("Drew", "DrawReturned"):
            assert body.get("tile") is None
        if body.get("type") == "Dealt":
            assert "tiles" not in body


def test_recovering_twice_counts_nothing_twice(tmp_path: Path) -> None:
    """The scoresheet is a fold of the log: recovering again (as the table does when the
    store refuses a write) must not add a hand's score twice."""
    store = EventStore(tmp_path / "t.sqlite3")

    def scorer(doc: dict[str, Any]) -> dict[str, Any]:
        return {"net": {"E": 3, "S": -1, "W": -1, "N": -1}, "payments": []}

    table = Table(TableSettings("t1", courtesy_pause_ms=100, snapshot_every=1000), store,
                  scorer=scorer)
    table.start()
    for seed in range(40):  # play until some hand is won and scored
        _play_whole_hand(table, seed)
        if table.sheet and any(h.get("net") for h in table.sheet):
            break
    totals = dict(table.totals)
    assert sum(abs(v) for v in totals.values()) > 0
    table.recover()
    table.recover()
    assert table.totals == totals
    assert Table(TableSettings("t1"), store, scorer=None).totals == totals


def _play_whole_hand(table: Table, seed: int) -> None:
    prevailing = Seat[table.prevailing] if table.prevailing else None
    world = world_for("code1924/mixed", random.Random(seed), prevailing=prevailing,
                      hand=table.hand_no)
    hand = table.hand_no
    now = feed(table, world.steps(), 1_000_000 + seed * 1_000_000_000, WINDOW_US)
    table.tick(now + WINDOW_US * 2)
    assert table.hand_no == hand + 1


def test_confirming_what_the_rules_refuse_keeps_the_question_open(tmp_path: Path) -> None:
    table = _table(tmp_path)
    now = _to_first_discard(table)
    table.tick(now + WINDOW_US + 1)
    asked = table.observe(obs("discard", "N", "7D", conf=0.4), now + WINDOW_US + 2)
    assert asked.asked == 1
    result = table.command("confirm", b'{"pending": 1}', now + WINDOW_US + 3)
    assert result["ok"] is False and result["rule"].startswith("Code 1924")  # S must draw
    assert sorted(table.pending) == [1]  # still asked; no second question about the same tile
    assert table.command("dismiss", b'{"pending": 1}', now + WINDOW_US + 4)["ok"]
    assert not table.pending


def test_referee_amends_an_applied_misread_through_the_engine(tmp_path: Path) -> None:
    table = _table(tmp_path)
    now = _to_first_discard(table)  # E discarded 5C ... but it was 6C
    assert table.state is not None
    at = next(i for i, e in enumerate(table.state.standing) if e.TYPE == "Discarded")
    body = {"at": at, "command": {"type": "Discard", "seat": "E", "tile": "6C"},
            "reason": "the camera misread it"}
    result = table.command("correct", json.dumps(body).encode(), now + 1_000)
    assert result["ok"] is True and result["events"] == ["Amended"]
    assert public_view(table.state)["seats"]["E"]["discards"] == ["6C"]
    amended = [e for e in table.store.events() if e["type"] == "Amended"][-1]
    assert amended["reason"] == "the camera misread it"
    # The log keeps both, and a restart comes back to the amended hand.
    again = _table(tmp_path)
    assert public_view(again.state)["seats"]["E"]["discards"] == ["6C"]  # type: ignore[arg-type]


def test_the_camera_is_told_who_is_showing_a_hand(tmp_path: Path) -> None:
    table = _table(tmp_path)
    now = _to_first_discard(table)
    assert table.showing_hands() == {}  # the call window is open, nobody called Mah-jongg
    table.press(Press("N", "pung", now + 100), now + 1_000)
    assert table.showing_hands() == {}
    table.press(Press("S", "mahjong", now + 700), now + 1_100)
    assert table.showing_hands() == {"S": 14}  # the only Mah-jongg call: 13 and the discard
    table.tick(now + WINDOW_US + 1_000)
    assert table.showing_hands() == {"S": 14}  # awarded: the hand comes next
    shown = obs("hand_shown", "S", *WINNING_14, source="referee")
    assert table.observe(shown, now + 2 * WINDOW_US).accepted
    # Law 82: each of the others in turn to the right exposes his hand.
    assert table.showing_hands() == {"W": 13, "N": 13, "E": 13}


def test_the_turn_seat_may_show_once_it_has_drawn(tmp_path: Path) -> None:
    table = _table(tmp_path)
    now = _to_first_discard(table)
    table.tick(now + WINDOW_US + 1_000)  # nobody called: South's turn, not drawn yet
    assert table.showing_hands() == {}
    assert table.observe(obs("draw", "S"), now + WINDOW_US + 2_000).accepted
    assert table.showing_hands() == {"S": 14}


# A complete hand with the discarded 5C (Code 1924: chows, pungs and a pair).
WINNING_14 = ("1C", "2C", "3C", "5C", "5C", "5C", "7B", "8B", "9B", "GD", "GD", "GD", "WD", "WD")


def test_a_misread_hand_from_the_camera_is_held_not_a_false_mahjong(tmp_path: Path) -> None:
    """Law 86 makes a false Mah-jongg a penalty: one tile the camera misread must not bring
    it. The camera's reading is held and the table asked; the referee's word decides."""
    table = _table(tmp_path)
    now = _to_first_discard(table)
    table.press(Press("S", "mahjong", now + 700), now + 1_100)
    table.tick(now + WINDOW_US + 1_000)
    misread = (*WINNING_14[:-1], "RD")  # WD read as RD: not complete
    outcome = table.observe(obs("hand_shown", "S", *misread), now + 2 * WINDOW_US)
    assert not outcome.accepted and outcome.asked is not None
    assert "no Mah-jongg" in (outcome.error or "") and outcome.rule == "Code 1924, Law 86"
    assert table.state is not None and table.state.phase == "award"  # nothing applied
    # The referee corrects it to what lies on the table: a true Mah-jongg.
    result = table.command(
        "correct",
        json.dumps({"pending": outcome.asked, "tiles": [*WINNING_14]}).encode(),
        now + 3 * WINDOW_US,
    )
    assert result["ok"], result
    scored = [e for e in table.store.events() if e["type"] == "MahjongDeclared"]
    assert [e["seat"] for e in scored] == ["S"]


def test_a_false_mahjong_the_table_confirms_is_applied(tmp_path: Path) -> None:
    table = _table(tmp_path)
    now = _to_first_discard(table)
    table.press(Press("S", "mahjong", now + 700), now + 1_100)
    table.tick(now + WINDOW_US + 1_000)
    incomplete = (*WINNING_14[:-1], "RD")
    outcome = table.observe(obs("hand_shown", "S", *incomplete), now + 2 * WINDOW_US)
    assert outcome.asked is not None
    result = table.command(
        "confirm", json.dumps({"pending": outcome.asked}).encode(), now + 3 * WINDOW_US
    )
    assert result["ok"], result
    assert [e["type"] for e in table.store.events() if e["type"] == "FalseMahjong"] == [
        "FalseMahjong"
    ]


LOSER_13 = ("1D", "1D", "1D", "2B", "3B", "4B", "7C", "7C", "8C", "9C", "NW", "NW", "SW")
LOSERS = {
    "W": LOSER_13,
    "N": ("2D", "2D", "2D", "5B", "6B", "7B", "4C", "4C", "6C", "6C", "EW", "EW", "RD"),
    "E": ("3D", "3D", "3D", "9B", "9B", "1B", "1B", "8D", "8D", "9D", "9D", "WW", "WW"),
}


def _won_by_south(table: Table) -> int:
    now = _to_first_discard(table)
    table.press(Press("S", "mahjong", now + 700), now + 1_100)
    table.tick(now + WINDOW_US + 1_000)
    shown = obs("hand_shown", "S", *WINNING_14, source="referee")
    assert table.observe(shown, now + 2 * WINDOW_US).accepted
    return now + 2 * WINDOW_US


def _scoring_table(tmp_path: Path, docs: list[dict[str, Any]]) -> Table:
    store = EventStore(tmp_path / "table.sqlite3")
    settings = TableSettings("t1", "code1924/mixed", courtesy_pause_ms=PAUSE_US // 1000)
    return Table(settings, store, LightLog(), scorer=lambda doc: docs.append(doc) or {})


def test_law_82_the_others_show_their_hands_before_the_hand_is_scored(tmp_path: Path) -> None:
    docs: list[dict[str, Any]] = []
    table = _scoring_table(tmp_path, docs)
    now = _won_by_south(table)
    assert table.hand_no == 1 and docs == []  # not scored: the others' hands come first
    assert table.part.awaiting == ["W", "N", "E"]
    for i, seat in enumerate(("W", "N", "E")):
        outcome = table.observe(obs("hand_shown", seat, *LOSERS[seat]), now + (i + 1) * 1_000)
        assert outcome.accepted, outcome.error
    assert table.hand_no == 2  # scored, and the next hand opened
    (doc,) = docs
    assert doc["winner"] == "S" and sorted(doc["hands"]) == ["E", "N", "S", "W"]
    assert doc["hands"]["W"]["concealed"] == list(LOSER_13)
    kinds = [e["type"] for e in table.store.events()]
    assert kinds.count("LoserHandShown") == 3
    assert kinds.index("LosersAwaited") < kinds.index("LoserHandShown") < kinds.index("HandScored")


def test_the_next_throw_scores_the_hand_with_the_hands_shown(tmp_path: Path) -> None:
    docs: list[dict[str, Any]] = []
    table = _scoring_table(tmp_path, docs)
    now = _won_by_south(table)
    assert table.observe(obs("hand_shown", "W", *LOSER_13), now + 1_000).accepted
    # North and East never show theirs: the next hand's first throw moves the table on.
    outcome = table.observe(obs("dice", "E", dice=(3, 4)), now + 2_000)
    assert outcome.accepted, outcome.error
    (doc,) = docs
    assert sorted(doc["hands"]) == ["S", "W"]  # the two not shown hold nothing that scores
    assert table.hand_no == 2 and table.state is not None and len(table.state.throws) == 1


def test_a_hand_shown_of_the_wrong_size_or_a_fifth_copy_is_asked(tmp_path: Path) -> None:
    table = _table(tmp_path)
    now = _won_by_south(table)
    short = table.observe(obs("hand_shown", "W", *LOSER_13[:-1]), now + 1_000)
    assert not short.accepted and short.asked is not None
    assert "W holds 13 tiles, the hand shown has 12" in short.error
    # South showed three 5C (East's discard it won on among them): two more make five.
    fifth = table.observe(obs("hand_shown", "W", "5C", "5C", *LOSER_13[2:]), now + 2_000)
    assert not fifth.accepted and "more 5C" in fifth.error
    assert table.part.awaiting == ["W", "N", "E"] and table.part.losers_shown == {}


def test_the_hands_awaited_come_back_after_a_restart(tmp_path: Path) -> None:
    table = _table(tmp_path)
    now = _won_by_south(table)
    assert table.observe(obs("hand_shown", "W", *LOSER_13), now + 1_000).accepted
    again = Table(table.settings, EventStore(tmp_path / "table.sqlite3"), LightLog(), scorer=None)
    assert again.part.awaiting == ["W", "N", "E"]
    assert again.part.losers_shown == {"W": list(LOSER_13)}
    assert again.showing_hands() == {"N": 13, "E": 13}
    state = again.public_state()
    assert state["hands_awaited"] == ["N", "E"] and state["hands_shown"] == {"W": list(LOSER_13)}
    assert again.state is not None and again.state.phase == "ended" and again.hand_no == 1


def test_a_hand_seen_again_does_not_move_the_table_on(tmp_path: Path) -> None:
    """The camera may report a hand twice (its tiles lost and found): the same hand again is
    nothing new; a different one is asked; neither scores the hand before the others show."""
    table = _table(tmp_path)
    now = _won_by_south(table)
    assert table.observe(obs("hand_shown", "W", *LOSERS["W"]), now + 1_000).accepted
    again = table.observe(obs("hand_shown", "W", *reversed(LOSERS["W"])), now + 2_000)
    assert again.accepted and again.records == []
    winner_again = table.observe(obs("hand_shown", "S", *WINNING_14), now + 3_000)
    assert winner_again.accepted and winner_again.records == []
    other = table.observe(obs("hand_shown", "W", *LOSERS["N"]), now + 4_000)
    assert not other.accepted and other.asked is not None and "shown as" in other.error
    assert table.hand_no == 1 and table.showing_hands() == {"N": 13, "E": 13}


def test_a_discard_the_camera_cannot_read_is_asked_for_and_corrected(tmp_path: Path) -> None:
    # vision/observe.py reports a tile settled in the discard area and never named as a
    # discard with no tile: the table asks for it rather than wait for one it never hears of.
    table = _table(tmp_path)
    now = _to_first_discard(table)
    table.tick(now + WINDOW_US + 1)
    table.observe(obs("draw", "S"), now + WINDOW_US + 2)
    unread = obs("discard", "S", conf=0.0, zone="discards")
    outcome = table.observe(unread, now + WINDOW_US + 3)
    assert not outcome.accepted and outcome.asked == 1
    assert "could not read its tiles" in outcome.error
    assert table.pending[1]["tiles"] == [] and table.pending[1]["seat"] == "S"
    assert table.lights.last().pattern.show is Show.ASK  # type: ignore[union-attr]
    result = table.command("correct", b'{"pending": 1, "tiles": ["3B"]}', now + WINDOW_US + 4)
    assert result["ok"] is True
    assert public_view(table.state)["seats"]["S"]["discards"] == ["3B"]  # type: ignore[arg-type]


def test_a_press_made_in_the_pause_counts_though_it_arrives_after_it(tmp_path: Path) -> None:
    """Presses are judged on table time: a call made a millisecond before the pause ended,
    delayed on the serial link, wins the discard. Classical closes a window without calls on
    the pause, so a window closed at the pause itself would have refused it."""
    table = _table(tmp_path, "classical")
    now = _to_first_discard(table)
    assert table.tick(now + PAUSE_US + 1) == []  # the pause is over; the press is on its way
    late = table.press(Press("S", "pung", now + PAUSE_US - 1_000), now + PAUSE_US + 50_000)
    assert late.accepted, late.error
    table.tick(now + WINDOW_US)
    decision = _decision(table)
    assert (decision["winner"], decision["kind"]) == ("S", "pung")


def test_a_press_made_after_the_pause_finds_the_window_closed(tmp_path: Path) -> None:
    """A press made after the pause, arriving before the loop's tick closed the window, is
    judged after the window closed: Classical refuses it (the discard was not claimed)."""
    table = _table(tmp_path, "classical")
    now = _to_first_discard(table)
    late = table.press(Press("S", "pung", now + PAUSE_US + 1_000), now + PAUSE_US + 2_000)
    assert not late.accepted
    assert table.window.deadline_us is None
    assert not [e for e in table.store.events() if e["type"] == "ClaimMade"]
    assert table.lights.last(Show.CLAIM_REFUSED).pattern.seat == "S"  # type: ignore[union-attr]


def test_a_press_the_board_kept_over_a_restart_joins_the_window_open_at_the_crash(
    tmp_path: Path,
) -> None:
    """A window open at a crash comes back open with its deadline (the discard's logged
    time and the pause), held until the board's presses are taken. Two presses the board
    held for it, made in the pause and delivered 10 s later, are both its calls: Classical's
    pung beats the chow, as without the crash; a third, made after the pause, is judged
    after the window closed (refused: the discard was claimed)."""
    table = _table(tmp_path, "classical")
    now = _to_first_discard(table)
    again = _table(tmp_path, "classical")
    assert again.window.deadline_us == now + PAUSE_US and again.window.held
    later = now + 10_000_000  # the Pi's clock after the restart
    assert again.tick(later) == []  # held: the board's presses are on their way
    assert again.press(Press("S", "chow", now + 20_000), later).accepted
    assert again.tick(later + 1) == []
    assert again.press(Press("N", "pung", now + 60_000), later + 2).accepted
    late = again.press(Press("W", "pung", now + PAUSE_US + 5_000), later + 3)
    assert not late.accepted
    assert (_decision(again)["winner"], _decision(again)["kind"]) == ("N", "pung")


def test_the_move_list_names_each_move_as_a_correction_takes_it(tmp_path: Path) -> None:
    table = _table(tmp_path)
    now = _to_first_discard(table)  # E discarded 5C ... but it was 6C
    listed = table.command("moves", b"{}", now + 1)
    assert listed["ok"] and listed["hand"] == 1
    (discard,) = [m for m in listed["moves"] if m["type"] == "Discard"]
    assert discard["command"] == {"type": "Discard", "seat": "E", "tile": "5C"}
    body = {"at": discard["at"], "command": {**discard["command"], "tile": "6C"},
            "reason": "misread", "was": discard["command"]}
    assert table.command("correct", json.dumps(body).encode(), now + 2)["ok"]
    assert public_view(table.state)["seats"]["E"]["discards"] == ["6C"]  # type: ignore[arg-type]
    # the same pick sent again (a second referee, a stale list): refused, nothing changed
    before = table.store.last_seq()
    stale = table.command("correct", json.dumps({**body, "command": {
        **discard["command"], "tile": "7C"}}).encode(), now + 3)
    assert stale["ok"] is False and stale["where"] == "was" and "6C" in stale["error"]
    assert table.store.last_seq() == before
    assert public_view(table.state)["seats"]["E"]["discards"] == ["6C"]  # type: ignore[arg-type]
