"""learned's kernel: the network scorer (``policies.network.scorer``) with the self-play blueprint as its
reference.

The blueprint (``blueprint.py``, its weights from self-play) decides first, on
the seat's own stream, and its move is the reference: the candidates'
reference flag and, with a ``margin``, the move kept unless another's score
beats it.  Nothing here, nor in the line's training, calls expert.

Parameters (``params``): ``temp``, ``margin``, then the blueprint's parameter
values (its ``temp`` and one a feature), then the network's weights.
"""
from __future__ import annotations

from lostcards.engine.intrinsics import offset, stack_floats
from lostcards.numba_cache import jit
from lostcards.policies.learned.blueprint import N_WEIGHTS as N_BLUEPRINT_WEIGHTS
from lostcards.policies.learned.blueprint import learned_policy as blueprint_policy
from lostcards.policies.network.features import C_DIM, S_DIM
from lostcards.policies.network.scorer import H1, H2, OFF_REFERENCE, P_MARGIN, P_TEMP, network_move, weights_offset

N_BLUEPRINT = 1 + N_BLUEPRINT_WEIGHTS        # the blueprint's temp, then its weights
OFF_W = weights_offset(N_BLUEPRINT)


@jit(inline=True)
def learned_move(obs, params, mem, s, a, c, h1, h2):
    """learned's move: the blueprint's on the seat's stream, then the network's (module docstring)."""
    rm = blueprint_policy(obs, offset(params, OFF_REFERENCE), mem)
    return network_move(obs, params[P_TEMP], params[P_MARGIN], offset(params, OFF_W), mem, rm, s, a, c, h1, h2)


@jit
def learned_net_policy(obs, params, mem):
    """learned: the best-scoring action, then the best-scoring draw (module docstring)."""
    s = stack_floats(S_DIM)
    a = stack_floats(H1)
    c = stack_floats(C_DIM)
    h1 = stack_floats(H1)
    h2 = stack_floats(H2)
    return learned_move(obs, params, mem, s, a, c, h1, h2)
