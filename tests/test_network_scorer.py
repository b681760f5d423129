"""The network's scorer against its plain-Python twin, bit for bit: the trunk, the first layer and the
vector second layer (``intrinsics.axpy``, relu without a branch) add in the scalar loops' order."""
import numpy as np
import pytest
from numba import njit

from lostcards.engine.intrinsics import alive, axpy, ptr
from lostcards.policies.network.features import C_DIM, S_DIM
from lostcards.policies.network.scorer import (
    H1,
    H2,
    LAYOUT,
    N_WEIGHTS,
    kept_first_layer,
    score,
    score_all,
    trunk,
)


@njit(cache=False)
def _compiled(w, s, c):
    a = np.zeros(H1)
    h1 = np.zeros(H1)
    h2 = np.zeros(H2)
    trunk(ptr(w), ptr(s), ptr(a))
    out = score(ptr(w), ptr(a), ptr(c), ptr(h1), ptr(h2))
    alive(w)
    alive(s)
    alive(c)
    alive(a)
    alive(h1)
    alive(h2)
    return out


def _twin(w, s, c):
    """The scorer in plain Python, one float operation at a time in the documented order."""
    parts, at = {}, 0
    for name, shape in LAYOUT:
        n = int(np.prod(shape))
        parts[name] = w[at:at + n].reshape(shape).tolist()
        at += n
    a = list(parts["b1"])
    for i in range(S_DIM):
        if s[i] != 0.0:
            for h in range(H1):
                a[h] += s[i] * parts["Ws"][i][h]
    h1, out = list(a), 0.0
    for i in range(C_DIM):
        if c[i] != 0.0:
            out += c[i] * parts["v"][i]
            for h in range(H1):
                h1[h] += c[i] * parts["Wc"][i][h]
    h2 = list(parts["b2"])
    for h in range(H1):
        if h1[h] > 0.0:
            for j in range(H2):
                h2[j] += h1[h] * parts["W2"][h][j]
    for j in range(H2):
        if h2[j] > 0.0:
            out += h2[j] * parts["w3"][j]
    return out


@pytest.mark.parametrize("seed", range(4))
def test_the_scorer_is_its_plain_python_twin_bit_for_bit(seed):
    g = np.random.default_rng(seed)
    w = g.normal(0.0, 0.4, N_WEIGHTS)
    s = np.where(g.random(S_DIM) < 0.5, g.normal(0.0, 1.0, S_DIM), 0.0)
    c = np.where(g.random(C_DIM) < 0.5, g.normal(0.0, 1.0, C_DIM), 0.0)
    got, want = _compiled(w, s, c), _twin(w, s.tolist(), c.tolist())
    assert got == want, (got, want)


@njit(cache=False)
def _axpy(d, x, s):
    axpy(ptr(d), x, ptr(s), 16)
    alive(d)
    alive(s)


def test_axpy_rounds_each_element_as_a_multiply_then_an_add():
    g = np.random.default_rng(5)
    d, s = g.normal(size=16) * 1e3, g.normal(size=16) / 3.0
    x = float(g.normal()) * 7.1
    want = [di + x * si for di, si in zip(d.tolist(), s.tolist())]     # no fused multiply-add
    _axpy(d, x, s)
    assert d.tolist() == want


@njit(cache=False)
def _all_scores(w, s, cs, n):
    """Each candidate's score by ``score`` alone, and by ``score_all`` (first layers kept, two heads at a time)."""
    a = np.zeros(H1)
    h1 = np.zeros(H1)
    h2 = np.zeros(H2)
    h2b = np.zeros(H2)
    hs = np.zeros(n * H1)
    outs = np.zeros(n)
    one = np.zeros(n)
    trunk(ptr(w), ptr(s), ptr(a))
    for i in range(n):
        one[i] = score(ptr(w), ptr(a), ptr(cs[i]), ptr(h1), ptr(h2))
        outs[i] = kept_first_layer(ptr(w), ptr(a), ptr(cs[i]), ptr(h1), ptr(hs[i * H1:]))
    score_all(ptr(w), ptr(hs), ptr(outs), n, ptr(h2), ptr(h2b))
    alive(w)
    alive(s)
    alive(cs)
    alive(a)
    alive(h1)
    alive(h2)
    alive(h2b)
    alive(hs)
    return one, outs


@pytest.mark.parametrize("n", [1, 2, 5, 12])
def test_scoring_every_candidate_at_once_gives_each_the_score_it_gets_alone(n):
    g = np.random.default_rng(100 + n)
    w = g.normal(0.0, 0.4, N_WEIGHTS)
    s = np.where(g.random(S_DIM) < 0.5, g.normal(0.0, 1.0, S_DIM), 0.0)
    cs = np.where(g.random((n, C_DIM)) < 0.5, g.normal(0.0, 1.0, (n, C_DIM)), 0.0)
    one, together = _all_scores(w, s, cs, n)
    assert together.tolist() == one.tolist()
    assert one[0] == _twin(w, s.tolist(), cs[0].tolist())
