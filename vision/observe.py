"""From scans to observations: what changed on the table, once it has held still.

A tile becomes *stable* when it has been seen at the same place (within ``match_mm``) with the
same identity in ``stable_frames`` consecutive scans; it is *gone* when missing for as many.
Newly stable face-up tiles are reported to the service as :class:`vision.observation.Observation`:

* in the discard area: a ``discard``, one per tile, by the seat whose side of the table it is on;
* on a seat's rack strip: a bonus tile alone is a ``flower``; three or four tiles laid together
  are an ``exposure``; the tiles a seat lays while it is *showing* its hand (told by the
  service, with how many tiles that hand holds: the winner's at Mah-jongg, then each of the
  others', Law 82), as many as that, or ten or more at any time, are a ``hand_shown``. Rack
  tiles are reported one frame after the last of them became stable, so a set laid tile by
  tile is reported whole;
* two dice with counted pips in the tray: ``dice`` (once per throw).

Law 80 has the tile drawn last stood on end, which shows the camera its edge, not its face: at a
camera table that tile is laid face up and turned sideways beside the hand instead, and is
reported as the hand's ``winning`` tile (docs/vision.md). One stood on end is never named: after
``hand_patience`` frames what was read of that hand is reported with confidence 0, and the
service asks the table for the hand.

A hand over the table (an obstruction) holds still what lies under it or within
``hidden_margin_mm`` of it (its shadow, fingers the finder cut off): nothing there is
confirmed or removed until it is gone. Play elsewhere goes on being seen: a discard landing
while another player reaches for the wall is reported as on a clear table, which is what the
call window waits for. While anything is over the table no tile is taken as gone, nor is a
tile new where one lay on the last clear view (the scans around a hand's arrival can cut and
name tiles across the table anew, and hold that reading while it stays); sets and hands laid
on the racks, and the dice, wait for a clear view (the hand may be laying them).

A watcher started on a table already in play (``known_at_start``: the service back after a
power cut, its record holding the hand so far) reports nothing of what its first clear view
holds: those tiles are adopted as known. A tile there that the recogniser names only later (it
abstained at first) is known too, not a discard landing then; a place stays known until a
clear view has shown it empty for ``stable_frames`` frames.

A tile that settles in the discard area and stays unnamed for ``discard_patience`` frames (the
recogniser abstains on it, or, but for American sets, reads it face down) is reported as a
``discard`` with no tile and confidence 0: the table asks for it, rather than wait unseen for
a discard it will never hear of. Named later, that tile is not reported again (the table's
answer stands).

On an American set (152 tiles) a natural that settles on a rack strip where a Joker of an
exposure lay, the Joker gone, is a ``joker_exchange`` (American J-4), zone ``rack-<owner>``:
the camera does not see whose it is, so its seat is None and the table takes the player
whose turn it is (exchanges are made on one's own turn, J-5).

During the American Charleston the table tells the watcher which seats still owe this
stage's pass (``passing``). A camera table asks each player to lay the pass face down in
front of himself, in his discard area, where the receiver takes it up: once such a group of
backs has held still (the view clear, none settling that frame) it is a ``pass`` of that
seat with ``count`` the backs counted. A count other than three (CH-2) carries confidence 0,
so the table asks rather than throw the hands in for a miscount (CH-7).

A fifth copy of a kind (more than the set holds) is not reported as seen: it goes to
``flags`` and its observation carries confidence 0, so the service asks the table instead of
accepting it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from engine.tiles import copies_in_set, is_bonus, parse_tile
from vision.observation import Observation, ObservationKind
from vision.scan import ScanResult, TileSeen

BONUS_PREFIXES = ("F", "S")


@dataclass
class _Track:
    tile: TileSeen
    seen: int = 1  # consecutive frames seen
    missed: int = 0
    stable: bool = False


@dataclass
class _Place:
    """A place whose tile is known: it lay there on the first clear view of a watcher
    started mid-play, or the table was asked for it as an unread discard."""

    x: float
    y: float
    empty: int = 0  # consecutive clear views without a tile here


@dataclass
class _JokerGone:
    """Where a settled Joker of ``owner``'s exposure went from, ``frames`` ago."""

    x: float
    y: float
    owner: str
    frames: int = 0


@dataclass
class TableWatcher:
    stable_frames: int = 3
    match_mm: float = 9.0
    set_size: int = 144  # tiles in the set in play (136, 144 or 152): the copies allowed
    tracks: list[_Track] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    # Rack tiles newly stable, held until a frame adds no more for that seat: a set is laid
    # one tile after another, and must be reported as one set.
    _pending: dict[str, list[TileSeen]] = field(default_factory=dict)
    # Frames a showing seat's hand may wait for a tile the recogniser has not named (a tile
    # stood on end as Law 80 has it is never named): then what was read goes to the table
    # with confidence 0, and the table asks for the hand (3 s at the service's 5 frames/s).
    hand_patience: int = 15
    # Around a hand over the table, what is seen is not trusted: its shadow darkens tiles,
    # and a finger over a tile may be cut off the hand's blob into a piece of its own.
    hidden_margin_mm: float = 40.0
    _showing: dict[str, int] = field(default_factory=dict)  # at the last update
    # Where every tile lay on the last view with nothing over the table.
    _clear_view: list[tuple[float, float]] = field(default_factory=list)
    _waited: dict[str, int] = field(default_factory=dict)
    _dice_reported: tuple[int, ...] = ()
    _dice_seen: list[tuple[int, ...]] = field(default_factory=list)
    # Whether the tiles on the first clear view are already known (module docstring).
    known_at_start: bool = False
    # Frames a discard may lie unnamed before the table is asked for it (2 s at the
    # service's 5 frames/s); tracks of such tiles, by place alone.
    discard_patience: int = 10
    _unnamed: list[_Track] = field(default_factory=list)
    # Where a Joker of an exposure lay until it went (American sets): a natural settling
    # there is an exchange (J-4). Kept as long as a hand may take to be read.
    _jokers_gone: list[_JokerGone] = field(default_factory=list)
    _known: list[_Place] = field(default_factory=list)
    _first_view_taken: bool = False
    # Seats whose Charleston pass (backs in their discard area) got a new tile this frame.
    _backs_settling: set[str] = field(default_factory=set)

    def update(
        self,
        scan: ScanResult,
        time_us: int = 0,
        showing: Mapping[str, int] | None = None,
        passing: Collection[str] = (),
    ) -> list[Observation]:
        """Feed one scan; returns the observations it confirms. ``showing``: the seats that
        may be laying their hands out now, and how many tiles each hand holds; ``passing``:
        the seats that owe a Charleston pass now (see the module's docstring)."""
        blocked = scan.obstructions

        def hidden(tile: TileSeen) -> bool:
            return any(o.covers(tile.x, tile.y, self.hidden_margin_mm) for o in blocked)

        unmatched = [t for t in scan.tiles if not hidden(t)]  # not trusted next to a hand
        if blocked:
            # Where a tile lay on the last clear view, what is seen now is that tile read or
            # cut again, not a new one: the scans around a hand's arrival name and cut anew
            # (a sideways 2C taken for a 3C, two touching tiles split elsewhere), and such a
            # reading holds for as long as the hand stays.
            unmatched = [t for t in unmatched if not self._seen_clear(t)]
        else:
            self._clear_view = [(t.x, t.y) for t in scan.tiles]
            self._look_at_known_places(scan.tiles)
        for track in self.tracks:
            if blocked and hidden(track.tile):
                continue  # under the hand: as it was until the hand is gone
            match = self._match(track.tile, unmatched)
            if match is None:
                # A tile the recogniser is unsure of in this frame is still there: an
                # abstention neither confirms nor denies it (a known tile is not reported
                # again later; a new one still needs ``stable_frames`` frames naming it).
                unsure = self._unsure_at(track.tile, unmatched)
                if unsure is not None:
                    unmatched.remove(unsure)
                    track.missed = 0
                    continue
            if match is None:
                track.missed += 0 if blocked else 1
                track.seen = 0
            else:
                unmatched.remove(match)
                track.tile = match
                track.seen += 1
                track.missed = 0
        self._note_jokers_gone([t for t in self.tracks if t.missed >= self.stable_frames])
        self.tracks = [t for t in self.tracks if t.missed < self.stable_frames]
        self.tracks += [_Track(t) for t in unmatched if t.tile is not None or t.face_down]
        unread = self._follow_unnamed(unmatched, hidden, bool(blocked))
        unread += self._face_down_discards()
        if self.known_at_start and not self._first_view_taken:
            if blocked:
                return []  # what is on the table is not known until it is seen whole
            self._first_view_taken = True
            self._known = [_Place(t.x, t.y) for t in scan.tiles]
        fresh = []
        self._backs_settling = set()
        for track in self.tracks:
            if not track.stable and track.seen >= self.stable_frames:
                track.stable = True
                if track.tile.tile is not None and not self._is_known(track.tile):
                    fresh.append(track.tile)
                elif _a_back_in_the_discards(track.tile):
                    self._backs_settling.add(_side_of(track.tile))
        observations = self._tile_observations(fresh, time_us, showing, bool(blocked))
        observations += [self._unread_discard(tile, time_us) for tile in unread]
        if passing and not blocked:
            observations += self._charleston_passes(passing, time_us)
        if not blocked:
            observations += self._dice_observation(scan, time_us)
        return observations

    def _follow_unnamed(
        self, unmatched: list[TileSeen], hidden: Callable[[TileSeen], bool], blocked: bool
    ) -> list[TileSeen]:
        """Follow the discard area's tiles that no track explains and the recogniser does
        not name, by place; returns those unnamed for ``discard_patience`` frames."""
        candidates = [
            t
            for t in unmatched
            if t.tile is None and not t.face_down and not t.blank and t.zone == "discards"
        ]
        for track in self._unnamed:
            if blocked and hidden(track.tile):
                continue
            here = self._match(track.tile, candidates)  # unnamed, face up, nearest
            if here is not None:
                candidates.remove(here)
                track.seen += 1
                track.missed = 0
            else:
                track.missed += 0 if blocked else 1
        self._unnamed += [_Track(c) for c in candidates]
        # Where a tile lay on the first clear view (taken after this frame's tracks, and
        # perhaps not yet), or one was asked for: known, not a discard waiting to be named.
        self._unnamed = [
            t for t in self._unnamed if t.missed < self.stable_frames and not self._is_known(t.tile)
        ]
        due = [t for t in self._unnamed if t.seen >= self.discard_patience]
        self._unnamed = [t for t in self._unnamed if t not in due]
        return [t.tile for t in due]

    def _face_down_discards(self) -> list[TileSeen]:
        """Tiles in the discard area read face down for ``discard_patience`` frames, where no
        game but the American (its Charleston passes lie face down) puts one: a discard read
        as a tile's back (a plain white dragon was), asked for like one not named."""
        if self.set_size == 152:
            return []
        return [
            t.tile
            for t in self.tracks
            if t.tile.face_down
            and t.tile.zone == "discards"
            and t.seen == self.discard_patience
            and not self._is_known(t.tile)
        ]

    def _charleston_passes(self, passing: Collection[str], time_us: int) -> list[Observation]:
        """A passing seat's backs, settled in its discard area and none settling this frame:
        its Charleston pass, counted (module docstring). Their places are known from then
        on, so the pass is reported once."""
        groups: dict[str, list[TileSeen]] = {}
        for track in self.tracks:
            tile = track.tile
            if _a_back_in_the_discards(tile) and not self._is_known(tile):
                groups.setdefault(_side_of(tile), []).append(tile)
                if not track.stable:
                    self._backs_settling.add(_side_of(tile))
        out = []
        for seat in sorted(groups.keys() & set(passing) - self._backs_settling):
            backs = groups[seat]
            self._known += [_Place(t.x, t.y) for t in backs]
            confidence = min(t.confidence for t in backs)
            if len(backs) != 3:
                self.flags.append(
                    f"{seat}'s Charleston pass: {len(backs)} tiles counted, not 3; the table "
                    "is asked"
                )
                confidence = 0.0
            out.append(
                Observation(
                    ObservationKind.PASS,
                    seat,
                    (),
                    confidence=confidence,
                    time_us=time_us,
                    zone="",
                    count=len(backs),
                )
            )
        return out

    def _unread_discard(self, tile: TileSeen, time_us: int) -> Observation:
        """A discard the recogniser cannot name: the table is asked which tile it is; the
        place is known from now on, so the tile named later is not a second discard."""
        self._known.append(_Place(tile.x, tile.y))
        seat = _side_of(tile)
        self.flags.append(
            f"a discard by {seat} at ({tile.x:.0f}, {tile.y:.0f}) mm is not read; the table is "
            "asked"
        )
        obs = self._observation(ObservationKind.DISCARD, seat, [tile], "discards", time_us)
        return replace(obs, confidence=0.0)

    def _note_jokers_gone(self, gone: list[_Track]) -> None:
        """Remember where a settled Joker on a rack strip went from (American sets); forget
        such places after ``hand_patience`` frames."""
        for joker in self._jokers_gone:
            joker.frames += 1
        self._jokers_gone = [j for j in self._jokers_gone if j.frames < self.hand_patience]
        if self.set_size != 152:
            return
        for track in gone:
            tile = track.tile
            if track.stable and tile.tile == "J" and tile.zone == "exposed" and tile.seat:
                self._jokers_gone.append(_JokerGone(tile.x, tile.y, tile.seat))

    def _joker_exchange(self, tile: TileSeen, time_us: int) -> Observation | None:
        """A natural settled where a Joker of an exposure went from: the exchange (J-4)."""
        if tile.tile in (None, "J") or tile.zone != "exposed":
            return None
        for joker in self._jokers_gone:
            if _near(tile, joker.x, joker.y, self.match_mm):
                self._jokers_gone.remove(joker)
                return self._observation(
                    ObservationKind.JOKER_EXCHANGE, None, [tile], f"rack-{joker.owner}", time_us
                )
        return None

    def _look_at_known_places(self, tiles: list[TileSeen]) -> None:
        """Forget a known place once clear views have shown it empty for as long as a tile
        takes to be gone: whatever lands there next is new."""
        if not self._known:
            return
        places = np.array([(p.x, p.y) for p in self._known])
        seen = np.array([(t.x, t.y) for t in tiles]).reshape(-1, 2)
        gaps = ((places[:, None, :] - seen[None, :, :]) ** 2).sum(axis=2)  # one row a place
        here = (gaps < self.match_mm**2).any(axis=1)
        for place, occupied in zip(self._known, here, strict=True):
            place.empty = 0 if occupied else place.empty + 1
        self._known = [p for p in self._known if p.empty < self.stable_frames]

    def _is_known(self, tile: TileSeen) -> bool:
        """Whether a tile lies at a known place (``_Place``)."""
        return any(_near(tile, p.x, p.y, self.match_mm) for p in self._known)

    def _seen_clear(self, tile: TileSeen) -> bool:
        """Whether a tile, named or not, lay at this place on the last clear view."""
        return any(_near(tile, x, y, self.match_mm) for x, y in self._clear_view)

    def _match(self, old: TileSeen, candidates: list[TileSeen]) -> TileSeen | None:
        best, best_d = None, self.match_mm
        for c in candidates:
            if c.tile != old.tile or c.face_down != old.face_down:
                continue
            d = ((c.x - old.x) ** 2 + (c.y - old.y) ** 2) ** 0.5
            if d < best_d:
                best, best_d = c, d
        return best

    def _unsure_at(self, old: TileSeen, candidates: list[TileSeen]) -> TileSeen | None:
        for c in candidates:
            near = _near(c, old.x, old.y, self.match_mm)
            if near and c.tile is None and c.face_down == old.face_down and not c.blank:
                return c
        return None

    def _token(self, token: str) -> str:
        """American sets (152 tiles) have eight interchangeable flowers, whatever is painted."""
        if self.set_size == 152 and is_bonus(parse_tile(token)):
            return "F"
        return token

    def visible_counts(self) -> Counter[str]:
        return Counter(self._token(t.tile.tile) for t in self.tracks if t.stable and t.tile.tile)

    def _copies_ok(self, token: str) -> bool:
        allowed = copies_in_set(parse_tile(token), self.set_size)
        return self.visible_counts()[token] <= allowed

    def _tile_observations(
        self,
        fresh: list[TileSeen],
        time_us: int,
        showing: Mapping[str, int] | None = None,
        blocked: bool = False,
    ) -> list[Observation]:
        out: list[Observation] = []
        grew: set[str] = set()
        for tile in fresh:
            exchange = self._joker_exchange(tile, time_us)
            if exchange is not None:
                out.append(exchange)
            elif tile.zone == "exposed" and tile.seat:
                self._pending.setdefault(tile.seat, []).append(tile)
                grew.add(tile.seat)
            elif tile.zone == "discards":
                out.append(
                    self._observation(
                        ObservationKind.DISCARD, _side_of(tile), [tile], "discards", time_us
                    )
                )
        showing = dict(showing or {})
        for seat in self._showing.keys() - showing.keys():
            # The table moved on (the hand was scored, or entered by the referee): what was
            # laid of that hand and never made a whole one is not a set.
            self._pending.pop(seat, None)
            self._waited.pop(seat, None)
        self._showing = showing
        for seat in grew:
            self._waited.pop(seat, None)
        if blocked:
            return out  # rack sets: the hand over the table may be laying more of them
        settled = [seat for seat in self._pending if seat not in grew]
        for seat in settled:
            unread = False
            expected = showing.get(seat)
            if expected is not None and not _may_settle(
                self._pending[seat], self.set_size, expected
            ):
                waited = self._waited[seat] = self._waited.get(seat, 0) + 1
                if waited < self.hand_patience:
                    continue  # a tile of the hand not named yet: wait for it
                unread = True
            self._waited.pop(seat, None)
            tiles = self._pending.pop(seat)
            bonus = _bonus_tiles(tiles, self.set_size)
            for t in bonus:
                out.append(
                    self._observation(ObservationKind.FLOWER, seat, [t], f"rack-{seat}", time_us)
                )
            # In the seat's reading order: along the rack to that player's right (East at
            # the bottom edge: +x for East, -y for South, -x for West, +y for North).
            rest = sorted((t for t in tiles if t not in bonus), key=lambda t: _along(seat, t))
            if unread:
                self.flags.append(
                    f"{seat} showed its hand, but {len(rest)} tiles were read, which no hand "
                    "holds: a tile is not read (stood on end, or unnamed); the table is asked"
                )
                out.append(replace(self._hand_shown(seat, rest, time_us), confidence=0.0))
                continue
            if _is_hand(rest, expected):
                out.append(self._hand_shown(seat, rest, time_us))
                continue
            for group in _groups(rest):
                out.append(
                    self._observation(
                        ObservationKind.EXPOSURE, seat, group, f"rack-{seat}", time_us
                    )
                )
        return out

    def _hand_shown(self, seat: str, tiles: list[TileSeen], time_us: int) -> Observation:
        """The hand laid out (``tiles`` in its owner's reading order); one tile lying
        sideways among upright ones is the tile drawn last (Law 80's tile stood on end,
        module docstring)."""
        sideways = [t for t in tiles if t.sideways]
        obs = self._observation(ObservationKind.HAND_SHOWN, seat, tiles, f"rack-{seat}", time_us)
        if len(sideways) == 1 and len(tiles) > 1 and sideways[0].tile:
            obs = replace(obs, winning=self._token(sideways[0].tile))
        return obs

    def _observation(
        self,
        kind: ObservationKind,
        seat: str | None,
        tiles: list[TileSeen],
        zone: str,
        time_us: int,
    ) -> Observation:
        tokens = tuple(self._token(t.tile) for t in tiles if t.tile)
        confidence = min(t.confidence for t in tiles)
        for token in tokens:
            if not self._copies_ok(token):
                self.flags.append(
                    f"more copies of {token} on the table than the set has "
                    f"({self.visible_counts()[token]}); not accepted"
                )
                confidence = 0.0
        return Observation(kind, seat, tokens, confidence=confidence, time_us=time_us, zone=zone)

    def _dice_observation(self, scan: ScanResult, time_us: int) -> list[Observation]:
        pips = tuple(sorted(d.pips for d in scan.dice if d.pips is not None and d.zone == "dice"))
        if len(pips) != 2 or len(scan.dice) != 2:
            self._dice_seen.clear()
            if not scan.dice:
                self._dice_reported = ()  # the dice were picked up: the next throw is new
            return []
        self._dice_seen.append(pips)
        recent = self._dice_seen[-self.stable_frames :]
        if len(recent) < self.stable_frames or len(set(recent)) != 1 or pips == self._dice_reported:
            return []
        self._dice_reported = pips
        confidence = min(d.confidence for d in scan.dice)
        return [
            Observation(
                ObservationKind.DICE,
                None,
                (),
                confidence=confidence,
                time_us=time_us,
                zone="dice",
                dice=pips,
            )
        ]


def _a_back_in_the_discards(tile: TileSeen) -> bool:
    return tile.face_down and tile.zone == "discards"


def _near(tile: TileSeen, x: float, y: float, mm: float) -> bool:
    """Whether a tile lies less than ``mm`` from (x, y)."""
    return (tile.x - x) ** 2 + (tile.y - y) ** 2 < mm**2


def _along(seat: str, tile: TileSeen) -> float:
    return {"E": tile.x, "S": -tile.y, "W": -tile.x, "N": tile.y}.get(seat, tile.x)


def _side_of(tile: TileSeen, size: float = 900.0) -> str:
    """The seat whose side of the table a point is on (East at the bottom edge)."""
    dx, dy = tile.x - size / 2, tile.y - size / 2
    if abs(dy) >= abs(dx):
        return "E" if dy > 0 else "W"
    return "S" if dx > 0 else "N"


def _is_hand(tiles: list[TileSeen], expected: int | None) -> bool:
    """Whether rack tiles laid at once (bonus tiles grounded beside them left out) are a hand
    shown: ten or more at any time; while their seat is showing its hand, as many as it
    holds."""
    return len(tiles) >= 10 or len(tiles) == expected


def _may_settle(tiles: list[TileSeen], set_size: int, expected: int) -> bool:
    """Whether the tiles a seat showing its hand has laid may be reported: as many as the
    hand holds, or one (a kong's fourth, or a flower, laid on its turn); otherwise a tile of
    the hand is still unnamed (the recogniser abstained on it so far)."""
    counted = len(tiles) - len(_bonus_tiles(tiles, set_size))
    return counted == expected or counted <= 1


def _bonus_tiles(tiles: list[TileSeen], set_size: int) -> list[TileSeen]:
    """The flowers and seasons among rack tiles: laid aside alone, not part of a set or a
    hand, except in American play (152 tiles), where flowers are played in sets."""
    if set_size == 152:
        return []
    return [t for t in tiles if t.tile and is_bonus(parse_tile(t.tile))]


def _groups(tiles: list[TileSeen], gap_mm: float = 40.0) -> list[list[TileSeen]]:
    """Tiles laid together: neighbours closer than ``gap_mm`` centre to centre."""
    groups: list[list[TileSeen]] = []
    for t in tiles:
        if (
            groups
            and ((t.x - groups[-1][-1].x) ** 2 + (t.y - groups[-1][-1].y) ** 2) ** 0.5 < gap_mm
        ):
            groups[-1].append(t)
        else:
            groups.append([t])
    return groups
