"""What the recogniser says of one crop (:class:`Identity`), and why it abstained when it did."""

from __future__ import annotations

from dataclasses import dataclass, replace

from vision.bonus import BONUS_KINDS

# Answer when the best kind is more likely than all the others together. Measured on held-out
# and mixed sets (bench/vision/bench_vision.py): 0.7 abstained on 4-11 % of crops it had right,
# 0.5 on 1-4 %, with accuracy on the answered ones within 0.3 %. The table service applies its
# own, higher bar (adjudication.min_confidence) before it acts on an observation.
DEFAULT_THRESHOLD = 0.5

# Why a crop was abstained on (Identity.why), one reason each, so that a benchmark can say
# where the abstentions come from.
UNSURE = "first look unsure"  # no kind held the recogniser's bar
UNLIKE = "far from prototypes"  # less like its best kind than anything enrolled is
SIDES = "looks disagree on the side"  # the gate could not put it among or apart from bonus
DOUBTED = "unlike, reader doubts"  # far from its prototypes and the reader doubts the side
UNREAD = "reader not sure"  # a bonus tile by both looks, but which one nobody is sure of
NUMBER = "number disagrees"  # the reader is sure of the name but reads another number
OTHER_UNSURE = "no other kind sure"  # not a bonus tile, and no other kind holds the bar
REASONS = (UNSURE, UNLIKE, SIDES, DOUBTED, UNREAD, NUMBER, OTHER_UNSURE)


@dataclass(frozen=True)
class Identity:
    label: str | None  # None: abstained
    confidence: float  # probability of the best kind, calibrated
    best: str  # the best kind even when abstaining (for logs, never published as seen)
    bonus_share: float = 0.0  # the probability, all told, that it is some bonus tile
    # The likeliest kind on each side of the bonus/not-bonus line, and its probability among
    # that side's kinds (what the bonus gate answers when it puts the crop on that side).
    best_bonus: str | None = None
    bonus_confidence: float = 0.0
    best_other: str | None = None
    other_confidence: float = 0.0
    similar: bool = True  # like something enrolled (False: abstained as unlike everything)
    similarity: float = 1.0  # the cosine similarity to the best kind's nearest prototype
    why: str | None = None  # when abstained: one of REASONS
    # Which path of the bonus gate gave this answer (None: the first look, never gated).
    how: str | None = None

    @property
    def some_bonus_tile(self) -> bool:
        """Named, or nearly, as one of the flowers and seasons."""
        return self.best in BONUS_KINDS or self.bonus_share >= 0.5

    def abstained(self, why: str | None = None) -> Identity:
        """The same look, abstaining (its best kind kept: the scan tells face-down and blank
        tiles by it), for the reason ``why`` (by default the look's own, else UNSURE)."""
        return replace(self, label=None, why=why or self.why or UNSURE)
