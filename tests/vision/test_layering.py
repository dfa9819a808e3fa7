"""Vision stands alone: no module of vision/ imports the table service (controller/) or the
firmware bridge, not even inside a function; and the live pipeline does not import the
renderer and its artwork (vision/synth/), but for the camera source ``render:SEED``, which
loads it only when asked for. Checked on every module's syntax tree, so an import anywhere
in a module counts, where the module is never run."""

from __future__ import annotations

import ast
from pathlib import Path

VISION = Path(__file__).resolve().parents[2] / "vision"
NEVER = ("controller", "firmware_bridge")
# The live pipeline's one door to the renderer: open_source("render:SEED").
SYNTH_DOORS = {"vision/capture.py"}


def imports_of(source: str, module: str) -> list[tuple[str, bool]]:
    """Every module ``source`` (the module named ``module``, a package's ``__init__`` named as
    the package) imports, relative imports resolved, each with whether it is imported at the
    module's top level (not inside a function or class)."""
    tree = ast.parse(source)
    top = {id(node) for node in tree.body}
    package = module.rsplit(".", 1)[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(alias.name, id(node) in top) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            out.append((name, id(node) in top))
    return out


def _modules() -> dict[str, tuple[str, str]]:
    """Every module of vision/: its dotted name -> (its path from the root, its source)."""
    found = {}
    for path in sorted(VISION.rglob("*.py")):
        parts = path.relative_to(VISION.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = (*parts[:-1], "__init__")
        found[".".join(parts)] = (str(path.relative_to(VISION.parent)), path.read_text())
    return found


def _is(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def test_the_checker_sees_lazy_and_relative_imports() -> None:
    source = (
        "from .cloth import cloth_of\n"
        "import numpy\n"
        "def f():\n"
        "    from controller.inputs import Press\n"
        "    import firmware_bridge.wire\n"
    )
    assert imports_of(source, "vision.finder.finding") == [
        ("vision.finder.cloth", True),
        ("numpy", True),
        ("controller.inputs", False),
        ("firmware_bridge.wire", False),
    ]
    assert imports_of("from . import x\n", "vision.finder.__init__") == [("vision.finder", True)]


def test_no_module_of_vision_imports_the_service_or_the_firmware_bridge() -> None:
    modules = _modules()
    assert len(modules) > 30 and "vision.finder.finding" in modules
    wrong = [
        f"{path} imports {name}"
        for module, (path, source) in modules.items()
        for name, _ in imports_of(source, module)
        if any(_is(name, never) for never in NEVER)
    ]
    assert wrong == []


def test_the_live_pipeline_loads_the_renderer_only_for_a_rendered_camera() -> None:
    wrong = []
    for module, (path, source) in _modules().items():
        if _is(module, "vision.synth"):
            continue
        for name, top_level in imports_of(source, module):
            if _is(name, "vision.synth") and (top_level or path not in SYNTH_DOORS):
                wrong.append(f"{path} imports {name}" + (" at its top" if top_level else ""))
    assert wrong == []
