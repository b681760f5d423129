"""`search`: information-set Monte Carlo tree search on the engine's rules core.

Single-observer ISMCTS with UCB1 and availability counts (Cowling, Powley &
Whitehouse 2012, "Information Set Monte Carlo Tree Search", IEEE TCIAIG 4(2)):
each iteration deals the hidden cards at random consistently with what the seat
has seen (``determinize``), descends a tree over the seat's own moves
(``tree``), plays the round out with a cheap greedy rule (``playout``) and backs
up the side's margin.  ``policy`` is the decision; docs/search.md the guide.
"""
from lostcards.policies import Float, Int, Policy
from lostcards.policies.search.policy import ismcts_policy

PARAMETERS = {
    "iterations": Int(4000, 1, 10_000_000, "play-outs a decision (the reproducible budget)"),
    "seconds": Float(0.0, 0, 3600, "wall-clock limit a decision (0: none); machine-dependent"),
    "c": Float(0.5, 0, 100, "UCB exploration constant (rewards are margins / 100 points)"),
}
ISMCTS = Policy(
    "search", ismcts_policy, parameters=PARAMETERS,
    doc="information-set MCTS: determinizations of the hidden cards, UCB over own moves, "
        "greedy play-outs on the rules core",
    compile_s=30.0, improvable=True, slow=True, quick="iterations=150")
POLICIES = (ISMCTS,)

__all__ = ["ISMCTS", "PARAMETERS", "ismcts_policy"]
