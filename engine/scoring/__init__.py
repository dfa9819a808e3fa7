"""Scoring and settlement of a finished hand, for the classical families (issue 3).

- :mod:`engine.scoring.tables`: each family's score table as data;
- :mod:`engine.scoring.features`: what a hand shows (pure predicates);
- :mod:`engine.scoring.score`: the one machinery: best reading, items, limit;
- :mod:`engine.scoring.settle`: payments;
- :mod:`engine.scoring.api`: ``score_hand(doc)``, the whole of `mjtable score`;
- :mod:`engine.scoring.sheet`: the scoresheet across hands.
"""

from __future__ import annotations

from engine.scoring.api import score_finished, score_hand
from engine.scoring.model import FinishedHand, parse_finished_hand
from engine.scoring.tables import RULESETS

__all__ = ["RULESETS", "FinishedHand", "parse_finished_hand", "score_finished", "score_hand"]
