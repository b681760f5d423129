"""`expectimax`: improve, with the exact expectation once solitaire's draw pile runs low.

``expectimax:deck=3,k=64`` plays ``improve:k=64`` until the solitaire draw pile
holds at most ``deck`` cards, then the best move for what the player knows,
computed exactly (``endgame``: the tree, why it has no strategy fusion, what
it costs).  In 2 and 4 players (and solitaire with 6 suits) it is ``improve``.  It takes improve's
parameters after its own, so its kernel reads them as improve's.
"""
from __future__ import annotations

from lostcards.policies import Choice, Int, bases, resolve
from lostcards.policies.expectimax.endgame import best_of, expectimax_policy
from lostcards.policies.held import RuleSet
from lostcards.policies.improve import OWN, Improved, prior_choice

PARAMETERS = {
    "deck": Int(3, 0, 4, "solitaire: the draw pile's size from which the exact expectation decides "
                         "(0: only once it is empty; each card more costs about 100 times as much)"),
    **OWN,
    "base": Choice({b: i for i, b in enumerate(bases(first="expert"))}),
    "rules": RuleSet(),
    "prior": prior_choice(),
    "others": prior_choice(),
}
EXPECTIMAX = Improved(
    "expectimax", expectimax_policy, PARAMETERS,
    doc="improve, and in solitaire the exact expectation over the unseen cards once the draw "
        "pile holds at most `deck` cards",
    compile_s=25.0, slow=True, base=resolve("expert"))
POLICIES = (EXPECTIMAX,)

__all__ = ["EXPECTIMAX", "PARAMETERS", "best_of"]
