"""The parts' dependencies that must never exist (docs/architecture.md, "The parts and their
layers"): each product package may import only the parts drawn below it. An import that breaks
a layer fails here, naming the file, the line and the import."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PARTS = ("engine", "firmware_bridge", "vision", "config", "controller", "hub")

# What each part may import of the others. The engine is pure and stands alone; the firmware
# bridge speaks bytes and knows no game; vision sees tiles and reports them, never the
# service; config reads the engine's registry of rulesets; the service may use them all.
ALLOWED: dict[str, frozenset[str]] = {
    "engine": frozenset(),
    "firmware_bridge": frozenset(),
    "vision": frozenset({"engine"}),
    "config": frozenset({"engine"}),
    "controller": frozenset({"engine", "firmware_bridge", "vision", "config"}),
    # the club hub folds games with the table's own fold (controller/games.py)
    "hub": frozenset({"engine", "config", "controller"}),
}
# The command line sits above every part: its command modules may start the hub too.
COMMAND_LINE = ("controller/commands/", frozenset({"hub"}))

# Imports that break a layer today and are being mended; each one here is a debt, and the
# test fails once it is paid (so the entry goes) or if another appears.
KNOWN: frozenset[tuple[str, str]] = frozenset()


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports (absolute names; relative imports stay in the part)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def _breaks(part: str) -> list[tuple[str, int, str]]:
    out = []
    for path in sorted((ROOT / part).rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        if name.startswith("firmware_bridge/firmware/"):
            continue  # MicroPython for the board: not a part of the service's Python
        for line, module in _imports(path):
            other = module.split(".")[0]
            allowed = ALLOWED[part] | (COMMAND_LINE[1] if name.startswith(COMMAND_LINE[0])
                                       else frozenset())
            if other in PARTS and other != part and other not in allowed:
                out.append((name, line, module))
    return out


@pytest.mark.parametrize("part", PARTS)
def test_no_part_imports_a_part_it_must_not(part: str) -> None:
    breaks = [b for b in _breaks(part) if (b[0], b[2].split(".")[0]) not in KNOWN]
    assert breaks == [], "\n".join(f"{f}:{n}: imports {m}" for f, n, m in breaks)


def test_every_known_break_still_exists() -> None:
    """A mended break leaves this list, so it cannot come back unnoticed."""
    found = {(f, m.split(".")[0]) for part in PARTS for f, _, m in _breaks(part)}
    assert found >= KNOWN, f"mended, remove from KNOWN: {sorted(KNOWN - found)}"


def test_the_check_sees_an_import_that_breaks_a_layer(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import os\nfrom controller.service import Service\n")
    assert (2, "controller.service") in _imports(bad)
