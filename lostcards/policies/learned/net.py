"""learned's kernel: the network scorer (``policies.network.scorer``) with the self-play blueprint as its
reference.

The blueprint (``blueprint.py``, its weights from self-play) decides first, on
the seat's own stream, and its move is the reference: the candidates'
reference flag and, with a ``margin``, the move kept unless another's score
beats it.  Nothing here, nor in the line's training, calls expert.

Parameters (``params``): ``temp``, ``margin``, then the blueprint's parameter
values (its ``temp`` and one a feature), then the network's weights (for every
table: ``learned`` has no solitaire set of its own, so the same set follows).
"""
from __future__ import annotations

from lostcards.engine.intrinsics import offset
from lostcards.numba_cache import jit
from lostcards.policies.learned.blueprint import N_WEIGHTS as N_BLUEPRINT_WEIGHTS
from lostcards.policies.learned.blueprint import learned_policy as blueprint_policy
from lostcards.policies.network.scorer import OFF_REFERENCE, network_play, weights_offset

N_BLUEPRINT = 1 + N_BLUEPRINT_WEIGHTS        # the blueprint's temp, then its weights
OFF_W = weights_offset(N_BLUEPRINT)


@jit
def learned_net_policy(obs, params, mem):
    """learned: the blueprint's move on the seat's stream, then the network's best action and draw
    (module docstring)."""
    rm = blueprint_policy(obs, offset(params, OFF_REFERENCE), mem)
    return network_play(obs, params, OFF_W, mem, rm)
