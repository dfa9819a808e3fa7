"""A renderer of table photos with known ground truth.

It draws a table top-down in millimetres (felt, wooden border, printed corner markers, tiles
with bodies, bevels and shadows, dice, now and then a hand), then looks at it through a camera:
a perspective warp to a 1920x1080 frame, uneven light, blur, sensor noise and JPEG. Training,
tests, benchmarks and `mjtable simulate`'s camera all use it.

Everything random comes from the ``numpy.random.Generator`` passed in, so a seed gives the
same frame again.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.geometry import TableGeometry
from vision.image import Image
from vision.labels import BACK
from vision.synth.artwork import FACE_H, FACE_W, body_colour, load_set
from vision.synth.layout import Layout

PX_PER_MM = 2.0  # resolution of the top-down drawing
# A tile stood on end (Law 80: the tile drawn last, at Mah-jongg) shows the camera only its
# end: the tile's width by its thickness, the body's layer beside the back's.
ON_END = "ON_END"
TILE_THICKNESS_MM = 16.0
BORDER_MM = 60.0  # wood visible around the felt

Homography = NDArray[np.float64]


@dataclass
class CameraPose:
    """Where the camera is: the table's corners in the frame, and the frame size."""

    corners_px: NDArray[np.float64]  # 4x2: table corners (0,0) (s,0) (s,s) (0,s) in the frame
    width: int = 1920
    height: int = 1080

    def homography(self, geometry: TableGeometry) -> Homography:
        """Table millimetres to frame pixels."""
        s = geometry.size_mm
        src = np.array([[0, 0], [s, 0], [s, s], [0, s]], np.float64)
        return np.asarray(
            cv2.getPerspectiveTransform(src.astype(np.float32), self.corners_px.astype(np.float32))
        )

    @classmethod
    def overhead(
        cls,
        rng: np.random.Generator | None = None,
        width: int = 1920,
        height: int = 1080,
        jitter_px: float = 40.0,
    ) -> CameraPose:
        """A camera above the middle of the table, the table filling the frame's height."""
        side = height * 0.9
        cx, cy = width / 2, height / 2
        corners = np.array(
            [
                [cx - side / 2, cy - side / 2],
                [cx + side / 2, cy - side / 2],
                [cx + side / 2, cy + side / 2],
                [cx - side / 2, cy + side / 2],
            ]
        )
        if rng is not None:
            corners = corners + rng.uniform(-jitter_px, jitter_px, size=(4, 2))
        return cls(corners, width, height)


@dataclass
class Style:
    """The look of one table: tile art, colours, light."""

    art: str
    felt: tuple[int, int, int] = (60, 110, 30)  # BGR
    back: tuple[int, int, int] = (40, 140, 200)
    body: tuple[int, int, int] = (225, 235, 240)
    light: float = 1.0  # overall gain
    gradient: float = 0.25  # how uneven the light is
    blur: float = 0.6  # Gaussian sigma in frame pixels
    noise: float = 3.0  # sensor noise, grey levels
    jpeg: int = 90

    @classmethod
    def random(cls, rng: np.random.Generator, art: str) -> Style:
        felts = [(60, 110, 30), (110, 70, 20), (40, 40, 120), (90, 100, 40), (50, 90, 60)]
        backs = [(40, 140, 200), (150, 90, 30), (60, 60, 170), (150, 80, 150), (30, 180, 230)]
        felt = felts[int(rng.integers(len(felts)))]
        # A back the colour of the cloth would be invisible from above: keep them apart.
        backs = [b for b in backs if sum(abs(x - y) for x, y in zip(b, felt, strict=True)) > 120]
        back = backs[int(rng.integers(len(backs)))]
        faces = load_set(art)
        body = tuple(int(c) for c in body_colour(faces))
        return cls(
            art=art,
            felt=felt,
            back=back,
            body=(body[0], body[1], body[2]),
            light=float(rng.uniform(0.8, 1.15)),
            gradient=float(rng.uniform(0.05, 0.35)),
            blur=float(rng.uniform(0.3, 1.1)),
            noise=float(rng.uniform(1, 5)),
            jpeg=int(rng.integers(70, 96)),
        )


@dataclass
class Rendered:
    image: Image  # the camera frame, BGR
    homography: Homography  # table mm -> frame px (the true one)
    layout: Layout
    geometry: TableGeometry


# -- drawing in the top-down canvas ----------------------------------------------------------


def _mm(v: float) -> float:
    return (v + BORDER_MM) * PX_PER_MM


def _texture(
    rng: np.random.Generator, shape: tuple[int, int], scale: int, amount: float
) -> NDArray[np.float32]:
    """Smooth random variation in [-amount, amount], upsampled from a coarse grid."""
    h, w = shape
    coarse = rng.standard_normal((max(2, h // scale), max(2, w // scale))).astype(np.float32)
    smooth = cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC)
    return np.asarray(np.clip(smooth, -2.5, 2.5) * (amount / 2.5), np.float32)


def _table_canvas(
    rng: np.random.Generator, geometry: TableGeometry, style: Style
) -> NDArray[np.float32]:
    side = round((geometry.size_mm + 2 * BORDER_MM) * PX_PER_MM)
    canvas = np.empty((side, side, 3), np.float32)
    wood = np.array((40, 80, 140), np.float32)
    canvas[:] = wood
    # Grain: stretched noise along x.
    grain = cv2.resize(rng.standard_normal((side // 8, 6)).astype(np.float32), (side, side))
    canvas += grain[:, :, None] * 12
    a, b = round(_mm(0)), round(_mm(geometry.size_mm))
    felt = np.empty((b - a, b - a, 3), np.float32)
    felt[:] = style.felt
    felt += _texture(rng, (b - a, b - a), 60, 10)[:, :, None]
    felt += rng.normal(0, 4, size=(b - a, b - a, 1)).astype(np.float32)  # the nap of the felt
    canvas[a:b, a:b] = felt
    _draw_markers(canvas, geometry)
    return canvas


def _draw_markers(canvas: NDArray[np.float32], geometry: TableGeometry) -> None:
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    for marker_id, corners in geometry.marker_corners().items():
        x0, y0 = corners[0]
        size = round(geometry.marker_mm * PX_PER_MM)
        marker = cv2.aruco.generateImageMarker(dictionary, marker_id, size)
        # A white margin around it, as on the printed sheet.
        margin = round(6 * PX_PER_MM)
        px, py = round(_mm(x0)), round(_mm(y0))
        canvas[py - margin : py + size + margin, px - margin : px + size + margin] = 235
        canvas[py : py + size, px : px + size] = marker[:, :, None].astype(np.float32) * 0.9 + 10


def _tile_sprite(
    face: Image, body: tuple[int, int, int], geometry: TableGeometry, rng: np.random.Generator
) -> NDArray[np.float32]:
    """A tile seen from above as BGRA float: rounded body, bevelled edge, engraved face."""
    w = round(geometry.tile_w_mm * PX_PER_MM)
    h = round(geometry.tile_h_mm * PX_PER_MM)
    sprite = np.zeros((h, w, 4), np.float32)
    radius = 3 * PX_PER_MM
    mask = np.zeros((h, w), np.uint8)
    r = round(radius)
    cv2.rectangle(mask, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)
    sprite[:, :, :3] = body
    inset = round(1.5 * PX_PER_MM)
    face_img = cv2.resize(face, (w - 2 * inset, h - 2 * inset), interpolation=cv2.INTER_AREA)
    sprite[inset : h - inset, inset : w - inset, :3] = face_img
    # The rounded edge falls away from the light: darker towards the border.
    dist = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
    bevel = np.clip(dist / (1.8 * PX_PER_MM), 0, 1) * 0.45 + 0.55
    sprite[:, :, :3] *= bevel[:, :, None]
    sprite[:, :, :3] *= float(rng.uniform(0.9, 1.05))  # wear and ivory tone
    sprite[:, :, 3] = mask.astype(np.float32) / 255.0
    return sprite


def _paste(
    canvas: NDArray[np.float32], sprite: NDArray[np.float32], x_mm: float, y_mm: float, angle: float
) -> None:
    h, w = sprite.shape[:2]
    cx, cy = _mm(x_mm), _mm(y_mm)
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    m[0, 2] += cx - w / 2
    m[1, 2] += cy - h / 2
    pad = int(max(w, h) * 0.75) + 8
    x0, y0 = int(cx) - pad, int(cy) - pad
    x0c, y0c = max(0, x0), max(0, y0)
    x1c = min(canvas.shape[1], int(cx) + pad)
    y1c = min(canvas.shape[0], int(cy) + pad)
    if x1c <= x0c or y1c <= y0c:
        return
    m[0, 2] -= x0c
    m[1, 2] -= y0c
    size = (x1c - x0c, y1c - y0c)
    warped = cv2.warpAffine(sprite, m, size, flags=cv2.INTER_LINEAR)
    region = canvas[y0c:y1c, x0c:x1c]
    alpha = warped[:, :, 3:4]
    region[:] = warped[:, :, :3] * alpha + region * (1 - alpha)


_PIPS: dict[int, list[tuple[float, float]]] = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}


def _die_sprite(value: int, geometry: TableGeometry) -> NDArray[np.float32]:
    """A white die seen from above; the 1 and the 4 have red pips, as Chinese dice do."""
    side = round(geometry.die_mm * PX_PER_MM)
    sprite = np.zeros((side, side, 4), np.float32)
    mask = np.zeros((side, side), np.uint8)
    r = round(2.5 * PX_PER_MM)
    cv2.rectangle(mask, (r, 0), (side - 1 - r, side - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (side - 1, side - 1 - r), 255, -1)
    for cx, cy in ((r, r), (side - 1 - r, r), (r, side - 1 - r), (side - 1 - r, side - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)
    sprite[:, :, :3] = (235, 240, 242)
    colour = (40, 40, 200) if value in (1, 4) else (30, 30, 30)
    step = side * 0.27
    pip_r = side * (0.16 if value == 1 else 0.085)
    for dx, dy in _PIPS[value]:
        centre = (round(side / 2 + dx * step), round(side / 2 + dy * step))
        cv2.circle(sprite, centre, round(pip_r), (*colour, 0), -1, cv2.LINE_AA)
    dist = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
    sprite[:, :, :3] *= (np.clip(dist / (1.5 * PX_PER_MM), 0, 1) * 0.35 + 0.65)[:, :, None]
    sprite[:, :, 3] = mask.astype(np.float32) / 255.0
    return sprite


def _draw_hand(canvas: NDArray[np.float32], x: float, y: float, size_mm: float) -> None:
    """A hand reaching in from the table's nearest edge, fingers first: a palm and four
    fingers, skin-toned, on a forearm from beyond the edge, as the camera sees a player
    reaching over his rack and wall."""
    # The skin's tone by where the hand is, not from the frame's randomness: a frame with a
    # hand is otherwise the frame without it (bench_watch.py compares the two).
    tones = [(80, 120, 190), (60, 100, 160), (40, 70, 110)]
    skin = np.array(tones[int(x + y) % len(tones)], np.float32)
    edges = {(0, 1): size_mm - y, (0, -1): y, (-1, 0): x, (1, 0): size_mm - x}
    out = min(edges, key=lambda e: edges[e])  # from the fingers towards the player
    across = (out[1], out[0])
    turn = 0 if out[0] == 0 else 90  # the ellipses' long axes along ``out``
    layer = np.zeros(canvas.shape[:2], np.uint8)
    cx, cy = round(_mm(x)), round(_mm(y))
    size = round(45 * PX_PER_MM)
    palm = (cx + out[0] * size, cy + out[1] * size)
    cv2.ellipse(layer, palm, (size // 2 + 10, size), turn, 0, 360, 255, -1)
    forearm = round(65 * PX_PER_MM)
    reach = max(layer.shape) + forearm  # beyond the canvas: the player is off the table
    cv2.line(layer, palm, (palm[0] + out[0] * reach, palm[1] + out[1] * reach), 255, forearm)
    for i in range(4):
        off = -size // 2 + i * size // 3
        finger = (cx + across[0] * off, cy + across[1] * off)
        cv2.ellipse(layer, finger, (round(size / 9), size // 2), turn, 0, 360, 255, -1)
    # Softened and blended only around the hand: the whole canvas cost 0.14 s a frame.
    left, top, width, height = cv2.boundingRect(layer)
    pad = 12  # four times the blur's sigma
    x0, y0 = max(0, left - pad), max(0, top - pad)
    rows, cols = canvas.shape[:2]
    x1, y1 = min(cols, left + width + pad), min(rows, top + height + pad)
    part = layer[y0:y1, x0:x1].astype(np.float32) / 255
    soft = cv2.GaussianBlur(part, (0, 0), 3, borderType=cv2.BORDER_REPLICATE)[:, :, None]
    region = canvas[y0:y1, x0:x1]
    region[:] = region * (1 - soft) + skin * soft


def _cast_shadows(canvas: NDArray[np.float32], layout: Layout, geometry: TableGeometry) -> None:
    """Soft shadows down and to the right of every tile and die (light from the top left),
    drawn in one layer and blurred once."""
    scale = 4  # the shadow is soft: draw it at a quarter of the resolution
    h, w = canvas.shape[:2]
    layer = np.zeros((h // scale, w // scale), np.float32)
    items = [
        (
            t.x,
            t.y,
            t.angle,
            geometry.tile_w_mm,
            TILE_THICKNESS_MM if t.label == ON_END else geometry.tile_h_mm,
        )
        for t in layout.tiles
    ]
    items += [(d.x, d.y, d.angle, geometry.die_mm, geometry.die_mm) for d in layout.dice]
    for x, y, angle, w_mm, h_mm in items:
        centre = ((_mm(x + 2.0)) / scale, (_mm(y + 2.5)) / scale)
        size = (w_mm * PX_PER_MM / scale, h_mm * PX_PER_MM / scale)
        box = cv2.boxPoints((centre, size, -angle))
        cv2.fillConvexPoly(layer, np.round(box).astype(np.int32), 1.0, cv2.LINE_AA)
    layer = cv2.GaussianBlur(layer, (0, 0), 2.0 * PX_PER_MM / scale)
    canvas *= (1 - 0.45 * cv2.resize(layer, (w, h)))[:, :, None]


def draw_top_down(
    layout: Layout, style: Style, geometry: TableGeometry, rng: np.random.Generator
) -> NDArray[np.float32]:
    """The table drawn from straight above at ``PX_PER_MM``, float BGR."""
    canvas = _table_canvas(rng, geometry, style)
    faces = load_set(style.art)
    _cast_shadows(canvas, layout, geometry)
    for tile in layout.tiles:
        if tile.label == BACK:
            face = np.full((FACE_H, FACE_W, 3), style.back, np.uint8)
            sprite = _tile_sprite(face, style.back, geometry, rng)
        elif tile.label == ON_END:
            end = np.full((FACE_H, FACE_W, 3), style.back, np.uint8)
            end[: FACE_H // 2] = style.body
            thin = replace(geometry, tile_h_mm=TILE_THICKNESS_MM)
            sprite = _tile_sprite(end, style.body, thin, rng)
        else:
            sprite = _tile_sprite(faces[tile.label], style.body, geometry, rng)
        _paste(canvas, sprite, tile.x, tile.y, tile.angle)
    for die in layout.dice:
        _paste(canvas, _die_sprite(die.value, geometry), die.x, die.y, die.angle)
    if layout.hand is not None:
        _draw_hand(canvas, *layout.hand, geometry.size_mm)
    return canvas


def render(
    layout: Layout,
    style: Style,
    rng: np.random.Generator,
    geometry: TableGeometry | None = None,
    pose: CameraPose | None = None,
) -> Rendered:
    """A camera frame of the layout, with the homography that produced it."""
    geometry = geometry or TableGeometry()
    pose = pose or CameraPose.overhead(rng)
    canvas = draw_top_down(layout, style, geometry, rng)
    to_frame = pose.homography(geometry)
    # canvas px -> table mm -> frame px
    from_canvas = np.array(
        [[1 / PX_PER_MM, 0, -BORDER_MM], [0, 1 / PX_PER_MM, -BORDER_MM], [0, 0, 1]]
    )
    frame = cv2.warpPerspective(
        canvas,
        to_frame @ from_canvas,
        (pose.width, pose.height),
        flags=cv2.INTER_AREA,
        borderMode=cv2.BORDER_REPLICATE,
    )
    image = _camera_effects(np.asarray(frame, np.float32), style, rng)
    return Rendered(image, to_frame, layout, geometry)


def render_still(
    layout: Layout,
    style: Style,
    look_seed: int,
    noise_seed: int,
    geometry: TableGeometry | None = None,
    gain: float = 1.0,
    pose: CameraPose | None = None,
) -> Rendered:
    """A frame of a table that holds still between frames: the same scene, even light and
    camera for the same ``look_seed`` (tiles added at the end of the layout change only
    where they lie), fresh sensor noise and JPEG for each ``noise_seed``; ``gain``: the
    camera's exposure; ``pose``: the camera (by default :func:`render`'s). For the scan
    cache, which :func:`render` (new light and wear in every frame) would not exercise."""
    quiet = replace(style, noise=0.0, jpeg=100, gradient=0.0)
    clean = render(layout, quiet, np.random.default_rng(look_seed), geometry, pose)
    rng = np.random.default_rng(noise_seed)
    image = clean.image.astype(np.float32) * gain
    image += rng.normal(0, style.noise, size=image.shape[:2] + (1,)).astype(np.float32)
    frame = np.clip(image, 0, 255).astype(np.uint8)
    ok, encoded = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, style.jpeg])
    if ok:
        frame = np.asarray(cv2.imdecode(encoded, cv2.IMREAD_COLOR), np.uint8)
    return Rendered(frame, clean.homography, layout, clean.geometry)


def _camera_effects(frame: NDArray[np.float32], style: Style, rng: np.random.Generator) -> Image:
    h, w = frame.shape[:2]
    # Light: brighter towards a random point, falling off smoothly.
    lx, ly = rng.uniform(0, w), rng.uniform(0, h)
    ys, xs = np.mgrid[0:h:8, 0:w:8].astype(np.float32)
    fall = np.sqrt((xs - lx) ** 2 + (ys - ly) ** 2) / max(w, h)
    gain = cv2.resize(style.light * (1 - style.gradient * fall), (w, h))
    frame *= gain[:, :, None]
    if style.blur > 0.05:
        frame = np.asarray(cv2.GaussianBlur(frame, (0, 0), style.blur), np.float32)
    frame += rng.normal(0, style.noise, size=(h, w, 1)).astype(np.float32)
    image = np.clip(frame, 0, 255).astype(np.uint8)
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, style.jpeg])
    if ok:
        image = np.asarray(cv2.imdecode(encoded, cv2.IMREAD_COLOR), np.uint8)
    return image
