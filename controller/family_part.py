"""What a rule family adds to the one table (controller/table.py): its part, injected by
:func:`controller.families.table_for`, so that the table never asks which family it plays.

The engine's :class:`~engine.family.RuleFamily` carries what is the rules' business (how a
command moves a hand, how its events are kept, how a hand is rebuilt). The part carries what
the service sees of the family: its :class:`Mirror` (an observation or a press as the family's
command), what the camera's watcher is told, when the call window closes, what the LEDs show
as events come, how a finished hand is settled onto the scoresheet, and the referee's commands
that only this family knows (each family's part is in ``controller/families/``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from controller.call_window import CallWindow
from controller.cues import Cues
from controller.games import GameBook
from controller.inputs import Observation, Press
from controller.mqtt import Topics
from controller.referee import RefereeCommand
from controller.scorekeeper import Scorekeeper
from controller.settings import TableSettings
from controller.store import EventStore
from engine.commands import Command
from engine.errors import RuleViolation
from engine.events import Event
from engine.family import RuleFamily
from engine.seats import Seat


@dataclass
class Outcome:
    """What became of one input."""

    accepted: bool
    records: list[dict[str, Any]] = field(default_factory=list)
    error: str = ""
    rule: str = ""
    asked: int | None = None


def refusal_of(exc: Exception) -> tuple[str, str]:
    """The one shape of a refusal the table publishes, whichever family refused: the rule that
    refuses (empty for input it cannot read), and why, without the rule again."""
    if isinstance(exc, RuleViolation):
        return exc.rule, exc.message
    return "", str(exc)


# What the table does with an observation it cannot apply: hold it and ask, or (the referee's
# own word) refuse it. Called with the observation, why, and the rule (empty: none).
Refuse = Callable[..., Outcome]


class Mirror(Protocol):
    """The table's words for what it saw, in the family's engine's. Pure: an observation
    that names no tile or no seat where one is needed is an
    :class:`~controller.inputs.InputError` naming the field."""

    def command_for(self, obs: Observation) -> Command: ...

    def claim_for(self, press: Press) -> Command: ...


class FamilyPart(Protocol):
    """One family's part of the table. It is bound to its table and reads the hand in play
    (``table.state``) and the table's parts (window, cues, scorekeeper) from it."""

    @property
    def family(self) -> RuleFamily[Any]: ...

    @property
    def mirror(self) -> Mirror: ...

    @property
    def verbs(self) -> tuple[str, ...]:
        """The referee's verbs it knows, beside every table's."""
        ...

    @property
    def first_prevailing(self) -> str | None:
        """The prevailing wind of the first hand, if any."""
        ...

    # -- the log: the family's own state at the table, folded from the records -----------
    def reset(self) -> None: ...

    def fold(self, record: Mapping[str, Any]) -> None: ...

    def snapshot(self) -> dict[str, Any]: ...

    def load(self, saved: Mapping[str, Any]) -> None: ...

    def window_at_restart(self) -> int | None:
        """The table time the call window the rebuilt hand shows open was opened at (0: not
        logged), or None when no window is open."""
        ...

    # -- the game ------------------------------------------------------------------------
    def observe(self, obs: Observation, now_us: int, refuse: Refuse) -> Outcome: ...

    def stamped(self, command: Command, now_us: int) -> Command:
        """``command`` with the table's time where the family's log keeps it."""
        ...

    def after(self, events: Sequence[Event], now_us: int) -> None:
        """The call window and the LEDs follow what just happened."""
        ...

    def end_of_hand(self) -> list[dict[str, Any]] | None:
        """The hand just ended: None to settle it now, or the records of what the family
        waits for first."""
        ...

    def resume_end(self) -> list[dict[str, Any]] | None:
        """At a restart, a hand ended but not settled: None to settle it now, or the
        records of what its end still does."""
        ...

    def settle(self) -> dict[str, Any]:
        """The finished hand's scoresheet entry (the ``HandScored`` body)."""
        ...

    def public_extras(self) -> dict[str, Any]: ...

    def closing(self) -> Command:
        """The engine's command that closes the call window, its calls adjudicated."""
        ...

    def closes_before(self, command: Command) -> bool:
        """Whether ``command`` shows the table moved on past the calls made on the discard."""
        ...

    def closes_at_pause(self) -> bool:
        """Whether the call window closes now that its courtesy pause is over."""
        ...

    def stays_open(self) -> None: ...

    def throw_dice(self, seat: str, now_us: int) -> Outcome: ...

    def next_thrower(self) -> str: ...

    # -- the referee ---------------------------------------------------------------------
    def table_command(self, command: RefereeCommand, now_us: int) -> dict[str, Any]: ...

    def moves(self) -> list[dict[str, Any]]: ...

    def held(self, pid: int) -> Observation | None:
        """The held observation, read before it is settled (None: read when applied)."""
        ...

    def certain(self, obs: Observation) -> Observation:
        """The observation as the referee's word: applied at full confidence."""
        ...

    def amendment(self, seat: str, tile: str) -> dict[str, Any] | None: ...

    # -- the camera's watcher and the simulated camera ------------------------------------
    def passing(self) -> set[str]: ...

    def showing_hands(self) -> dict[str, int]: ...

    def next_in_turn(self, state: Any, seat: Seat) -> Seat: ...

    def throws_seen(self, state: Any) -> int | None: ...

    def passes_taken(self) -> int: ...

    def passes_waiting(self) -> int: ...

    def hand_shown_taken(self, seat: str) -> bool: ...

    def won_on_draw_now(self) -> bool: ...


class TableHost(Protocol):
    """What a family's part and the referee's desk see of the table they serve
    (:class:`controller.table.Table`): the hand in play, the table's parts, and the moves
    through which they change it."""

    settings: TableSettings
    store: EventStore
    topics: Topics
    window: CallWindow
    cues: Cues
    scorekeeper: Scorekeeper
    part: FamilyPart
    state: Any  # the family's hand in play (None: none yet)
    hand_no: int
    pending: dict[int, dict[str, Any]]
    next_pending: int
    last_dice: tuple[int, ...]
    refused: int
    presses_refused: int
    parts_status: Callable[[], dict[str, Any]]

    @property
    def seq(self) -> int: ...

    @property
    def players(self) -> dict[str, str]: ...

    @property
    def games(self) -> GameBook: ...

    def record(self, events: Sequence[Event] = (), command: Command | None = None,
               table_events: Sequence[Mapping[str, Any]] = ()) -> list[dict[str, Any]]: ...

    def message(self, topic: str, body: Mapping[str, Any]) -> None: ...

    def apply(self, command: Command, now_us: int) -> list[dict[str, Any]]: ...

    def apply_observed(self, obs: Observation, now_us: int, refuse: Refuse) -> Outcome: ...

    def moved_on(self) -> list[dict[str, Any]]: ...

    def observe(self, obs: Observation, now_us: int, ask: bool = True) -> Outcome: ...

    def press(self, press: Press, now_us: int) -> Outcome: ...

    def status(self) -> dict[str, Any]: ...

    def moves(self) -> list[dict[str, Any]]: ...

    def hand_moved(self) -> bool: ...
