"""The American rule family: cards as data, matching with Jokers, and the live game.

* :mod:`engine.american.card` / :mod:`~engine.american.match` — compile a card
  (docs/cards.md) and check hands against it (`mjtable card check`);
* :mod:`engine.american.game` — one hand under the seed's rules, in full or mirror mode;
* :mod:`engine.american.payments` — the League's payments and tournament points;
* :mod:`engine.american.family` — ruleset names and the simulation behind `mjtable play`.

Card files are read by :mod:`config.cards`. See docs/rules-american.md.
"""
