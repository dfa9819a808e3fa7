"""Every ruleset the table knows, in one registry: the names the config, the command line's help
and choices, the table and the scorer all take.

A name is a rule family's ruleset the engine plays (``code1924/mixed``, ``american/3``), or a
scoring preset of one (``classical/dmjl``), which plays as its family and scores with the
preset. The rules themselves stay data where they live (``engine.rules`` for play,
``engine.scoring.tables`` for scoring, the card for the American game); this module only says
which names exist and what each one plays, scores and takes as options.

>>> entry("classical/dmjl").plays, entry("classical/dmjl").scores
('classical', 'classical/dmjl')
>>> entry("american/3").players, entry("american/3").needs_card, entry("pungchow").needs_card
((3,), True, False)
>>> names()[-4:]
('classical/bmja', 'american', 'american/3', 'american/2')
>>> entry("bridge")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: unknown ruleset 'bridge' (known: code1924/mixed, ..., american/2)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from engine.errors import MalformedInput

if TYPE_CHECKING:
    from engine.american.compiled import CompiledCard

# The American game's tables by size: "Two and three players" play without a Charleston.
AMERICAN: Mapping[str, int] = {"american": 4, "american/3": 3, "american/2": 2}
# The scorer's presets, each with the ruleset it plays as. Named here rather than read from
# engine.scoring.tables so that taking a name (the config, a command's --help) does not load
# the scorer; tests/engine/test_rulesets.py holds the two to each other.
PRESETS: Mapping[str, str] = {"classical/dmjl": "classical", "classical/bmja": "classical"}


@dataclass(frozen=True)
class RulesetEntry:
    """One name of the registry. ``plays``: the ruleset the engine plays the hand under;
    ``scores``: the ruleset the scorer settles it with ("" where the family settles its own
    hands, as the American game does by its card); ``players``: the table sizes it has laws
    for; ``tiles``: the set it is played with (136, 144, or the American 152);
    ``needs_card``: played and scored from a card, which the caller loads
    (``config.cards.card_for``: reading a file is not the engine's business)."""

    name: str
    family: str
    plays: str
    scores: str
    players: tuple[int, ...]
    tiles: int
    needs_card: bool = False

    @property
    def preset(self) -> bool:
        """A scoring preset: played as its family, scored with its own tables."""
        return self.plays != self.name

    @property
    def scored_by_card(self) -> bool:
        """The name a hand settled by its card is scored under: the family's own (``american``;
        a smaller table lists its ``"players"`` in the document, docs/score.md)."""
        return self.needs_card and self.name == self.family


@cache
def _entries() -> dict[str, RulesetEntry]:
    from engine.rules import RULESETS as PLAYED

    out: dict[str, RulesetEntry] = {}
    for name, rules in PLAYED.items():
        family = name.split("/")[0]
        sizes = tuple(rules.player_counts)
        out[name] = RulesetEntry(name, family, name, name, sizes, rules.tiles)
        for preset in (p for p, plays in PRESETS.items() if plays == name):
            out[preset] = RulesetEntry(preset, family, name, preset, sizes, rules.tiles)
    return out | _played_from_a_card()


@cache
def _played_from_a_card() -> dict[str, RulesetEntry]:
    """The entries of the families played from a card: known without loading the engine's
    rules, so that scoring a hand (`mjtable score`, a process per hand) does not load them."""
    # 152: the eight Jokers beside the eight Flowers (American, "The 152 tiles").
    return {name: RulesetEntry(name, "american", name, "", (players,), 152, needs_card=True)
            for name, players in AMERICAN.items()}


def names() -> tuple[str, ...]:
    """Every ruleset and preset, in the order the docs list them."""
    return tuple(_entries())


def entry(name: str) -> RulesetEntry:
    """The registry's entry for ``name`` (any case, outer spaces ignored); ``ValueError``
    naming the known ones otherwise."""
    found = _entries().get(name.strip().lower()) if isinstance(name, str) else None
    if found is None:
        raise ValueError(f"unknown ruleset {name!r} (known: {', '.join(names())})")
    return found


def for_players(name: str, players: int) -> RulesetEntry:
    """The entry that plays ``name`` at a table of ``players``: the American game has one name
    per table size (``american/3``); other families play every size they have laws for under
    one name. ``ValueError`` says which sizes the ruleset is played by."""
    found = entry(name)
    if players in found.players:
        return found
    if found.name == "american":
        sized = next((n for n, p in AMERICAN.items() if p == players), None)
        if sized is not None:
            return entry(sized)
    sizes = " or ".join(map(str, found.players))
    raise ValueError(f"{found.name} is played by {sizes} players, not {players}")


def validate_options(name: str, raw: Mapping[str, Any]) -> dict[str, Any]:
    """The table options for ``name`` with every default filled in; ``MalformedInput`` naming
    ``options.<key>`` for an option the ruleset does not document or a value it refuses.
    Options go to the scorer, which documents each (``docs/score.md``); the American game takes
    its choices from the card's ``option`` lines instead, so it takes none here."""
    found = entry(name)
    if found.needs_card:
        for key in raw:
            raise MalformedInput(f"options.{key}", f"{found.name} takes no table options: "
                                 "its choices are the card's `option` lines (docs/cards.md)")
        return {}
    from engine.scoring.options import validate_options as scoring_options
    from engine.scoring.tables import RULESETS as SCORED

    return scoring_options(SCORED[found.scores], raw)


def score(doc: object, card: Callable[[object], CompiledCard]) -> dict[str, Any]:
    """One finished hand scored and settled: the answer `mjtable score` prints, by the scorer
    the document's ``"ruleset"`` names (docs/score.md). A family that settles by its card is
    named by the family itself (``"american"``; a smaller table lists its ``"players"``) and
    scored against ``card(doc["card"])``, which the caller loads; any other name goes to the
    scoring tables, which refuse one they do not know, naming those they do. Raises
    :class:`~engine.errors.EngineError` (``where`` and ``message``) for a hand it cannot read.

    >>> score({"ruleset": "pungchow"}, card=lambda path: None)["mahjong"]["drawn"]
    True
    """
    name = doc.get("ruleset") if isinstance(doc, dict) else None
    found = _played_from_a_card().get(name) if isinstance(name, str) else None
    if isinstance(doc, dict) and found is not None and found.scored_by_card:
        from engine.american.scoring import score_american

        return score_american(doc, card(doc.get("card")))
    from engine.scoring import score_hand

    return score_hand(doc)
