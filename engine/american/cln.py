"""Card line notation (CLN): the text format of an American card, and its parser.

A card is data (the yearly card changes every April, American K-1), so a table types its own
card in. The format is taught in ``docs/cards.md``; this module turns the text into
:class:`Card` and reports every problem with its line and column (:class:`Problem`). It never
raises on a bad card: :func:`parse_card` returns the problems, :func:`load_card` refuses a card
that has any error.

Syntax problems (codes ``P1``..) are found here; the meaning checks (``L1``..``L9``, lint
rules of the design note) need the expansions and live in :mod:`engine.american.expand`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from engine.american.compiled import Problem

NUMBER_VARS = "XYV"
WIND_VARS = "ZU"
SUIT_VARS = "abc"
FIXED_SUITS = {"@B": "B", "@C": "C", "@D": "D"}
# Symbols that stand for one tile each (a literal run repeats one of them).
LITERALS = "1234567890NEWSFRGDZU"
DECORATIONS = frozenset({"+", "=", "-", "×", "x"})


@dataclass(frozen=True)
class Element:
    """One symbol of a group repeated ``count`` times; ``offset`` only for number variables."""

    symbol: str
    offset: int | None
    count: int
    column: int

    @property
    def key(self) -> tuple[str, int | None]:
        return (self.symbol, self.offset)


@dataclass(frozen=True)
class Group:
    """One printed group. Like tiles (one distinct element) of size 3-6 are *sets*, which take
    Jokers and may be exposed (American S-2, J-1, C-1); anything else is a block of singles and
    pairs (NEWS, a year, a run), never jokered and never exposed (S-3)."""

    elements: tuple[Element, ...]
    suit: str | None  # "a" "b" "c", "@B" "@C" "@D", "*" (any dragon) or None
    naturals_only: bool
    text: str
    column: int

    @property
    def size(self) -> int:
        return sum(e.count for e in self.elements)

    @property
    def is_like(self) -> bool:
        return len({e.key for e in self.elements}) == 1

    @property
    def is_set(self) -> bool:
        return self.is_like and self.size >= 3


@dataclass(frozen=True)
class Constraints:
    """What the line's words say beyond the groups: which variables may coincide, domains."""

    same_suit_ok: frozenset[frozenset[str]] = frozenset()
    same_number_ok: frozenset[frozenset[str]] = frozenset()
    same_wind_ok: frozenset[frozenset[str]] = frozenset()
    number_domain: tuple[tuple[str, frozenset[int]], ...] = ()
    wind_domain: tuple[tuple[str, frozenset[str]], ...] = ()
    no_jokers: bool = False

    def numbers_for(self, var: str) -> frozenset[int]:
        allowed = frozenset(range(1, 10))
        for name, values in self.number_domain:
            if name == var:
                allowed &= values
        return allowed

    def winds_for(self, var: str) -> frozenset[str]:
        allowed = frozenset("NEWS")
        for name, values in self.wind_domain:
            if name == var:
                allowed &= values
        return allowed


@dataclass(frozen=True)
class CardLine:
    """One hand of the card: ``id``, ``X`` (exposed allowed) or ``C`` (concealed), its printed
    value (American K-2) and one or more alternative patterns ("-or-")."""

    id: str
    section: str
    concealed: bool
    points: int
    patterns: tuple[tuple[Group, ...], ...]
    constraints: Constraints
    note: str
    lineno: int
    text: str


@dataclass
class Card:
    name: str = ""
    year: int = 0
    version: int = 1
    options: dict[str, int | bool] = field(default_factory=dict)
    option_lines: dict[str, int] = field(default_factory=dict)
    sections: dict[str, str] = field(default_factory=dict)
    lines: list[CardLine] = field(default_factory=list)

    def line(self, line_id: str) -> CardLine:
        for line in self.lines:
            if line.id == line_id:
                return line
        raise KeyError(line_id)

    @property
    def lowest_value(self) -> int:
        """The card's lowest value (the Mah Jongg in error and Bettor payments use it, M-4, B-4)."""
        return min((line.points for line in self.lines), default=0)


# Numbers are bounded in digits: Python refuses to read an int of more than 4,300.
_HEADER = re.compile(r'card\s+"([^"]*)"\s+(\d{4})(?:\s+v(\d{1,9}))?\s*$')
_OPTION = re.compile(r"option\s+([a-z_][a-z0-9_]*)\s+(on|off|\d{1,9})\s*$")
_SECTION = re.compile(r'section\s+([A-Z][A-Z0-9]*)\s+"([^"]*)"\s*$')
_LINE_ID = re.compile(r"[A-Z][A-Z0-9]*-\d+$")
_POINTS = re.compile(r"\d{1,9}$")


class _LineParser:
    """Parses one card line, collecting problems with absolute columns."""

    def __init__(self, lineno: int, text: str, problems: list[Problem]) -> None:
        self.lineno = lineno
        self.text = text
        self.problems = problems
        self.ok = True

    def error(self, column: int, code: str, message: str) -> None:
        self.ok = False
        self.problems.append(Problem(self.lineno, column, "error", code, message))

    def warn(self, column: int, code: str, message: str) -> None:
        self.problems.append(Problem(self.lineno, column, "warning", code, message))

    def parse(self, section: str) -> CardLine | None:
        text = self.text
        note = ""
        quote = text.find('"')
        body_end = len(text)
        if quote >= 0:
            close = text.find('"', quote + 1)
            if close < 0:
                self.error(quote + 1, "P2", "the parenthetical has no closing quote")
                return None
            note = text[quote + 1:close]
            rest = text[close + 1:]
            if rest.strip():
                self.error(close + 2 + (len(rest) - len(rest.lstrip())), "P2",
                           "nothing may follow the quoted parenthetical")
            body_end = quote
        colon = text.find(":", 0, body_end)
        if colon < 0:
            self.error(1, "P3", "a card line reads `ID X|C POINTS : GROUPS`; the ':' is missing")
            return None
        head = _tokens(text, 0, colon)
        if len(head) != 3:
            self.error(1, "P3", "before ':' a line needs exactly its id, X or C, and its value")
            return None
        (line_id, id_col), (status, st_col), (points, pt_col) = head
        if not _LINE_ID.match(line_id):
            self.error(id_col, "P4", f"line id {line_id!r} is not SECTION-NUMBER, e.g. EV-1")
        if status not in ("X", "C"):
            self.error(st_col, "P5", f"status {status!r} must be X (exposed) or C (concealed)")
        if not _POINTS.match(points) or int(points) <= 0:
            self.error(pt_col, "P6", f"value {points!r} must be a positive whole number")
        semi = text.find(";", colon, body_end)
        pattern_end = semi if semi >= 0 else body_end
        patterns = self._patterns(colon + 1, pattern_end)
        constraints = self._constraints(semi + 1, body_end) if semi >= 0 else Constraints()
        if not self.ok:
            return None
        return CardLine(line_id, section, status == "C", int(points), patterns, constraints,
                        note, self.lineno, text)

    def _patterns(self, start: int, end: int) -> tuple[tuple[Group, ...], ...]:
        patterns: list[tuple[Group, ...]] = []
        current: list[Group] = []
        last_col = start + 1
        for token, col in _tokens(self.text, start, end):
            last_col = col
            if token == "|":
                if not current:
                    self.error(col, "P7", "an alternative ('|') with no groups")
                patterns.append(tuple(current))
                current = []
            elif token in DECORATIONS:
                continue
            else:
                group = self._group(token, col)
                if group is not None:
                    current.append(group)
        if not current:
            self.error(last_col, "P7", "a line (or an alternative after '|') has no groups")
        patterns.append(tuple(current))
        return tuple(patterns)

    def _group(self, token: str, col: int) -> Group | None:
        body = token
        naturals_only = body.endswith("!")
        if naturals_only:
            body = body[:-1]
        suit: str | None = None
        if len(body) >= 2 and body[-2:] in FIXED_SUITS:
            suit, body = body[-2:], body[:-2]
        elif body and (body[-1] in SUIT_VARS or body[-1] == "*"):
            suit, body = body[-1], body[:-1]
        if not body:
            self.error(col, "P8", f"group {token!r} has no tiles")
            return None
        elements: list[Element] = []
        i = 0
        ok = True
        while i < len(body):
            ch = body[i]
            here = col + i
            if ch in NUMBER_VARS:
                j = i
                while j < len(body) and body[j] == ch:
                    j += 1
                if j < len(body) and body[j] in NUMBER_VARS:
                    self.error(col + j, "P9",
                               f"{body[j]!r} follows {ch!r} without an offset digit; write "
                               f"e.g. {ch}{ch}0{body[j]}0")
                    return None
                if j >= len(body) or not body[j].isdigit():
                    self.error(col + j, "P9",
                               f"number variable {ch} needs an offset digit (0-8) after it, "
                               f"e.g. {ch * (j - i)}0")
                    return None
                offset = int(body[j])
                if offset > 8:
                    self.error(col + j, "P9", f"offset {offset} is too big (0-8)")
                    ok = False
                elements.append(Element(ch, offset, j - i, here))
                i = j + 1
            elif ch in LITERALS:
                j = i
                while j < len(body) and body[j] == ch:
                    j += 1
                elements.append(Element(ch, None, j - i, here))
                i = j
            else:
                self.error(here, "P1", f"unknown symbol {ch!r} in group {token!r}")
                return None
        if not ok:
            return None
        return Group(tuple(elements), suit, naturals_only, token, col)

    def _constraints(self, start: int, end: int) -> Constraints:
        pairs: dict[str, set[frozenset[str]]] = {"suit": set(), "number": set(), "wind": set()}
        numbers: list[tuple[str, frozenset[int]]] = []
        winds: list[tuple[str, frozenset[str]]] = []
        no_jokers = False
        for raw, pos in _split_outside_braces(self.text, start, end):
            col = pos + (len(raw) - len(raw.lstrip())) + 1
            item = raw.strip()
            if not item:
                self.error(col, "P10", "an empty constraint")
                continue
            m = re.fullmatch(r"([a-zA-Z])\s*~\s*([a-zA-Z])", item)
            if m:
                x, y = m.groups()
                kind = ("suit" if x in SUIT_VARS and y in SUIT_VARS else
                        "number" if x in NUMBER_VARS and y in NUMBER_VARS else
                        "wind" if x in WIND_VARS and y in WIND_VARS else "")
                if not kind or x == y:
                    self.error(col, "P10", f"{item!r}: '~' joins two different variables of "
                                           "one kind (a~b, X~Y, Z~U)")
                else:
                    pairs[kind].add(frozenset((x, y)))
                continue
            m = re.fullmatch(r"([XYV])\s+in\s+\{\s*([1-9](?:\s*,\s*[1-9])*)\s*\}", item)
            if m:
                numbers.append((m.group(1), frozenset(int(v) for v in m.group(2).split(","))))
                continue
            m = re.fullmatch(r"([XYV])\s+in\s+([1-9])\.\.([1-9])", item)
            if m:
                low, high = int(m.group(2)), int(m.group(3))
                if low > high:
                    self.error(col, "L5", f"{item!r}: the range is empty")
                numbers.append((m.group(1), frozenset(range(low, high + 1))))
                continue
            m = re.fullmatch(r"([XYV])\s+(even|odd)", item)
            if m:
                parity = 0 if m.group(2) == "even" else 1
                numbers.append((m.group(1), frozenset(v for v in range(1, 10) if v % 2 == parity)))
                continue
            m = re.fullmatch(r"([ZU])\s+in\s+\{\s*([NEWS](?:\s*,\s*[NEWS])*)\s*\}", item)
            if m:
                winds.append((m.group(1), frozenset(w.strip() for w in m.group(2).split(","))))
                continue
            if item == "nojokers":
                no_jokers = True
                continue
            self.error(col, "P10", f"unknown constraint {item!r} (a~b, X~Y, Z~U, X in {{2,5}}, "
                                   "X in 1..5, X even, X odd, Z in {N,S}, nojokers)")
        return Constraints(frozenset(pairs["suit"]), frozenset(pairs["number"]),
                           frozenset(pairs["wind"]), tuple(numbers), tuple(winds), no_jokers)


def _split_outside_braces(text: str, start: int, end: int) -> list[tuple[str, int]]:
    """Split text[start:end] at commas that are not inside {...}; each piece with its offset."""
    pieces: list[tuple[str, int]] = []
    depth = 0
    piece_start = start
    for i in range(start, end):
        ch = text[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            pieces.append((text[piece_start:i], piece_start))
            piece_start = i + 1
    pieces.append((text[piece_start:end], piece_start))
    return pieces


def _tokens(text: str, start: int, end: int) -> list[tuple[str, int]]:
    """Whitespace-separated tokens of text[start:end] with their 1-based columns."""
    return [(m.group(), start + m.start() + 1) for m in re.finditer(r"\S+", text[start:end])]


def parse_card(text: str) -> tuple[Card, list[Problem]]:
    """Parse a card's text. Returns the card (lines with errors left out) and every syntax
    problem found; never raises on bad text."""
    card = Card()
    problems: list[Problem] = []
    section = ""
    seen_header = False
    seen_ids: dict[str, int] = {}
    for lineno, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(raw) - len(raw.lstrip()) + 1
        word = stripped.split()[0]
        if word == "card":
            m = _HEADER.match(stripped)
            if not m:
                problems.append(Problem(lineno, indent, "error", "P0",
                                        'the header reads: card "NAME" YEAR [vN]'))
            elif seen_header:
                problems.append(Problem(lineno, indent, "error", "P0", "a second card header"))
            else:
                card.name, card.year = m.group(1), int(m.group(2))
                card.version = int(m.group(3) or 1)
            seen_header = True
            continue
        if word == "option":
            m = _OPTION.match(stripped)
            if not m:
                problems.append(Problem(lineno, indent, "error", "P0",
                                        "an option reads: option NAME on|off|NUMBER"))
            else:
                value = m.group(2)
                card.option_lines[m.group(1)] = lineno
                card.options[m.group(1)] = (value == "on" if value in ("on", "off")
                                            else int(value))
            continue
        if word == "section":
            m = _SECTION.match(stripped)
            if not m:
                problems.append(Problem(lineno, indent, "error", "P0",
                                        'a section reads: section ID "TITLE"'))
            else:
                section = m.group(1)
                card.sections[section] = m.group(2)
            continue
        parser = _LineParser(lineno, raw, problems)
        line = parser.parse(section)
        if line is None:
            continue
        if line.id in seen_ids:
            problems.append(Problem(lineno, indent, "error", "P4",
                                    f"line id {line.id} is already used on line "
                                    f"{seen_ids[line.id]}"))
            continue
        seen_ids[line.id] = lineno
        card.lines.append(line)
    if not seen_header:
        problems.insert(0, Problem(1, 1, "error", "P0",
                                   'a card starts with its header: card "NAME" YEAR [vN]'))
    if not card.lines and seen_header and not any(p.severity == "error" for p in problems):
        problems.append(Problem(max(1, len(text.splitlines())), 1, "error", "P0",
                                "the card has no lines"))
    return card, problems
