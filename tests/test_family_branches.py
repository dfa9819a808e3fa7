"""Nothing above the engine branches on the rule family: in ``controller/`` only the
``families/`` package names the American game in code (an import of its modules, a name, or the
family's or a ruleset's name as a value); it picks each family's objects, and the rest works
through the engine's one interface (engine/family.py). Prose that tells a user about the game
(a help line, an error) is not a branch and is not counted."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PICKER = "controller/families/"
# Still naming it, to be merged into the one table; each entry is a debt: the test fails once
# a file no longer names the game (the entry goes) or when another file starts to.
NOT_YET = frozenset({
    "controller/commands/card.py",
    "controller/commands/config.py",
    "controller/commands/play.py",
    "controller/commands/replay.py",
    "controller/commands/run.py",
    "controller/commands/score.py",
    "controller/guided_enrol.py",
})
# The family's and its rulesets' names, and its messages' JSON types ("american/Discard").
VALUE = re.compile(r"american(/\w+)?", re.IGNORECASE)


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def namings(source: str) -> list[tuple[int, str]]:
    """Where ``source`` names the American game in code: (line, what)."""
    tree = ast.parse(source)
    docstrings = _docstrings(tree)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or "", *(alias.name for alias in node.names)]
        elif isinstance(node, ast.Name):
            names = [node.id]
        elif isinstance(node, ast.Attribute):
            names = [node.attr]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names = [node.name]
        elif isinstance(node, ast.arg):
            names = [node.arg]
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and id(node) not in docstrings and VALUE.fullmatch(node.value)):
            names = [repr(node.value)]
        found += [(getattr(node, "lineno", 0), n) for n in names if "american" in n.lower()]
    return found


def _named_in() -> dict[str, list[tuple[int, str]]]:
    out = {}
    for path in sorted((ROOT / "controller").rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        found = namings(path.read_text(encoding="utf-8"))
        if found:
            out[name] = found
    return out


def test_only_the_family_picker_names_the_american_game() -> None:
    named = _named_in()
    extra = {f: where for f, where in named.items()
             if not f.startswith(PICKER) and f not in NOT_YET}
    assert extra == {}, "\n".join(f"{f}:{line}: {what}" for f, where in extra.items()
                                  for line, what in where)


def test_every_file_still_to_merge_still_names_it() -> None:
    """A file merged into the one table leaves NOT_YET, so it cannot come back unnoticed."""
    assert set(_named_in()) >= NOT_YET, f"merged, remove: {sorted(NOT_YET - set(_named_in()))}"


def test_the_check_sees_a_branch_and_passes_prose() -> None:
    branch = ('"""The American game."""\n'
              'from engine.rulesets import entry\n'
              'def f(r):\n'
              '    help = "for the American game"\n'
              '    return entry(r).family == "american"\n')
    assert namings(branch) == [(5, "'american'")]
    assert namings("from controller.american_table import AmericanTable\n") == [
        (1, "controller.american_table"), (1, "AmericanTable")]
    assert namings("x = is_american(ruleset)\n") == [(1, "is_american")]
