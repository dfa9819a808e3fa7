"""Read and validate a table's TOML file; errors name the file, the key path and what was wanted."""

from __future__ import annotations

import re
import ssl
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from config.schema import TableConfig


@dataclass(frozen=True)
class ConfigProblem:
    """One thing wrong in a config file: ``where`` is ``FILE: key.path`` (or ``FILE:LINE``)."""

    file: str
    key: str
    message: str

    @property
    def where(self) -> str:
        return f"{self.file}: {self.key}" if self.key else self.file

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


class ConfigError(ValueError):
    """A config file that cannot be used. ``problems`` lists every fault found, in file order."""

    def __init__(self, problems: list[ConfigProblem]) -> None:
        self.problems = problems
        first = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        super().__init__(f"{first}{more}")


def _key_path(loc: tuple[int | str, ...]) -> str:
    parts: list[str] = []
    for item in loc:
        if isinstance(item, int):
            parts.append(f"[{item}]")
        else:
            parts.append(("." if parts else "") + item)
    return "".join(parts)


def _message(error: Any) -> str:
    kind = error["type"]
    if kind == "missing":
        return "required key is missing"
    if kind == "extra_forbidden":
        return "unknown key (check its spelling; see docs/config.md)"
    text = str(error["msg"])
    return text.removeprefix("Value error, ")


def parse_config(data: dict[str, Any], file: str = "<config>") -> TableConfig:
    """Validate an already-parsed TOML document."""
    try:
        return TableConfig.model_validate(data)
    except ValidationError as exc:
        problems = [
            ConfigProblem(file, _key_path(tuple(err["loc"])), _message(err))
            for err in exc.errors()
        ]
        raise ConfigError(problems) from None


def load_config(path: str | Path) -> TableConfig:
    """Read one table file. Raises :class:`ConfigError` (never a traceback-worthy error)."""
    name = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ConfigError([ConfigProblem(name, "", f"cannot read: {exc.strerror}")]) from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError([ConfigProblem(name, "", f"not UTF-8 text ({exc.reason})")]) from None
    except tomllib.TOMLDecodeError as exc:
        # tomllib's message already ends with "(at line L, column C)".
        raise ConfigError([ConfigProblem(name, "", f"not valid TOML: {exc}")]) from None
    except ValueError:  # an integer of more than 4,300 digits, which Python will not read
        line = _long_number_line(raw.decode("utf-8"))
        raise ConfigError(
            [ConfigProblem(f"{name}:{line}", "", "a number longer than 4,300 digits")]
        ) from None
    except RecursionError:  # tomllib recurses once per nested array or inline table
        line = _deep_line(raw.decode("utf-8"))
        raise ConfigError(
            [ConfigProblem(f"{name}:{line}", "", f"nested deeper than {MAX_NESTING} levels")]
        ) from None
    return parse_config(data, name)


MAX_NESTING = 100  # nothing in a table file nests more than 3 levels


def _deep_line(text: str) -> int:
    """The first line where brackets and braces open more than MAX_NESTING deep (strings and
    comments are not told apart: this only places an error tomllib could not)."""
    depth = 0
    for number, line in enumerate(text.splitlines(), start=1):
        for char in line:
            depth += (char in "[{") - (char in "]}")
            if depth > MAX_NESTING:
                return number
    return 1


def _long_number_line(text: str) -> int:
    for number, line in enumerate(text.splitlines(), start=1):
        if re.search(r"\d{4301}", line.replace("_", "")):
            return number
    return 1


def check_files(cfg: TableConfig, file: str) -> list[ConfigProblem]:
    """Files the table will read at start that cannot be read now (the MQTT password, the
    broker's CA)."""
    problems: list[ConfigProblem] = []
    if cfg.mqtt.enabled and cfg.mqtt.password_file:
        try:
            Path(cfg.mqtt.password_file).read_bytes()
        except OSError as exc:
            problems.append(ConfigProblem(
                file, "mqtt.password_file",
                f"cannot read {cfg.mqtt.password_file}: {exc.strerror or exc}",
            ))
    if cfg.mqtt.enabled and cfg.mqtt.ca_file:
        error = ca_file_problem(cfg.mqtt.ca_file)
        if error:
            problems.append(ConfigProblem(file, "mqtt.ca_file", error))
    return problems


def ca_file_problem(path: str) -> str:
    """Why ``path`` cannot serve as the CA to trust for TLS ("" if it can)."""
    try:
        ssl.create_default_context(cafile=path)
    except OSError as exc:
        if isinstance(exc, ssl.SSLError):
            return f"{path} holds no PEM certificate: {exc.reason or exc}"
        return f"cannot read {path}: {exc.strerror or exc}"
    return ""


def bundled_path(name: str) -> Path:
    """A file shipped in the package's ``config/defaults`` folder."""
    return Path(__file__).resolve().parent / "defaults" / name


def bundled_config(name: str = "simulate.toml") -> TableConfig:
    return load_config(bundled_path(name))
