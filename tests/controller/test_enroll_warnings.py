"""`mjtable vision enroll` from files says what an enrolment that worked still lacks."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller import cli
from vision.synth.artwork import load_set
from vision.synth.crops import synthetic_crop


def test_one_photo_of_one_kind_is_enrolled_with_warnings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "samples" / "7d").mkdir(parents=True)
    face = load_set("kde-traditional")["7D"]
    cv2.imwrite(str(tmp_path / "samples" / "7d" / "a.png"),
                synthetic_crop(face, np.random.default_rng(1)))
    code = cli.main(["vision", "enroll", "--out", str(tmp_path / "model"),
                     str(tmp_path / "samples")])
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert code == 0 and (out["kinds"], out["images"]) == (1, 1)
    assert out["warnings"] == [
        "fewer than 3 photos of 7D: each is known by that one tile's look",
        "1 kinds enrolled, a set has at least 34: `mjtable doctor --check enrolled` lists the "
        "missing ones",
    ]
    assert captured.err.count("mjtable: warning:") == 2
