"""Code sized for the next engineer: in the product's packages (not tests or bench) no module
over 600 lines and no function over 80, data tables apart. A file or function that grows past
either fails here, naming it and its size."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "controller", "vision", "config", "hub", "firmware_bridge")
MODULE_LINES = 600
FUNCTION_LINES = 80

# Data tables, not logic: each function builds one rule book's score table, row by row as the
# book prints it (engine/scoring/tables.py); splitting one would scatter a printed table.
DATA_TABLES = frozenset({
    "engine/scoring/tables.py:_code1924",  # Code of 1924, Laws 87-92, the three games
    "engine/scoring/tables.py:_pungchow_limit",  # Harr's Part II, "Playing with a Limit"
})


def _modules() -> list[tuple[str, str]]:
    return [(p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8"))
            for part in PACKAGES for p in sorted((ROOT / part).rglob("*.py"))]


def long_functions(source: str, limit: int = FUNCTION_LINES) -> list[tuple[str, int]]:
    """Every function (methods and nested ones too) longer than ``limit`` lines, decorators
    left out: (name, lines)."""
    return [(node.name, node.end_lineno - node.lineno + 1)
            for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.end_lineno is not None and node.end_lineno - node.lineno + 1 > limit]


def test_no_module_is_over_600_lines() -> None:
    long = {name: n for name, source in _modules()
            if (n := len(source.splitlines())) > MODULE_LINES}
    assert long == {}, long


def test_no_function_is_over_80_lines_outside_the_data_tables() -> None:
    found = {f"{name}:{function}": n for name, source in _modules()
             for function, n in long_functions(source)}
    assert {k: n for k, n in found.items() if k not in DATA_TABLES} == {}


def test_every_data_table_allowed_is_still_that_long() -> None:
    """An allowance that is no longer needed leaves the list, so it cannot shelter another."""
    found = {f"{name}:{function}" for name, source in _modules()
             for function, _ in long_functions(source)}
    assert found >= DATA_TABLES, sorted(DATA_TABLES - found)


def test_the_check_counts_a_function_from_def_to_its_last_line() -> None:
    def body(lines: int, indent: str) -> str:
        return "\n".join(f"{indent}x = {i}" for i in range(lines))

    assert long_functions(f"def f():\n{body(80, '    ')}\n") == [("f", 81)]
    assert long_functions(f"def f():\n{body(79, '    ')}\n") == []
    method = f"class C:\n    async def g(self):\n{body(81, '        ')}\n"
    assert long_functions(method) == [("g", 82)]
