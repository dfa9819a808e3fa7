"""What the honours and the characters suit print, and which of them a reading of a tile's
print names (vision/bonus_ocr.py reads the print and decides when a reading counts)."""

from __future__ import annotations

# Each kind's characters, every group of which must be read (a character tile is its numeral
# and 萬, often in different regions of the face); the white dragon prints no character.
NUMERALS = "一二三四五六七八九"
PRINTED: dict[str, tuple[str, ...]] = {
    "EW": ("東",),
    "SW": ("南",),
    "WW": ("西",),
    "NW": ("北",),
    "RD": ("中",),
    "GD": ("發发",),
    **{f"{n + 1}C": (NUMERALS[n], "萬万") for n in range(9)},
}
HONOURS = ("EW", "SW", "WW", "NW", "RD", "GD")


def first_looks_print(best: str, printed: dict[str, float], sure: float, anew: bool) -> str | None:
    """The first look's ``best`` kind (an honour or character tile) where its print is read
    ``sure`` plainly (``printed``: each kind by how plainly), or with ``anew`` the honour
    whose character is read best at that bar; None else."""
    if best not in PRINTED:
        return None
    kind = best
    if anew:
        # Only an honour anew: its character is whole, where 一 二 三 are strokes of one
        # another. A first look on the bamboos or dots is never asked (xmj-real's sticks
        # read 0.5-0.65 as 北).
        kind = max(HONOURS, key=lambda k: printed.get(k, 0.0))
        if printed.get(kind, 0.0) < sure:
            kind = best
    return kind if printed.get(kind, 0.0) >= sure else None


def print_read_best(printed: dict[str, float], sure: float) -> str | None:
    """The honour or character tile whose print is read best, where it is read ``sure``
    plainly; None else."""
    kind = max(PRINTED, key=lambda k: printed.get(k, 0.0))
    return kind if printed.get(kind, 0.0) >= sure else None
