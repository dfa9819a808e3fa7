"""How an American event's typed fields become what the table publishes and what it keeps.

A field of an event class (engine/american/events.py) is public by default; :func:`shown_if_set`
leaves it out while None, :func:`secret` puts it in the private part (stored, never published),
:func:`named` gives its payload key when that is not the attribute's name, :func:`whole` makes
a mapping the whole public part. :func:`make_event` reads those once per class.
"""


from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, NamedTuple, TypeVar

from engine.errors import MalformedInput
from engine.events import Event
from engine.messages import CODECS, Json
from engine.seats import Seat

WIRE_TYPE = "american/Event"

_E = TypeVar("_E", bound="AmericanEvent")


def shown_if_set(*, key: str | None = None) -> Any:
    """A public field left out of the payload while it is None."""
    return dataclasses.field(default=None, metadata={"key": key, "omit_none": True})


def secret(default: Any = dataclasses.MISSING, *, key: str | None = None,
           omit_none: bool = False) -> Any:
    """A field of the private part: stored, never published."""
    return dataclasses.field(default=default, metadata={"key": key, "private": True,
                                                        "omit_none": omit_none})


def named(key: str, default: Any = dataclasses.MISSING) -> Any:
    """A public field whose payload key is not its attribute's name (``kind`` and ``seat``
    name the event itself)."""
    return dataclasses.field(default=default, metadata={"key": key})


def whole() -> Any:
    """A mapping that is the whole public part (its keys are the payload's)."""
    return dataclasses.field(metadata={"whole": True})


class _Part(NamedTuple):
    name: str  # the attribute
    key: str  # the payload's key
    private: bool
    omit_none: bool
    whole: bool
    optional: bool
    encode: Callable[[Any], Json]
    decode: Callable[[Json, str], Any]


class AmericanEvent(Event):
    """One thing that happened in an American hand. ``kind`` is its name on the ``events``
    topic; ``public`` is what the table shows; ``private`` is never published."""

    TYPE: ClassVar[str] = WIRE_TYPE
    KIND: ClassVar[str] = ""
    PRIVATE: ClassVar[frozenset[str]] = frozenset({"private"})
    _parts: ClassVar[tuple[_Part, ...]] = ()

    @property
    def kind(self) -> str:
        return self.KIND

    @property
    def seat(self) -> Seat | None:
        """The seat it happened to (None for the table's own events)."""
        return None

    @property
    def public(self) -> Json:
        return self._part(private=False)

    @property
    def private(self) -> Json:
        return self._part(private=True)

    def _part(self, private: bool) -> Json:
        parts = [p for p in self._parts if p.private is private]
        if not parts:
            return None
        out: dict[str, Json] = {}
        for p in parts:
            value = getattr(self, p.name)
            if p.whole:
                out.update(value)
            elif value is not None or not p.omit_none:
                out[p.key] = p.encode(value)
        return out if out or not private else None

    def to_json(self) -> dict[str, Json]:
        seat = self.seat
        return {"type": WIRE_TYPE, "kind": self.KIND,
                "seat": None if seat is None else seat.name,
                "public": self.public, "private": self.private}


KINDS: dict[str, type[AmericanEvent]] = {}


def make_event(kind: str) -> Callable[[type[_E]], type[_E]]:
    """Class decorator: makes a frozen dataclass the American event ``kind``, its payload
    parts read from its fields (``seat`` names the event's seat and is in neither part)."""

    def deco(cls: type[_E]) -> type[_E]:
        if kind in KINDS:
            raise ValueError(f"American event {kind!r} declared twice")
        parts = []
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]
            if f.name == "seat":
                continue
            annotation = f.type if isinstance(f.type, str) else f.type.__name__
            if annotation not in CODECS:
                raise TypeError(f"{cls.__name__}.{f.name}: no JSON codec for {annotation!r}")
            encode, decode = CODECS[annotation]
            meta = f.metadata
            optional = f.default is not dataclasses.MISSING
            parts.append(_Part(f.name, meta.get("key") or f.name, bool(meta.get("private")),
                               bool(meta.get("omit_none")), bool(meta.get("whole")), optional,
                               encode, decode))
        cls.KIND = kind
        cls._parts = tuple(parts)
        KINDS[kind] = cls
        return cls

    return deco


def event_from_json(obj: Mapping[str, Json], where: str = "") -> AmericanEvent:
    """An American event from its JSON form; a wrong field raises ``MalformedInput`` naming
    it."""
    here = f"{where}." if where else ""
    kind = obj.get("kind")
    cls = KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise MalformedInput(f"{here}kind", f"unknown American event {kind!r} (known: "
                             f"{', '.join(sorted(KINDS))})")
    kwargs: dict[str, Any] = {}
    if "seat" in {f.name for f in dataclasses.fields(cls)}:  # type: ignore[arg-type]
        kwargs["seat"] = CODECS["Seat | None"][1](obj.get("seat"), f"{here}seat")
    sections = {False: obj.get("public") or {}, True: obj.get("private") or {}}
    for name, section in (("public", sections[False]), ("private", sections[True])):
        if not isinstance(section, Mapping):
            raise MalformedInput(f"{here}{name}", f"an object, not {section!r}")
    for p in cls._parts:
        section = sections[p.private]
        where_part = f"{here}{'private' if p.private else 'public'}.{p.key}"
        if p.whole:
            known = {q.key for q in cls._parts if not q.whole and not q.private}
            kwargs[p.name] = {k: v for k, v in section.items() if k not in known}
        elif p.key in section:
            kwargs[p.name] = p.decode(section[p.key], where_part)
        elif not p.optional:
            raise MalformedInput(where_part, f"missing field {p.key!r} of {kind}")
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as exc:
        raise MalformedInput(where or "event", str(exc)) from None
