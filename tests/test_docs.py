"""The docs' examples run, so they cannot drift from the code: the Python of docs/engine-api.md,
docs/rules-american.md and docs/score.md as doctests (and every name a sketch of the other
pages imports exists), every docstring example of the engine and config modules, every
`$ mjtable ...` shown with its output, and every hand docs/score.md gives as input to
`mjtable score`."""

from __future__ import annotations

import ast
import doctest
import importlib
import importlib.util
import json
import pkgutil
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@pytest.mark.parametrize("page", ["engine-api.md", "rules-american.md", "score.md"])
def test_the_examples_of_a_docs_page_run(page: str) -> None:
    result = doctest.testfile(str(ROOT / "docs" / page), module_relative=False,
                              optionflags=FLAGS, verbose=False, report=True)
    assert result.attempted > 0 and result.failed == 0


def _blocks(page: str) -> list[str]:
    """The fenced code blocks of a docs page, in order."""
    return re.findall(r"^```[a-z]*\n(.*?)^```", (ROOT / "docs" / page).read_text(), re.M | re.S)


def _commands() -> list[tuple[str, str, str]]:
    """Each `$ mjtable ...` line of the docs' code blocks and the output printed under it."""
    found = []
    for page in sorted(p.name for p in (ROOT / "docs").glob("*.md")):
        for block in _blocks(page):
            for shown in re.split(r"^(?=\$ )", block, flags=re.M):
                if shown.startswith("$ mjtable "):
                    command, _, output = shown.partition("\n")
                    found.append((page, command[2:], output))
    return found


def _in_a_club(tmp_path: Path) -> Path:
    """A working directory holding the club's card the examples name (the sample card: the
    lines they use are on it)."""
    shutil.copy(ROOT / "config" / "cards" / "sample-2026.card", tmp_path / "club.card")
    return tmp_path


MJTABLE = str(Path(sys.executable).parent / "mjtable")


@pytest.mark.parametrize(("page", "command", "output"), _commands(),
                         ids=[f"{p}:{c[:40]}" for p, c, _ in _commands()])
def test_a_command_shown_in_the_docs_prints_what_they_show(
        page: str, command: str, output: str, tmp_path: Path) -> None:
    done = subprocess.run([MJTABLE, *shlex.split(command)[1:]], cwd=_in_a_club(tmp_path),
                          capture_output=True, text=True, timeout=60)
    checker = doctest.OutputChecker()
    assert checker.check_output(output, done.stdout, FLAGS), (page, command, done.stdout)


def test_the_docs_show_commands_with_their_output() -> None:
    assert len(_commands()) >= 2 and all(output.strip() for _, _, output in _commands())


def _score(doc: str, cwd: Path) -> dict[str, object]:
    done = subprocess.run([MJTABLE, "score"], input=doc, cwd=cwd, capture_output=True,
                          text=True, timeout=60)
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_every_hand_docs_score_gives_is_scored_and_its_shown_answer_is_the_real_one(
        tmp_path: Path) -> None:
    """An input (a JSON object naming its ruleset) is scored without an error; an answer
    shown right after it (elided with ...) settles as the real answer does."""
    blocks = _blocks("score.md")
    scored = 0
    for before, block in zip([None, *blocks], blocks, strict=False):
        if block.lstrip().startswith('{"ruleset"'):
            result = _score(block, _in_a_club(tmp_path))
            assert "error" not in result, (block, result)
            scored += 1
        elif block.lstrip().startswith('{"hands"') and before is not None and \
                before.lstrip().startswith('{"ruleset"'):
            result = _score(before, _in_a_club(tmp_path))
            for key in ("net", "mahjong"):
                shown = re.search(rf'"{key}": (\{{[^{{}}]*\}})', block)
                assert shown is not None and json.loads(shown.group(1)) == result[key], key
    assert scored >= 4


def _sketches() -> list[tuple[str, str]]:
    """The Python blocks of the docs that are not doctests: sketches of a use."""
    return [(page.name, block) for page in sorted((ROOT / "docs").rglob("*.md"))
            for block in re.findall(r"^```python\n(.*?)^```", page.read_text(), re.M | re.S)
            if ">>>" not in block]


def _missing(sketch: str, page: str = "<sketch>") -> list[str]:
    """What a sketch imports that does not exist (``module.name``)."""
    tree = ast.parse(sketch, page)  # `...` standing for the rest is Python too
    imported = [(node.module, [a.name for a in node.names]) for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module]
    imported += [(a.name, []) for node in ast.walk(tree) if isinstance(node, ast.Import)
                 for a in node.names]
    missing = []
    for module, names in imported:
        found = importlib.import_module(module)
        package = hasattr(found, "__path__")  # a name may be a submodule of a package
        missing += [f"{module}.{n}" for n in names if not hasattr(found, n)
                    and not (package and importlib.util.find_spec(f"{module}.{n}"))]
    return missing


@pytest.mark.parametrize(("page", "sketch"), _sketches(),
                         ids=[f"{p}:{s.splitlines()[0][:40]}" for p, s in _sketches()])
def test_a_sketch_in_the_docs_is_python_and_imports_what_exists(page: str, sketch: str) -> None:
    assert _missing(sketch, page) == []


def test_the_sketch_check_sees_a_name_that_does_not_exist() -> None:
    assert _missing("from engine.game import deal_order, new_hand\n") == ["engine.game.deal_order"]


def _modules(package: str) -> list[str]:
    root = importlib.import_module(package)
    return [package] + [m.name for m in pkgutil.walk_packages(root.__path__, f"{package}.")]


@pytest.mark.parametrize("module", _modules("engine") + _modules("config"))
def test_the_docstring_examples_of_a_module_run(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module), optionflags=FLAGS, report=True)
    assert result.failed == 0


def test_docs_mqtt_names_every_event_an_american_table_publishes() -> None:
    import re

    source = "".join(p.read_text() for p in (ROOT / "engine" / "american").glob("*.py"))
    kinds = set(re.findall(r'(?:make_event|AmericanEvent)\(\s*"([A-Za-z]+)"', source))
    page = (ROOT / "docs" / "mqtt.md").read_text()
    section = page[page.index("## American tables"):]
    listed = set(re.findall(r"`([A-Z][A-Za-z]+)`", section))
    assert len(kinds) > 20 and kinds <= listed, sorted(kinds - listed)
