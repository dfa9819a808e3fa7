"""A git revision's files, unpacked into a folder: the tree another revision's code runs from
when a benchmark measures it beside this one."""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def unpack(rev: str, folder: Path, *paths: str) -> Path:
    """The files of ``rev`` as git stores them (only ``paths``, if given) written under
    ``folder``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", rev, *paths],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder
