"""Games at a table: a fold of the event log into games of whole hands.

The log is the one source of truth. A game is opened by a ``GameStarted`` event (``cmd/game``,
the players as drawn at the table, in the first hand's seat order E, S, W, N), takes every
``HandScored`` after it, and ends when its book says (the engine's game record,
:mod:`engine.scoring.sheet`) or at a ``GameEnded`` event (the players stop early). A hand
scored with no game open opens one by itself, with the players as the table seats them, so a
table that was never told about games still keeps them; a table restarted mid-game folds the
same log and goes on with the same game.

Every hand keeps the scorer's whole result, its seats named by player (:func:`name_seats`):
the arrangement, each item with its rule, the payments, why a hand was void.

A false Mah-jongg found by scoring is booked only once the referee confirms it
(controller/penalties.py): until then its hand stands in the game with nothing paid and its
``penalty`` pending; a ``PenaltySettled`` books it (confirmed) or leaves it unpaid
(dismissed), and the game is folded again from its hands. East's passing after a false call
follows the book whatever the answer (Code 1924, Law 94), so an answer changes money, never
who sits where.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from controller.penalties import PENALTY_SETTLED, false_call
from engine.errors import MalformedInput
from engine.scoring.sheet import Scoresheet, default_players, outcome_of
from engine.seats import parse_seat

GAME_STARTED = "GameStarted"
GAME_ENDED = "GameEnded"
SCORED = "HandScored"
GAME_EVENTS = frozenset({GAME_STARTED, GAME_ENDED})
# the events a game is made of
FOLDED = ("HandStarted", GAME_STARTED, GAME_ENDED, SCORED, PENALTY_SETTLED)
SEAT_ORDER = ("E", "S", "W", "N")
NAME_MAX = 40

log = logging.getLogger("mjtable.games")


class GameCommandError(ValueError):
    """A ``cmd/game`` the table refuses; ``where`` names the field."""

    def __init__(self, where: str, message: str) -> None:
        self.where = where
        super().__init__(message)


@dataclass
class Game:
    id: int
    ruleset: str
    sheet: Scoresheet
    started_seq: int
    hands: list[dict[str, Any]] = field(default_factory=list)
    hands_per_game: int | None = None
    # What the game is folded from again when a penalty is answered: each HandScored with
    # the prevailing wind it was played in, the answers so far, and an early end's reason.
    scored: list[tuple[Mapping[str, Any], str | None]] = field(default_factory=list)
    answers: dict[int, str] = field(default_factory=dict)
    ended: str | None = None

    @property
    def players(self) -> list[str]:
        return list(self.sheet.players)

    def questions(self) -> list[int]:
        """The penalties of this game still awaiting the referee."""
        return [h["penalty"]["id"] for h in self.hands
                if h.get("penalty") and h["penalty"]["status"] == "pending"]

    def export(self) -> dict[str, Any]:
        """The game as `mjtable export` prints it (docs/mqtt.md, Games)."""
        return {
            "id": self.id,
            "ruleset": self.ruleset,
            "players": self.players,
            "hands": self.hands,
            "totals": dict(self.sheet.totals),
            "final": self.sheet.final(),
        }

    def view(self) -> dict[str, Any]:
        """The game on the retained ``scores`` topic: the export, and where it stands."""
        out = self.export()
        out["next"] = self.sheet.to_json()["next"]
        out["rules"] = self.sheet.to_json()["rules"]
        out["questions"] = self.questions()
        return out


def name_seats(value: Any, seats: Mapping[str, str]) -> Any:
    """A scoring result with its seats named by player: keys that are seat letters, and the
    ``from``/``to``/``winner``/``seat`` fields that hold one."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            named_key = seats.get(key, key) if key in SEAT_ORDER else key
            if key in ("from", "to", "winner", "seat", "discarder") and isinstance(item, str):
                out[named_key] = seats.get(item, item)
            else:
                out[named_key] = name_seats(item, seats)
        return out
    if isinstance(value, list):
        return [name_seats(item, seats) for item in value]
    return value


def check_players(raw: Any, count: int) -> list[str]:
    """The players of a ``cmd/game`` as drawn at the table, in seat order E, S, W, N."""
    if not isinstance(raw, list) or len(raw) != count:
        raise GameCommandError("players", f"name the {count} players in seat order E, S, W, N")
    names = []
    for i, name in enumerate(raw):
        if not isinstance(name, str) or not name.strip() or len(name.strip()) > NAME_MAX:
            raise GameCommandError(f"players[{i}]", f"a name of 1-{NAME_MAX} characters")
        name = " ".join(name.split())
        if name.upper() in SEAT_ORDER:
            raise GameCommandError(f"players[{i}]", f"{name!r} is a seat letter: name the "
                                   "player (the seats move round the players)")
        names.append(name)
    if len(set(names)) != len(names):
        raise GameCommandError("players", "each player has a name of his own")
    return names


class GameBook:
    """The games of one table, folded from its log. ``keep`` all games (the export) or only
    the one in play (the table)."""

    def __init__(self, ruleset: str, hands_per_game: int | None = None,
                 keep_all: bool = False) -> None:
        self.ruleset = ruleset
        self.hands_per_game = hands_per_game
        self.keep_all = keep_all
        self.games: list[Game] = []
        self.count = 0
        self.prevailing: str | None = None  # of the hand in play, as its HandStarted says
        self.last_seq = 0  # the last event folded: a record at or before it is not folded again

    def load(self, records: Iterable[Mapping[str, Any]]) -> GameBook:
        """Fold the game events of a whole log (a table starting up: its snapshot does not
        hold the games)."""
        for record in records:
            self.fold(record)
        return self
    @property
    def current(self) -> Game | None:
        return self.games[-1] if self.games else None

    def _open(self, ruleset: str, players: list[str], seq: int,
              hands: int | None = None) -> Game:
        self.count += 1
        per_game = hands or self.hands_per_game
        sheet = Scoresheet(ruleset, players, hands_per_game=per_game)
        game = Game(self.count, ruleset, sheet, seq, hands_per_game=per_game)
        if not self.keep_all:  # the one in play, and any still awaiting a referee's answer
            self.games = [g for g in self.games if g.questions()]
        self.games.append(game)
        return game

    # -- the fold ----------------------------------------------------------------------------

    def fold(self, record: Mapping[str, Any]) -> None:
        kind = record.get("type")
        if kind not in FOLDED:
            return
        seq = int(record.get("seq") or 0)
        if seq and seq <= self.last_seq:
            return
        self.last_seq = max(self.last_seq, seq)
        if kind == "HandStarted":
            public = record.get("public")
            self.prevailing = record.get("prevailing")
            ruleset = record.get("ruleset") or (public or {}).get("ruleset")
            if isinstance(ruleset, str) and not self.games:
                self.ruleset = ruleset
        elif kind == GAME_STARTED:
            self._open(str(record.get("ruleset") or self.ruleset), list(record["players"]),
                       int(record["seq"]), record.get("hands"))
        elif kind == GAME_ENDED:
            game = self.current
            if game is not None and game.id == record.get("game"):
                game.ended = str(record.get("reason") or "ended at the table")
                game.sheet.end(game.ended)
        elif kind == SCORED:
            self._book(record)
        elif kind == PENALTY_SETTLED:
            self._answer(int(record["id"]), str(record.get("how")))

    def _book(self, record: Mapping[str, Any]) -> None:
        seats = {str(k): legacy_name(str(v)) for k, v in (record.get("players") or {}).items()}
        game = self.current
        if game is None or game.sheet.over or not set(seats.values()) <= set(game.players):
            ordered = [seats[s] for s in SEAT_ORDER if s in seats]
            try:
                game = self._open(self.ruleset, ordered, int(record["seq"]))
            except MalformedInput as exc:  # an old log seated players by seat letter
                log.warning("hand %s: no game opened: %s", record.get("hand"), exc)
                return
        game.scored.append((record, self.prevailing))
        self._book_into(game, record, seats, self.prevailing)

    def _book_into(self, game: Game, record: Mapping[str, Any], seats: Mapping[str, str],
                   prevailing: str | None) -> None:
        score = record.get("score") if isinstance(record.get("score"), dict) else None
        raw_net = record.get("net")
        net: dict[str, Any] = raw_net if isinstance(raw_net, dict) else {}
        result: dict[str, Any] = {"net": net, "winner": record.get("winner"),
                                  "result": record.get("result")}
        if score is not None and "mahjong" in score:
            result["mahjong"] = score["mahjong"]
        outcome = outcome_of(result)
        held = record.get("held")
        penalty: dict[str, Any] | None = None
        east_stays = None
        if isinstance(held, int) and false_call(score) is not None:
            status = game.answers.get(held, "pending")
            winner = record.get("winner")
            # the book's word on East after a false call, whatever the referee answers
            east_stays = game.sheet.east_stays(
                outcome, parse_seat(winner, "winner") if winner else None, net)
            penalty = {"id": held, "status": status,
                       "seat": seats.get(str(winner), winner),
                       "net": {seats.get(k, k): v for k, v in net.items()}}
            if status != "confirmed":  # nothing paid until the referee confirms it
                result["net"] = {k: 0 for k in net}
                result["mahjong"] = {k: v for k, v in result["mahjong"].items()
                                     if k != "confirm"}
        # a penalty held is booked once confirmed; one from a log written before the
        # table asked (no ``held``) was booked by the table as its word
        row = game.sheet.record(result, east_stays=east_stays, outcome=outcome, seats=seats,
                                prevailing=prevailing, confirmed=True)
        hand: dict[str, Any] = {
            "hand": row.hand,
            "table_hand": record.get("hand"),
            "seq": record.get("seq"),  # its HandScored, kept when an answer folds the game again
            "winner": row.winner,
            "outcome": row.outcome,
            "prevailing": row.prevailing,
            "seats": row.seats,
            "net": row.net,
            "totals": row.totals,
            "rule": record.get("rule"),
            "score": name_seats(score, seats) if score is not None else None,
        }
        if "error" in record:
            hand["error"] = record["error"]
        if penalty is not None:
            hand["penalty"] = penalty
        game.hands.append(hand)

    def _answer(self, pid: int, how: str) -> None:
        """The referee's answer to a held penalty: its game folded again from its hands."""
        game = next((g for g in self.games if pid in g.questions()), None)
        if game is None:
            return
        game.answers[pid] = how
        game.sheet = Scoresheet(game.ruleset, game.players, hands_per_game=game.hands_per_game)
        game.hands = []
        for record, prevailing in game.scored:
            seats = {str(k): legacy_name(str(v))
                     for k, v in (record.get("players") or {}).items()}
            self._book_into(game, record, seats, prevailing)
        if game.ended is not None:
            game.sheet.end(game.ended)

    # -- cmd/game ----------------------------------------------------------------------------

    def command(self, body: Mapping[str, Any], seats_in_play: int,
                hand_in_play: bool) -> dict[str, Any]:
        """The event body of a ``cmd/game``: ``{"action": "start", "players": [...]}``,
        ``{"action": "seat", "players": [...]}`` or ``{"action": "end", "reason": "..."}``.
        ``hand_in_play``: a hand has moves beyond its deal, so it belongs to the game going
        on."""
        action = body.get("action")
        game = self.current
        going_on = game is not None and not game.sheet.over
        if action in ("start", "seat"):
            players = check_players(body.get("players"), seats_in_play)
            hands = body.get("hands")
            if hands is not None and (not isinstance(hands, int) or not 1 <= hands <= 400):
                raise GameCommandError("hands", "1-400 hands make a game")
            if action == "seat" and not going_on:
                raise GameCommandError("action", "no game is going on: start one")
            if going_on and game is not None and game.hands:
                raise GameCommandError(
                    "action", f"game {game.id} is going on ({len(game.hands)} hands): players "
                    "keep their chairs through a game (Code 1924, Law 95); end it first")
            if hand_in_play:
                raise GameCommandError("action", "a hand is in play: seat the players "
                                       "between hands")
            out: dict[str, Any] = {"type": GAME_STARTED, "game": self.count + 1,
                                   "ruleset": self.ruleset, "players": players}
            if hands is not None:
                out["hands"] = hands
            return out
        if action == "end":
            reason = body.get("reason")
            if not isinstance(reason, str) or not reason.strip():
                raise GameCommandError("reason", "ending a game names its reason")
            if not going_on or game is None:
                raise GameCommandError("action", "no game is going on")
            return {"type": GAME_ENDED, "game": game.id, "reason": reason.strip()}
        raise GameCommandError("action", "one of start, seat, end")

    def view(self) -> dict[str, Any] | None:
        return None if self.current is None else self.current.view()

    def next_prevailing(self, first: str | None) -> str | None:
        """The prevailing wind of the next hand: the game's, or a new game's ``first``."""
        game = self.current
        if game is None or game.sheet.over or game.sheet.match.prevailing is None:
            return first if game is None or game.sheet.rules.prevailing_wind else None
        return game.sheet.match.prevailing.name


def legacy_name(name: str) -> str:
    """A log written before players had names of their own named each by the seat of the
    first hand: the same person under a default name."""
    return default_players(4)[SEAT_ORDER.index(name)] if name in SEAT_ORDER else name


def seated(players: list[str]) -> dict[str, str]:
    """Seat letter -> player for a game's first hand (four seats)."""
    return dict(zip(SEAT_ORDER, players, strict=False))


def table_defaults(configured: Mapping[str, str]) -> dict[str, str]:
    """The players a table seats before it is told: the config's, else default names."""
    names = default_players(4)
    return {s: configured.get(s) or names[i] for i, s in enumerate(SEAT_ORDER)}


def export_games(records: Iterable[Mapping[str, Any]], ruleset: str = "code1924/mixed",
                 hands_per_game: int | None = None) -> list[dict[str, Any]]:
    """Every game of a log, as `mjtable export` prints them."""
    book = GameBook(ruleset, hands_per_game, keep_all=True)
    for record in records:
        book.fold(record)
    return [game.export() for game in book.games]
