"""The student's kernel: the network scorer (``policies.network.scorer``) with expert as its reference.

expert decides first, on the seat's own stream (advancing it as expert does),
and its move is the reference: the candidates' reference flag and, with a
``margin``, the move kept unless another's score beats it.  The network's
tie-breaks then draw numbers expert's did not (on a copy of the stream they
drew the same ones, and with 4 players their correlation favoured the low
suits' discard piles: tests/test_suit_symmetry.py).

Parameters (``params``): ``temp``, ``margin``, then expert's parameter values
(``N_EXPERT`` of them), then the weights in ``LAYOUT`` order.
"""
from __future__ import annotations

from lostcards.engine.intrinsics import offset, stack_floats
from lostcards.numba_cache import jit
from lostcards.policies.expert import EXPERT, expert_policy
from lostcards.policies.network.features import C_DIM, S_DIM
from lostcards.policies.network.scorer import H1, H2, OFF_REFERENCE, P_MARGIN, P_TEMP, network_move, weights_offset

N_EXPERT = len(EXPERT.params)
OFF_W = weights_offset(N_EXPERT)


@jit(inline=True)
def student_move(obs, params, mem, s, a, c, h1, h2):
    """The student's move: expert's on the seat's stream, then the network's (module docstring)."""
    em = expert_policy(obs, offset(params, OFF_REFERENCE), mem)
    return network_move(obs, params[P_TEMP], params[P_MARGIN], offset(params, OFF_W), mem, em, s, a, c, h1, h2)


@jit
def student_policy(obs, params, mem):
    """The student: the best-scoring action, then the best-scoring draw (module docstring)."""
    s = stack_floats(S_DIM)
    a = stack_floats(H1)
    c = stack_floats(C_DIM)
    h1 = stack_floats(H1)
    h2 = stack_floats(H2)
    return student_move(obs, params, mem, s, a, c, h1, h2)
