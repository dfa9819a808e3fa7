"""`mjtable simulate --camera`: the simulated table seen through vision's real pipeline.

The bots' table is rendered from real tile artwork (``vision.synth.render``) as play goes on
(``controller.scene``); the service's camera loop scans those frames and its watcher reports
discards, sets, flowers, added kongs, dice and the hand shown at Mah-jongg exactly as on a
real table. Like a real table, the rendered one has its own tile set enrolled first
(``vision.synth.table_enrol``: a few crops of each kind cut from rendered frames, enrolled as
``mjtable vision enroll`` does, cached on disk), so the camera knows the art it sees rather
than abstaining on it. What a camera cannot see (a tile drawn from the wall, the deal, a
concealed kong, the American votes and courtesy pass agreed aloud) still comes straight
from the game. Both families are followed: the classical mirror and the American one (its
Charleston passes laid face down before their passers and counted, exposures with Jokers,
Joker exchanges and the hand shown for Mah Jongg). The winner lays the hand
out in front of its sets, the tile drawn last turned sideways at its end
(``controller.scene.lay_hand_shown``), and then each of the others lays out his (Law 82;
the American winner alone shows, M-1).

A simulated referee who knows the truth keeps the record right, as a referee at a real table
would: a held observation is corrected (or dismissed if it saw something that did not
happen), a misread discard the engine accepted is amended through the engine's ``Correct``,
and what the camera never names (it abstains on a tile) is entered with ``cmd/observe``.
Every such intervention is counted in the summary; none is a violation.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field, replace
from typing import Any

from controller.camera import CameraLoop
from controller.inbox import CommandIn
from controller.scene import lay_hand_shown, lay_pass, reaching_hand, table_layout
from controller.service import Service
from engine.rulesets import entry
from engine.seats import Seat
from vision.observation import Observation, ObservationKind

GameState = Any  # a hand of the table's family: the world's, or the table's mirror of it

ART = "kde-traditional"  # held out of the network's training: a set it has never seen
PATIENCE_S = 4.0  # how long the referee lets the camera try before stepping in
# After every other discard the next player's hand reaches over the table for the wall and
# stays this many frames (about 1.5 s at the service's 5 frames a second): the camera must
# see the discard meanwhile, as the call window waits for it.
REACH_FRAMES = 8


@dataclass
class Interventions:
    entered_kinds: dict[str, int] = field(default_factory=dict)  # what the referee entered
    corrected: int = 0
    dismissed: int = 0
    amended: int = 0
    unresolved: list[str] = field(default_factory=list)

    @property
    def entered(self) -> int:
        return sum(self.entered_kinds.values())


class RenderedCamera:
    """The rendered table and the service's camera loop reading it."""

    def __init__(self, service: Service, seed: int, enrol: bool = True) -> None:
        import numpy as np

        from vision.geometry import TableGeometry
        from vision.synth.render import Style
        from vision.synth.source import RenderedSource

        self.service = service
        self.seed = seed
        self.enrol = enrol
        self.geometry = TableGeometry()
        self.style = Style.random(np.random.default_rng(seed), ART)
        self.layout = table_layout({}, (), self.geometry)
        # The rendered camera gives the frame the table's configuration asks of a camera.
        size = self.size = (service.cfg.camera.width, service.cfg.camera.height)
        self.loop = CameraLoop(
            f"render:{seed}",
            service,
            fps=30,
            set_size=_set_size(service),
            open_source=lambda spec: RenderedSource(seed, self._scene, size),
            showing=lambda: service.table.showing_hands(),
            passing=lambda: service.table.passing(),
        )
        self.fixes = Interventions()
        # Hands shown that the camera read (none entered or corrected by the referee): the
        # winner's, by how the winning tile came (drawn: laid sideways; claimed), and the
        # others' after it (Law 82).
        self.hands_read = {"drawn": 0, "claimed": 0, "others": 0}
        # The hands laid out this hand, each with the tile laid sideways ("" for none): they
        # stay on the table until it is cleared.
        self.hands: list[tuple[Observation, str]] = []
        # American Charleston passes lying face down before their passers, by seat, until
        # the stage is done and each player takes up what came to him.
        self.passes: dict[str, int] = {}
        self.passes_laid = 0  # this hand's, so far
        # Discards made while the next player reached over the table, and how many of them
        # the table had before the hand was withdrawn.
        self.reaches = {"discards": 0, "seen_with_the_hand_there": 0}
        self._reach_rng = np.random.default_rng(seed + 1)

    def _scene(self) -> Any:
        return self.layout, self.style, self.geometry

    def enrolled_model(self) -> str:
        """The model directory of this table's own set, enrolled once (cached on disk)."""
        import numpy as np

        from vision.synth.render import CameraPose
        from vision.synth.table_enrol import enrol_rendered_table

        # The pose RenderedSource(seed) draws first: the enrolment photos come from the
        # table's own camera, as on a real table.
        pose = CameraPose.overhead(np.random.default_rng(self.seed), *self.size)
        return str(enrol_rendered_table(ART, self.style, pose, self.seed))

    async def start(self) -> None:
        if self.enrol:
            self.loop.model_dir = await asyncio.to_thread(self.enrolled_model)
        self.loop.start()
        await self.frames(2, timeout=120)

    def stop(self) -> None:
        self.loop.stop()

    async def frames(self, n: int, timeout: float = 60) -> None:
        """Wait until the camera has scanned ``n`` more frames of the current scene."""
        target = self.loop.frames + n
        deadline = time.monotonic() + timeout
        while self.loop.frames < target and time.monotonic() < deadline:
            await asyncio.sleep(0.02)

    def show(
        self,
        world: GameState,
        dice: tuple[int, ...] = (),
        hand: Observation | None = None,
        drawn: bool = False,
    ) -> None:
        """Lay the table out as ``world`` shows it, with the hands shown this hand and
        ``hand`` (``drawn``: won on a draw, so its tile drawn last is laid sideways)."""
        if hand is not None and hand.seat is not None and hand.tiles:
            # The tile drawn last is laid apart (Law 80); a claimed one is known to the table.
            winning = hand.winning if drawn and hand.winning in hand.tiles else ""
            self.hands.append((hand, winning))
        layout = table_layout(self.service.table.view_of(world), dice, self.geometry,
                              _set_size(self.service))
        for shown, winning in self.hands:
            assert shown.seat is not None
            lay_hand_shown(layout, shown.seat, shown.tiles, winning, self.geometry)
        for seat, count in self.passes.items():
            lay_pass(layout, seat, count, self.geometry)
        self.layout = layout

    def _drawn(self) -> bool:
        """Whether a hand shown now is won on a draw: the table is in its turn's play."""
        return self.service.table.won_on_draw_now()

    async def clear(self) -> None:
        """An empty table, long enough for the watcher to forget what was on it."""
        self.hands = []
        self.passes = {}
        self.passes_laid = 0
        self.layout = table_layout({}, (), self.geometry)
        await self.frames(self.loop.stable_frames + 1)

    async def see(self, step: Observation, world: GameState, timeout: float = 60) -> None:
        """Show the table after ``step`` and wait until the service has it right."""
        table = self.service.table
        hand_no = table.hand_no
        if step.kind is ObservationKind.DICE:
            await self.clear_dice(world)
        shown = step if step.kind is ObservationKind.HAND_SHOWN else None
        if step.kind is ObservationKind.PASS and step.seat is not None:
            self.passes[step.seat] = step.count
            self.passes_laid += 1
        drawn = self._drawn()
        ended = table.state is not None and table.state.phase == "ended"
        self.show(world, step.dice if step.kind is ObservationKind.DICE else (), shown, drawn)
        reach_until = self._reach(step, world)
        started = time.monotonic()
        amended = entered = False
        corrected = self.fixes.corrected
        while time.monotonic() - started < timeout:
            await asyncio.sleep(0.05)
            if reach_until is not None and self.loop.frames >= reach_until:
                self.layout = replace(self.layout, hand=None)  # the tile drawn
                reach_until = None
            if self._agrees(step, world, hand_no):
                if reach_until is not None:
                    self.reaches["seen_with_the_hand_there"] += 1
                if shown is not None and not entered and self.fixes.corrected == corrected:
                    self.hands_read["others" if ended else "drawn" if drawn else "claimed"] += 1
                for pid in sorted(table.pending):  # seen twice, or seen what did not happen
                    await self._dismiss(pid)
                if self.passes and not table.passes_waiting():
                    # The pass is done: each player takes up the tiles passed to him, and
                    # the camera sees the discard areas empty before the next pass is laid.
                    self.passes = {}
                    self.show(world)
                    await self.frames(self.loop.stable_frames + 1)
                return
            for pid in sorted(table.pending):
                await self._settle(pid, step)
            waited = time.monotonic() - started
            if not amended and waited > PATIENCE_S:
                amended = await self._amend(step, world)
            if not entered and waited > 2 * PATIENCE_S and not table.pending:
                # The camera will not name it (it abstains on that tile): the referee enters
                # what happened, as at a real table.
                entered = True
                kind = str(step.kind)
                self.fixes.entered_kinds[kind] = self.fixes.entered_kinds.get(kind, 0) + 1
                body = {**step.to_json(), "source": "referee"}
                await self.service.submit(CommandIn("observe", json.dumps(body).encode()))
        self.fixes.unresolved.append(f"camera never showed {step.to_json()}")

    def _reach(self, step: Observation, world: GameState) -> int | None:
        """After every other discard (by a seeded draw), the next player's hand over the
        table, reaching for the wall: the frame count at which it is withdrawn."""
        if step.kind is not ObservationKind.DISCARD or step.seat is None:
            return None
        if self._reach_rng.random() >= 0.5:
            return None
        seat = self.service.table.next_in_turn(world, Seat[step.seat]).name
        along = float(self._reach_rng.uniform(-150, 150))
        self.layout = replace(self.layout, hand=reaching_hand(seat, along, self.geometry))
        self.reaches["discards"] += 1
        return self.loop.frames + REACH_FRAMES

    async def clear_dice(self, world: GameState) -> None:
        self.show(world, ())
        await self.frames(self.loop.stable_frames + 1)

    def _agrees(self, step: Observation, world: GameState, hand_no: int) -> bool:
        if step.kind is ObservationKind.HAND_SHOWN:
            # The winner's ends the hand, the others' (Law 82) are recorded, the last of them
            # scores it and the next hand opens; the simulation compares the finished mirror
            # with the game afterwards.
            table = self.service.table
            return table.hand_no > hand_no or (
                step.seat is not None and table.hand_shown_taken(step.seat))
        table = self.service.table
        mirror = table.state
        if mirror is None:
            return False
        if step.kind is ObservationKind.DICE:
            throws = table.throws_seen(mirror)
            return throws is not None and throws == table.throws_seen(world)
        if step.kind is ObservationKind.PASS:
            # The world has played the whole pass already: count the passes the mirror took.
            return table.passes_taken() == self.passes_laid
        return bool(table.view_of(mirror)["seats"] == table.view_of(world)["seats"])

    async def _settle(self, pid: int, truth: Observation) -> None:
        """The table asks about ``pid``: correct it to the truth if it is this step, else (or
        if the correction is refused) dismiss it."""
        held = self.service.table.pending.get(pid, {})
        same = held.get("kind") == str(truth.kind) and (
            held.get("seat") in (None, truth.seat) or truth.kind is ObservationKind.DICE
        )
        if same:
            body: dict[str, Any] = {"pending": pid, "seat": truth.seat, "tiles": [*truth.tiles]}
            if truth.dice:
                body["dice"] = [*truth.dice]
            if truth.winning:
                body["winning"] = truth.winning
            if truth.kind is ObservationKind.PASS:
                body.update(count=truth.count, zone=truth.zone)
            result = await self.service.submit(CommandIn("correct", json.dumps(body).encode()))
            if result.get("ok"):
                self.fixes.corrected += 1
                return
        await self._dismiss(pid)

    async def _dismiss(self, pid: int) -> None:
        self.fixes.dismissed += 1
        body = json.dumps({"pending": pid}).encode()
        await self.service.submit(CommandIn("dismiss", body))

    async def _amend(self, truth: Observation, world: GameState) -> bool:
        """A misread discard the engine accepted: the referee puts the right tile in."""
        table = self.service.table
        mirror = table.state
        if mirror is None or truth.kind is not ObservationKind.DISCARD or truth.seat is None:
            return True
        ours = table.view_of(mirror)["seats"][truth.seat]["discards"]
        real = table.view_of(world)["seats"][truth.seat]["discards"]
        if len(ours) != len(real) or ours == real:
            return False  # not applied yet (or not a misread): nothing to amend
        body = table.amendment(truth.seat, truth.tiles[0])
        if body is None:
            return True
        result = await self.service.submit(CommandIn("correct", json.dumps(body).encode()))
        if result.get("ok"):
            self.fixes.amended += 1
        return True


def summary(camera: RenderedCamera) -> dict[str, Any]:
    fixes = camera.fixes
    return {
        "frames": camera.loop.frames,
        "observations": camera.loop.observations,
        "referee_entered": fixes.entered,
        "referee_entered_kinds": dict(fixes.entered_kinds),
        "referee_corrected": fixes.corrected,
        "referee_dismissed": fixes.dismissed,
        "referee_amended": fixes.amended,
        "hands_read": dict(camera.hands_read),
        "hand_over_the_table": dict(camera.reaches),
    }


def _set_size(service: Service) -> int:
    """Tiles in the set in play (the watcher's fifth-copy check; American flowers)."""
    return entry(service.table.settings.ruleset).tiles
