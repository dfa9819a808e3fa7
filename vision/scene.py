"""A table scene from the game's state, for the simulated camera.

``mjtable simulate`` knows what lies on the table (each seat's discards, its exposed sets and
flowers, the dice); :class:`TableScene` places those tiles where players put them — discards
in rows of six before their owner, exposures along the owner's rack with the claimed tile
turned sideways, flowers at the rack's end, the dice in the tray — and
:meth:`TableScene.source` turns it into a camera (`vision.capture.RenderedSource`) whose
frames go through the real pipeline. Placement is deterministic: the same state gives the
same layout, so a tile never jumps between frames.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vision.geometry import SEATS, TableGeometry
from vision.render import DiePlacement, Layout, Style, TilePlacement

_SEAT_ANGLE = {"E": 0.0, "S": 90.0, "W": 180.0, "N": 270.0}
# Per seat: the middle of its edge, the direction to its right, the direction inwards.
_FRAMES = {
    "E": ((0.5, 1.0), (1.0, 0.0), (0.0, -1.0)),
    "S": ((1.0, 0.5), (0.0, -1.0), (-1.0, 0.0)),
    "W": ((0.5, 0.0), (-1.0, 0.0), (0.0, 1.0)),
    "N": ((0.0, 0.5), (0.0, 1.0), (1.0, 0.0)),
}


@dataclass
class TableScene:
    art: str = "kde-traditional"
    seed: int = 0
    geometry: TableGeometry = field(default_factory=TableGeometry)
    discards: dict[str, list[str]] = field(default_factory=lambda: {s: [] for s in SEATS})
    exposed: dict[str, list[list[str]]] = field(default_factory=lambda: {s: [] for s in SEATS})
    flowers: dict[str, list[str]] = field(default_factory=lambda: {s: [] for s in SEATS})
    dice: tuple[int, ...] = ()
    _style: Style | None = None

    def update(
        self,
        discards: Mapping[str, Sequence[str]] | None = None,
        exposed: Mapping[str, Sequence[Sequence[str]]] | None = None,
        flowers: Mapping[str, Sequence[str]] | None = None,
        dice: Sequence[int] | None = None,
    ) -> None:
        """Replace any part of the state (tokens upper case, seats E S W N)."""
        if discards is not None:
            self.discards = {s: list(discards.get(s, ())) for s in SEATS}
        if exposed is not None:
            self.exposed = {s: [list(m) for m in exposed.get(s, ())] for s in SEATS}
        if flowers is not None:
            self.flowers = {s: list(flowers.get(s, ())) for s in SEATS}
        if dice is not None:
            self.dice = tuple(dice)

    def _point(self, seat: str, along: float, inward: float) -> tuple[float, float]:
        s = self.geometry.size_mm
        (ox, oy), (ax, ay), (ix, iy) = _FRAMES[seat]
        return (ox * s + ax * along + ix * inward, oy * s + ay * along + iy * inward)

    def layout(self) -> Layout:
        g = self.geometry
        tw, th = g.tile_w_mm, g.tile_h_mm
        layout = Layout()
        inner = 80.0 + 110.0
        for seat in SEATS:
            angle = _SEAT_ANGLE[seat]
            for k, token in enumerate(self.discards[seat]):
                row, col = divmod(k, 6)
                x, y = self._point(
                    seat, (col - 2.5) * (tw + 2), inner + 25 + row * (th + 4) + th / 2
                )
                layout.tiles.append(TilePlacement(token, x, y, angle))
            cursor = -g.size_mm / 2 + 100
            for meld in self.exposed[seat]:
                for j, token in enumerate(meld):
                    sideways = j == 1 and len(meld) == 3  # the claimed tile, turned
                    width = th if sideways else tw
                    cursor += width / 2
                    depth = 40.0 + ((th - tw) / 2 if sideways else 0.0)
                    x, y = self._point(seat, cursor, depth)
                    layout.tiles.append(TilePlacement(token, x, y, angle + (90 if sideways else 0)))
                    cursor += width / 2
                cursor += 12.0
            end = g.size_mm / 2 - 100
            for k, token in enumerate(self.flowers[seat]):
                x, y = self._point(seat, end - k * (tw + 2), 40.0)
                layout.tiles.append(TilePlacement(token, x, y, angle))
        c = g.size_mm / 2
        for i, value in enumerate(self.dice):
            layout.dice.append(DiePlacement(value, c - 25 + 50 * i, c + 5 * (i % 2), 15.0 * i))
        return layout

    def style(self) -> Style:
        if self._style is None:
            self._style = Style.random(np.random.default_rng(self.seed), self.art)
        return self._style

    def frame_parts(self) -> tuple[Layout, Style, TableGeometry]:
        return self.layout(), self.style(), self.geometry

    def source(self) -> Any:
        """A camera (``read()``/``close()``) that renders the current state on every read."""
        from vision.capture import RenderedSource

        return RenderedSource(self.seed, scene=self.frame_parts)
