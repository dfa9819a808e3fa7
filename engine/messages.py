"""The base of commands and events: frozen dataclasses with a JSON form that has a ``type``.

A message class is declared with :func:`message` and a registry (one for commands, one for
events). Each field is converted by the codec its annotation names, so the JSON form speaks
the contract's tokens (tiles ``"5C"``, seats ``"E"``) and ``from_json`` names the exact field
that was wrong::

    @command("Discard")
    @dataclass(frozen=True, slots=True)
    class Discard(Command):
        seat: Seat
        tile: Tile

Other rule families (``engine.american``) declare their own messages the same way, into the
same registries, and reuse every codec here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, TypeVar

from engine.errors import MalformedInput
from engine.seats import Seat, parse_seat
from engine.tiles import TileError, parse_tile, tile_name

Json = Any
_Enc = Callable[[Any], Json]
_Dec = Callable[[Json, str], Any]


def _enc_tile(t: int) -> str:
    return tile_name(t)


def _dec_tile(v: Json, where: str) -> int:
    if not isinstance(v, str):
        raise MalformedInput(where, f"a tile token is a string, not {v!r}")
    try:
        return parse_tile(v)
    except TileError:
        raise MalformedInput(where, f"unknown tile {v!r}") from None


def _enc_tiles(ts: tuple[int, ...]) -> list[str]:
    return [tile_name(t) for t in ts]


def _dec_tiles(v: Json, where: str) -> tuple[int, ...]:
    if not isinstance(v, list):
        raise MalformedInput(where, f"a list of tile tokens, not {v!r}")
    return tuple(_dec_tile(x, f"{where}[{i}]") for i, x in enumerate(v))


def _dec_seat(v: Json, where: str) -> Seat:
    return parse_seat(v, where)


def _dec_int(v: Json, where: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise MalformedInput(where, f"an integer, not {v!r}")
    return v


def _dec_str(v: Json, where: str) -> str:
    if not isinstance(v, str):
        raise MalformedInput(where, f"a string, not {v!r}")
    return v


def _dec_bool(v: Json, where: str) -> bool:
    if not isinstance(v, bool):
        raise MalformedInput(where, f"true or false, not {v!r}")
    return v


def _dec_ints(v: Json, where: str) -> tuple[int, ...]:
    if not isinstance(v, list):
        raise MalformedInput(where, f"a list of integers, not {v!r}")
    return tuple(_dec_int(x, f"{where}[{i}]") for i, x in enumerate(v))


def _dec_strs(v: Json, where: str) -> tuple[str, ...]:
    if not isinstance(v, list):
        raise MalformedInput(where, f"a list of strings, not {v!r}")
    return tuple(_dec_str(x, f"{where}[{i}]") for i, x in enumerate(v))


def _dec_json(v: Json, where: str) -> Json:
    return v


def _ident(v: Any) -> Json:
    return v


# Enum ``.name`` is a descriptor call; the cross-checks encode every event, so look it up.
_SEAT_NAMES: dict[Seat, str] = {s: s.name for s in Seat}


def _enc_seat(s: Seat) -> str:
    return _SEAT_NAMES[s] if type(s) is Seat else s.name


def _enc_seats(v: tuple[Seat, ...]) -> list[str]:
    return [_enc_seat(s) for s in v]


def _dec_seats(v: Json, where: str) -> tuple[Seat, ...]:
    if not isinstance(v, list):
        raise MalformedInput(where, f"a list of seats, not {v!r}")
    return tuple(parse_seat(x, f"{where}[{i}]") for i, x in enumerate(v))


def _list(v: tuple[Any, ...]) -> list[Any]:
    return list(v)


def _optional(enc: _Enc, dec: _Dec) -> tuple[_Enc, _Dec]:
    def e(v: Any) -> Json:
        return None if v is None else enc(v)

    def d(v: Json, where: str) -> Any:
        return None if v is None else dec(v, where)

    return e, d


def _message_codec(registry_name: str) -> tuple[_Enc, _Dec]:
    def e(v: Message) -> Json:
        return v.to_json()

    def d(v: Json, where: str) -> Any:
        return _REGISTRIES[registry_name].decode(v, where)

    return e, d


def _message_list_codec(registry_name: str) -> tuple[_Enc, _Dec]:
    def e(v: tuple[Message, ...]) -> Json:
        return [m.to_json() for m in v]

    def d(v: Json, where: str) -> Any:
        if not isinstance(v, list):
            raise MalformedInput(where, f"a list, not {v!r}")
        reg = _REGISTRIES[registry_name]
        return tuple(reg.decode(x, f"{where}[{i}]") for i, x in enumerate(v))

    return e, d


# Codecs by the annotation text (modules use ``from __future__ import annotations``).
CODECS: dict[str, tuple[_Enc, _Dec]] = {
    "Tile": (_enc_tile, _dec_tile),
    "Tile | None": _optional(_enc_tile, _dec_tile),
    "tuple[Tile, ...]": (_enc_tiles, _dec_tiles),
    "tuple[Tile, ...] | None": _optional(_enc_tiles, _dec_tiles),
    "Seat": (_enc_seat, _dec_seat),
    "Seat | None": _optional(_enc_seat, _dec_seat),
    "tuple[Seat, ...]": (_enc_seats, _dec_seats),
    "int": (_ident, _dec_int),
    "int | None": _optional(_ident, _dec_int),
    "str": (_ident, _dec_str),
    "str | None": _optional(_ident, _dec_str),
    "bool": (_ident, _dec_bool),
    "bool | None": _optional(_ident, _dec_bool),
    "tuple[int, ...]": (_list, _dec_ints),
    "tuple[int, ...] | None": _optional(_list, _dec_ints),
    "tuple[str, ...]": (_list, _dec_strs),
    "ClaimKind": (_ident, _dec_str),
    "ClaimKind | None": _optional(_ident, _dec_str),
    "Json": (_ident, _dec_json),
    "Command": _message_codec("command"),
    "Command | None": _optional(*_message_codec("command")),
    "tuple[Event, ...]": _message_list_codec("event"),
}


def added(default: Any = None) -> Any:
    """A field added to a message after its first version: left out of the JSON form while it
    holds ``default``, so records written before it keep their exact form (and digest)::

        time_us: int | None = added()
    """
    return dataclasses.field(default=default, metadata={"added": True})


class Message:
    """Base of commands and events. Subclasses are frozen dataclasses registered by name."""

    TYPE: ClassVar[str] = ""
    _fields: ClassVar[tuple[tuple[str, _Enc, _Dec, bool], ...]] = ()
    _added: ClassVar[tuple[tuple[str, _Enc, Any], ...]] = ()  # (name, encoder, default)
    _decoded: ClassVar[tuple[tuple[str, _Enc, _Dec, bool], ...]] = ()  # every field

    def to_json(self) -> dict[str, Json]:
        out: dict[str, Json] = {"type": self.TYPE}
        for name, enc, _, _ in self._fields:
            out[name] = enc(getattr(self, name))
        for name, enc, default in self._added:
            value = getattr(self, name)
            if value != default:
                out[name] = enc(value)
        return out

    @classmethod
    def from_json(cls: type[_M], obj: Json, where: str = "") -> _M:
        """Decode; a wrong or missing field raises ``MalformedInput`` naming it."""
        msg = _REGISTRIES[cls._registry].decode(obj, where)  # type: ignore[attr-defined]
        if not isinstance(msg, cls):
            raise MalformedInput(f"{where}.type" if where else "type",
                                 f"expected {cls.__name__}, got {type(msg).__name__}")
        return msg


_M = TypeVar("_M", bound=Message)


def _pasteable_repr(self: Message) -> str:
    """``Discard.from_json({'type': 'Discard', 'seat': 'E', 'tile': '5C'})``: the contract's
    tokens, and pasteable back. A message holding values no token names (built by typed code,
    not decoded) shows its raw fields instead."""
    try:
        return f"{type(self).__name__}.from_json({self.to_json()!r})"
    except (IndexError, KeyError, TypeError, AttributeError, ValueError):
        raw = ", ".join(f"{name}={getattr(self, name)!r}" for name, *_ in self._decoded)
        return f"{type(self).__name__}({raw})"


class Registry:
    def __init__(self, name: str) -> None:
        self.name = name
        self.types: dict[str, type[Message]] = {}
        # Types whose JSON form is not their fields, each with its own decoder (the American
        # events: one form for every kind, engine/american/events.py).
        self.decoders: dict[str, Callable[[Mapping[str, Json], str], Message]] = {}

    def register_decoder(self, type_name: str,
                         decode: Callable[[Mapping[str, Json], str], Message]) -> None:
        if type_name in self.types or type_name in self.decoders:
            raise ValueError(f"{self.name} type {type_name!r} registered twice")
        self.decoders[type_name] = decode

    def register(self, type_name: str) -> Callable[[type[_M]], type[_M]]:
        def deco(cls: type[_M]) -> type[_M]:
            if type_name in self.types or type_name in self.decoders:
                raise ValueError(f"{self.name} type {type_name!r} registered twice")
            fields, added_fields, dec_fields = [], [], []
            for f in dataclasses.fields(cls):  # type: ignore[arg-type]
                ann = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", "")
                if ann not in CODECS:
                    raise TypeError(f"{cls.__name__}.{f.name}: no JSON codec for {ann!r}")
                enc, dec = CODECS[ann]
                optional = (
                    f.default is not dataclasses.MISSING
                    or f.default_factory is not dataclasses.MISSING
                )
                if f.metadata.get("added"):
                    added_fields.append((f.name, enc, f.default))
                    dec_fields.append((f.name, enc, dec, True))
                else:
                    fields.append((f.name, enc, dec, optional))
            cls.TYPE = type_name
            cls._fields = tuple(fields)
            cls._added = tuple(added_fields)
            cls._decoded = tuple(fields) + tuple(dec_fields)
            cls.__repr__ = _pasteable_repr  # type: ignore[method-assign,assignment]
            cls._registry = self.name  # type: ignore[attr-defined]
            self.types[type_name] = cls
            return cls

        return deco

    def decode(self, obj: Json, where: str = "") -> Message:
        here = where or self.name
        if not isinstance(obj, Mapping):
            raise MalformedInput(here, f"a {self.name} is a JSON object, not {obj!r}")
        type_name = obj.get("type")
        custom = self.decoders.get(type_name) if isinstance(type_name, str) else None
        if custom is not None:
            return custom(obj, where)
        cls = self.types.get(type_name) if isinstance(type_name, str) else None
        if cls is None:
            known = ", ".join(sorted([*self.types, *self.decoders]))
            raise MalformedInput(f"{where}.type" if where else "type",
                                 f"unknown {self.name} type {type_name!r} (known: {known})")
        kwargs: dict[str, Any] = {}
        for name, _, dec, optional in cls._decoded:
            path = f"{where}.{name}" if where else name
            if name not in obj:
                if optional:
                    continue
                raise MalformedInput(path, f"missing field {name!r} of {type_name}")
            kwargs[name] = dec(obj[name], path)
        try:
            return cls(**kwargs)
        except (TypeError, ValueError) as exc:
            raise MalformedInput(here, str(exc)) from None


COMMANDS = Registry("command")
EVENTS = Registry("event")
_REGISTRIES: dict[str, Registry] = {"command": COMMANDS, "event": EVENTS}


def command(type_name: str) -> Callable[[type[_M]], type[_M]]:
    """Class decorator: register a command type under its JSON ``type``."""
    return COMMANDS.register(type_name)


def event(type_name: str) -> Callable[[type[_M]], type[_M]]:
    """Class decorator: register an event type under its JSON ``type``."""
    return EVENTS.register(type_name)
