"""How the benchmarks print a report and keep it as a JSON file: one way, so every
results file is indented alike, ends with a newline and is UTF-8 whatever the locale."""

from __future__ import annotations

import json
from pathlib import Path


def as_json(report: object) -> str:
    """The report as the results files hold it (one space of indent)."""
    return json.dumps(report, indent=1)


def write_report(report: object, path: Path | None) -> None:
    """Keep ``report`` at ``path``, when one was asked for (``--json``)."""
    if path is not None:
        path.write_text(as_json(report) + "\n", encoding="utf-8")


def show_and_write(report: object, path: Path | None) -> None:
    """Print ``report`` whole, then keep it at ``path`` when one was asked for."""
    print(as_json(report), flush=True)
    write_report(report, path)
