"""The adaptation's rule changes, measured as declared statements (``lostcards rule-tweaks``).

- ``declare``: the rulesets, the changes, the statements with their smallest effects and controls;
- ``data``: the rounds the statements need, played once and cached;
- ``rows``: each statement's rows, their (Bonferroni) intervals and verdicts; a row under a control;
- ``play``: ``run``, everything the report needs; ``report``: the CSV, figures and markdown.
"""
from lostcards.analysis.rule_tweaks.declare import (
    CHANGES,
    DEPTH,
    EDGE_ROUNDS,
    FIRE_ROUNDS,
    PLAYERS,
    ROUNDS,
    SEED,
    STATEMENTS,
    cells,
    ruleset,
)
from lostcards.analysis.rule_tweaks.play import run

__all__ = ["CHANGES", "DEPTH", "EDGE_ROUNDS", "FIRE_ROUNDS", "PLAYERS", "ROUNDS", "SEED", "STATEMENTS", "cells",
           "ruleset", "run"]
