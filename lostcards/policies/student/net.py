"""The student's kernel: the network scorer (``policies.network.scorer``) with expert as its reference.

expert decides first, on the seat's own stream (advancing it as expert does),
and its move is the reference: the candidates' reference flag and, with a
``margin``, the move kept unless another's score beats it.  The network's
tie-breaks then draw numbers expert's did not (on a copy of the stream they
drew the same ones, and with 4 players their correlation favoured the low
suits' discard piles: tests/test_suit_symmetry.py).

Parameters (``params``): ``temp``, ``margin``, then expert's parameter values
(``N_EXPERT`` of them), then the weights in ``LAYOUT`` order, then solitaire's.
"""
from __future__ import annotations

from lostcards.engine.intrinsics import offset
from lostcards.numba_cache import jit
from lostcards.policies.expert import EXPERT, expert_policy
from lostcards.policies.network.scorer import OFF_REFERENCE, network_play, weights_offset

N_EXPERT = len(EXPERT.params)
OFF_W = weights_offset(N_EXPERT)


@jit
def student_policy(obs, params, mem):
    """The student: expert's move on the seat's stream, then the network's best action and draw
    (module docstring)."""
    em = expert_policy(obs, offset(params, OFF_REFERENCE), mem)
    return network_play(obs, params, OFF_W, mem, em)
