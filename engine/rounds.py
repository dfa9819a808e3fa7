"""East's rotation and the prevailing wind across hands (Code 1924, Laws 94-97).

East keeps his seat on his own win or a drawn hand, and when another player calls a false
Mah-jongg (Laws 86, 94); otherwise South becomes East (Law 95). A round ends when each of the
four players has held and lost East, and the next wind prevails (Law 96); four rounds make a
Round of the Winds (Law 97). Pung-Chow does the same with its wind box (Part II; A). Classical
rotates after every hand, washouts included. Pung-Chow Part I has no prevailing wind.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.rules import Ruleset
from engine.seats import SEATS, Seat


@dataclass(frozen=True, slots=True)
class Match:
    """Where a match stands before a hand: the hand number, the prevailing wind, how many
    times East has passed in this round, and which player (0-3, by first seat) is East."""

    hand: int = 0
    prevailing: Seat | None = Seat.E
    passes: int = 0
    east_player: int = 0

    def seat_of(self, player: int) -> Seat:
        """The seat wind a player holds this hand (players do not move, Law 95)."""
        return SEATS[(player - self.east_player) % 4]


def start(ruleset: Ruleset) -> Match:
    return Match(prevailing=Seat.E if ruleset.prevailing_wind else None)


def next_hand(ruleset: Ruleset, match: Match, east_stays: bool) -> Match:
    """The match after a hand ended with ``east_stays`` (``HandEnded.east_stays``)."""
    if east_stays:
        return Match(match.hand + 1, match.prevailing, match.passes, match.east_player)
    passes = match.passes + 1
    prevailing = match.prevailing
    if passes == 4:
        passes = 0
        if prevailing is not None:
            prevailing = SEATS[(prevailing + 1) % 4]
    return Match(match.hand + 1, prevailing, passes, (match.east_player + 1) % 4)
