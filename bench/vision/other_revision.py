"""Another git revision's vision package, run by ``scan_worker.py`` in a process of its own on
the frames, crops and prototypes of this run: two revisions measured side by side, alternately
(``bench_vision.py --against REV``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from git_tree import unpack

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from vision.identify import Recogniser  # noqa: E402


class OtherRevision:
    """The scanner and recogniser of another git revision, in its own process."""

    def __init__(self, rev: str, workdir: Path) -> None:
        self.workdir = workdir
        self.rev = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", rev],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        tree = workdir / "tree"
        tree.mkdir()
        unpack(rev, tree, "vision", "engine", "controller")
        # OpenBLAS threads spin for a while after each product before they sleep: in the
        # other process that would take the CPU from the scan timed next in this one.
        env = {**os.environ, "OPENBLAS_THREAD_TIMEOUT": "4"}
        self.process = subprocess.Popen(
            [sys.executable, str(Path(__file__).with_name("scan_worker.py")), str(tree)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        self._models: dict[int, Path] = {}

    def shared_model(self, recogniser: Recogniser) -> tuple[Recogniser, Path]:
        """The recogniser as both sides load it (prototypes are stored as float16); each
        side names bonus tiles with its own revision's reader."""
        folder = self.workdir / f"model-{len(self._models)}"
        recogniser.save(folder, images=0)
        self._models[id(recogniser)] = folder
        return Recogniser.load(folder), folder

    def _ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the scanner at {self.rev} stopped (see its error above)")
        reply: dict[str, Any] = json.loads(line)
        return reply

    def scan(
        self,
        frame: np.ndarray,
        calibration: Any,
        model: Path,
        stages: bool = False,
        dice: bool = False,
    ) -> dict[str, Any]:
        np.save(self.workdir / "frame.npy", frame)
        calibration.save(self.workdir / "calibration.json")
        request = {
            "frame": str(self.workdir / "frame.npy"),
            "calibration": str(self.workdir / "calibration.json"),
            "model": str(model),
            "stages": stages,
            "dice": dice,
        }
        return self._ask(request)

    def identify(self, crops: Sequence[np.ndarray], model: Path) -> list[tuple[str | None, str]]:
        """The other revision's ``Recogniser.identify`` of ``crops`` (label, best) with the
        stored model ``model``."""
        np.save(self.workdir / "crops.npy", np.stack(crops))
        reply = self._ask({"crops": str(self.workdir / "crops.npy"), "model": str(model)})
        return [(label, best) for label, best in reply["identities"]]

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=30)
