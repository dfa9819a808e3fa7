"""The docs' examples run: docs/engine-api.md as a doctest, and every docstring example of the
engine and config modules, so neither can drift from the code."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@pytest.mark.parametrize("page", ["engine-api.md"])
def test_the_examples_of_a_docs_page_run(page: str) -> None:
    result = doctest.testfile(str(ROOT / "docs" / page), module_relative=False,
                              optionflags=FLAGS, verbose=False, report=True)
    assert result.attempted > 0 and result.failed == 0


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
