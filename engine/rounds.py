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

# The chairs taken, counted from the first East's to his right. The Three-Hand Game leaves
# the first West's chair empty; the Two-Hand Game seats the players opposite each other.
CHAIRS = {4: (0, 1, 2, 3), 3: (0, 1, 3), 2: (0, 2)}


@dataclass(frozen=True, slots=True)
class Match:
    """Where a match stands before a hand: the hand number, the prevailing wind, how many
    times East has passed in this round, the chair of the player who is East, and the
    chairs taken (players do not move, Law 95; the winds do)."""

    hand: int = 0
    prevailing: Seat | None = Seat.E
    passes: int = 0
    east_player: int = 0
    chairs: tuple[int, ...] = (0, 1, 2, 3)

    def seat_of(self, chair: int) -> Seat:
        """The seat wind of a chair this hand."""
        return SEATS[(chair - self.east_player) % 4]

    @property
    def players(self) -> tuple[Seat, ...]:
        """The seats in play this hand (for ``new_hand(players=...)``)."""
        return tuple(sorted(self.seat_of(c) for c in self.chairs))


def start(ruleset: Ruleset, players: int = 4) -> Match:
    return Match(prevailing=Seat.E if ruleset.prevailing_wind else None, chairs=CHAIRS[players])


def next_hand(ruleset: Ruleset, match: Match, east_stays: bool) -> Match:
    """The match after a hand ended with ``east_stays`` (``HandEnded.east_stays``). East
    passes to the next player in play: in the Three-Hand Game the empty chair is skipped, so
    the missing wind goes West, South, North (1924, Three-Hand Game)."""
    if east_stays:
        return Match(match.hand + 1, match.prevailing, match.passes, match.east_player,
                     match.chairs)
    passes = match.passes + 1
    prevailing = match.prevailing
    if passes == len(match.chairs):
        passes = 0
        if prevailing is not None:
            prevailing = SEATS[(prevailing + 1) % 4]
    k = match.chairs.index(match.east_player)
    east = match.chairs[(k + 1) % len(match.chairs)]
    return Match(match.hand + 1, prevailing, passes, east, match.chairs)
