"""A network policy's weights (``student``, ``learned``) from the teacher's labels, with numpy.

Per labelled choice (a *group* of candidates) the targets are the gains
less ``z`` standard errors (the base's move, candidate 0, keeps 0): the
prior that keeps the base's move unless the evidence beats the noise, as
the teacher itself does (with k = 64 determinizations a gain's standard
error is 3 to 6 points, and soft targets of the raw gains teach the noise:
a student 21 points a round below expert).  The loss is the cross-entropy
from softmax(target / ``temp``) to the network's softmax over the
candidates' scores, plus ``reg`` x the squared difference between the
centred scores and the centred targets / ``temp`` (a small regression that
keeps the scores on the gains' scale).  Adam, minibatches of groups,
few epochs (more over-fits the noisy labels).  The network is the one the
numba kernel evaluates (``policies.network.scorer``): here the same layers run
on whole minibatches.  The start is the previous generation's weights, or
small random weights with the reference flag's skip weight at ``REFERENCE_PRIOR``
(a network that starts by playing its reference policy's move).  The trunk's weights are
tied across suits (``tie_suits``, after every step), so the student is suit-blind.

Every number comes from ``seed``; a fit on the same data gives the same
weights on the same machine (numpy's sums may differ in the last bits
between machines).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from lostcards.policies.network import C_DIM, H1, H2, LAYOUT, N_WEIGHTS, NS, S_DIM, SUIT_DIM

REFERENCE_PRIOR = 3.0
LOSSES = ("soft", "gain")
CLIP = 10.0                    # points: the regression sees centred targets within +-CLIP


@dataclass(frozen=True)
class FitSettings:
    epochs: int = 4
    batch: int = 1024          # groups a minibatch
    lr: float = 2e-3
    temp: float = 2.0          # points: the soft targets' temperature
    reg: float = 0.01          # the gain regression's weight
    z: float = 2.0             # standard errors taken off each gain but the base's
    holdout: float = 0.05      # share of groups kept out (the offline numbers; never a gate)
    seed: int = 0
    loss: str = "soft"         # "soft": the cross-entropy above; "gain": the score differences regressed
                               # on the raw gains (a student gated by its `margin`, gain_loss_grad)

    def check(self):
        if self.loss not in LOSSES:
            raise ValueError(f"fit loss {self.loss!r} is not allowed: one of {', '.join(LOSSES)}")


def split(w: np.ndarray) -> dict:
    """The weight vector as named arrays (views), in LAYOUT order."""
    out, at = {}, 0
    for name, shape in LAYOUT:
        n = int(np.prod(shape))
        out[name] = w[at:at + n].reshape(shape)
        at += n
    return out


def tie_suits(w: np.ndarray) -> np.ndarray:
    """The trunk's weights of each suit's block made the same for every suit (their mean), in place:
    the information-set features then enter as a sum over suits, so no suit is favoured (a network
    with a weight of its own per suit learns one, and plays it: tests/test_suit_symmetry.py)."""
    ws = split(w)["Ws"][:NS * SUIT_DIM].reshape(NS, SUIT_DIM, H1)
    ws[:] = ws.mean(axis=0, keepdims=True)
    return w


def initial(seed: int = 0) -> np.ndarray:
    """Small random weights, tied across suits, the reference flag's skip weight at REFERENCE_PRIOR."""
    rng = np.random.default_rng([seed, 1])
    w = np.zeros(N_WEIGHTS)
    p = split(w)
    p["Ws"][:] = rng.normal(0, 1 / np.sqrt(S_DIM), p["Ws"].shape)
    p["Wc"][:] = rng.normal(0, 1 / np.sqrt(C_DIM), p["Wc"].shape)
    p["W2"][:] = rng.normal(0, 1 / np.sqrt(H1), p["W2"].shape)
    p["w3"][:] = rng.normal(0, 0.1 / np.sqrt(H2), p["w3"].shape)
    p["v"][C_DIM - 1] = REFERENCE_PRIOR
    return tie_suits(w)


class Data:
    """The labels as arrays: groups' features S, candidates' features C and gains, contiguous by group."""

    def __init__(self, groups, cands):
        groups = groups.sort_values("group", kind="stable").reset_index(drop=True)
        cands = cands.sort_values("group", kind="stable").reset_index(drop=True)
        self.S = groups[[f"s{i}" for i in range(S_DIM)]].to_numpy(np.float32)
        self.C = cands[[f"c{i}" for i in range(C_DIM)]].to_numpy(np.float32)
        self.gain = cands["gain"].to_numpy(np.float32)
        self.se = cands["se"].to_numpy(np.float32)
        self.n = groups["n"].to_numpy(np.int64)
        if self.n.sum() != len(cands):
            raise ValueError("teacher data: the groups' candidate counts do not add up to the candidates")
        self.start = np.concatenate([[0], np.cumsum(self.n)[:-1]])
        self.target = self.gain.copy()

    def shrink(self, z: float) -> "Data":
        """Targets: each gain less z standard errors, the base's move (each group's first) at 0."""
        self.target = self.gain - np.float32(z) * self.se
        self.target[self.start] = 0.0
        return self

    def rows(self, idx):
        """The candidate rows of groups idx, and each group's first row among them."""
        lens = self.n[idx]
        first = np.concatenate([[0], np.cumsum(lens)[:-1]])
        rows = np.repeat(self.start[idx] - first, lens) + np.arange(lens.sum())
        return rows, first


def _forward(p, S, C, gi):
    A = S @ p["Ws"] + p["b1"]
    Z1 = A[gi] + C @ p["Wc"]
    H1a = np.maximum(Z1, 0)
    Z2 = H1a @ p["W2"] + p["b2"]
    H2a = np.maximum(Z2, 0)
    out = H2a @ p["w3"] + C @ p["v"]
    return out, (Z1, H1a, Z2, H2a)


def _group_softmax(x, first):
    m = np.maximum.reduceat(x, first)
    lens = np.diff(np.append(first, x.size))
    e = np.exp(x - np.repeat(m, lens))
    return e / np.repeat(np.add.reduceat(e, first), lens), lens


def loss_grad(w, data: Data, idx, temp: float, reg: float, want_grad=True, dtype=np.float32):
    """(loss, gradient, agreement): the loss (module docstring) over groups idx, its gradient and
    the share of groups whose best-scoring candidate has the best target.  Without the gradient,
    its place holds the mean raw gain of the best-scoring candidate (an offline guide, never a gate)."""
    p = {k: v.astype(dtype) for k, v in split(w).items()}
    rows, first = data.rows(idx)
    G = len(idx)
    lens = data.n[idx]
    gi = np.repeat(np.arange(G), lens)
    S, C, gain = data.S[idx].astype(dtype), data.C[rows].astype(dtype), data.target[rows].astype(dtype)
    out, (Z1, H1a, Z2, H2a) = _forward(p, S, C, gi)
    q, _ = _group_softmax(out, first)
    t, _ = _group_softmax(gain / temp, first)
    ce = -np.sum(t * np.log(np.maximum(q, 1e-30))) / G
    mo = np.add.reduceat(out, first) / lens
    mg = np.add.reduceat(gain, first) / lens
    r = (out - np.repeat(mo, lens)) - np.clip(gain - np.repeat(mg, lens), -CLIP, CLIP) / temp
    loss = ce + reg * float(np.mean(r * r))
    best_out = np.maximum.reduceat(out, first)
    best_gain = np.maximum.reduceat(gain, first)
    top = out == np.repeat(best_out, lens)
    hit = np.add.reduceat((top & (gain == np.repeat(best_gain, lens))).astype(np.float32), first) > 0
    agree = float(hit.mean())
    if not want_grad:       # the raw gain of the best-scoring candidate, a group's mean
        raw = data.gain[rows]
        chosen = np.add.reduceat(np.where(top, raw, 0), first) / np.add.reduceat(top.astype(np.float32), first)
        return loss, float(chosen.mean()), agree
    g_out = (q - t) / G + 2 * reg * r / r.size
    return loss, _backward(p, S, C, first, g_out, Z1, H1a, Z2, H2a), agree


def _backward(p, S, C, first, g_out, Z1, H1a, Z2, H2a) -> np.ndarray:
    """The weights' gradient (LAYOUT order) from the gradient of the loss in each candidate's score."""
    g = {"v": C.T @ g_out, "w3": H2a.T @ g_out}
    g_Z2 = np.outer(g_out, p["w3"]) * (Z2 > 0)
    g["W2"] = H1a.T @ g_Z2
    g["b2"] = g_Z2.sum(0)
    g_Z1 = (g_Z2 @ p["W2"].T) * (Z1 > 0)
    g["Wc"] = C.T @ g_Z1
    g_A = np.add.reduceat(g_Z1, first, axis=0)
    g["Ws"] = S.T @ g_A
    g["b1"] = g_A.sum(0)
    return np.concatenate([g[name].astype(np.float64).ravel() for name, _ in LAYOUT])


def gain_loss_grad(w, data: Data, idx, want_grad=True, dtype=np.float32):
    """(loss, gradient, agreement) of the gain regression over groups idx: each challenger's score less
    its group's first (the base's move) against its raw gain clipped at CLIP points, squared, a mean
    over challengers.  The scores then estimate the gains, which a gated student (``margin``) compares
    with its bar.  Without the gradient, its place holds ``gated_gains`` at margin 0."""
    p = {k: v.astype(dtype) for k, v in split(w).items()}
    rows, first = data.rows(idx)
    G = len(idx)
    lens = data.n[idx]
    gi = np.repeat(np.arange(G), lens)
    S, C = data.S[idx].astype(dtype), data.C[rows].astype(dtype)
    gain = np.clip(data.gain[rows], -CLIP, CLIP).astype(dtype)
    out, (Z1, H1a, Z2, H2a) = _forward(p, S, C, gi)
    rel = out - np.repeat(out[first], lens)
    ch = np.ones(out.size, bool)
    ch[first] = False
    n_ch = max(int(ch.sum()), 1)
    r = np.where(ch, rel - gain, 0)
    loss = float(np.sum(r * r)) / n_ch
    best = np.maximum.reduceat(np.where(ch, rel, -np.inf), first)
    top = ch & (rel == np.repeat(best, lens))
    hit = np.add.reduceat((top & (gain == np.repeat(np.maximum.reduceat(np.where(ch, gain, -np.inf), first),
                                                    lens))).astype(np.float32), first) > 0
    agree = float(hit.mean())
    if not want_grad:
        return loss, float(gated_gains(out, data.gain[rows], first, lens, 0.0).mean()), agree
    g_out = 2 * r / n_ch
    g_out[first] -= np.add.reduceat(g_out, first)
    return loss, _backward(p, S, C, first, g_out, Z1, H1a, Z2, H2a), agree


def gated_gains(out, raw, first, lens, margin: float) -> np.ndarray:
    """Per group, the raw gain of a gated student's choice: the best-scoring challenger if its score
    beats the first candidate's (the base's move) by more than `margin`, else the base's move (0)."""
    rel = out - np.repeat(out[first], lens)
    ch = np.ones(out.size, bool)
    ch[first] = False
    best = np.maximum.reduceat(np.where(ch, rel, -np.inf), first)
    top = ch & (rel == np.repeat(best, lens))
    took = np.add.reduceat(np.where(top, raw, 0), first) / np.maximum(np.add.reduceat(top, first), 1)
    return np.where(best > margin, took, 0.0)


def held_out_gains(w, groups, cands, margins, settings) -> dict:
    """{margin: (mean raw gain of the gated choice a choice, its standard error, share switched)} on the
    fit's held-out groups (the offline guide of a gated student's bar; never a gate)."""
    data = Data(groups, cands)
    hold = _split(data, settings)[0]
    p = {k: v.astype(np.float64) for k, v in split(w).items()}
    rows, first = data.rows(hold)
    lens = data.n[hold]
    out, _ = _forward(p, data.S[hold].astype(np.float64), data.C[rows].astype(np.float64),
                      np.repeat(np.arange(len(hold)), lens))
    res = {}
    for m in margins:
        g = gated_gains(out, data.gain[rows].astype(np.float64), first, lens, m)
        rel = out - np.repeat(out[first], lens)
        ch = np.ones(out.size, bool)
        ch[first] = False
        switched = np.maximum.reduceat(np.where(ch, rel, -np.inf), first) > m
        res[m] = (float(g.mean()), float(g.std(ddof=1) / np.sqrt(g.size)), float(switched.mean()))
    return res


def _split(data: Data, st, rng=None) -> tuple[np.ndarray, np.ndarray]:
    """(held-out groups, training groups), from the fit's seed (the fit's stream `rng`, which goes on
    to order the minibatches; a new one from the seed if None)."""
    rng = np.random.default_rng([st.seed, 2]) if rng is None else rng
    order = rng.permutation(len(data.n))
    n_hold = int(round(st.holdout * len(order))) if len(order) > 20 else 0
    return order[:n_hold], order[n_hold:]


def fit(groups, cands, init=None, settings: FitSettings = FitSettings(), say=print,
        on_epoch=None) -> tuple[np.ndarray, dict]:
    """(weights, report) fitted to the teacher's labels (module docstring); ``on_epoch(epoch, weights)``,
    if given, sees the weights after each epoch."""
    st = settings
    st.check()
    data = Data(groups, cands).shrink(st.z)
    rng = np.random.default_rng([st.seed, 2])
    hold, train = _split(data, st, rng)
    n_hold = len(hold)
    grad_of = ((lambda w_, idx, g=True: loss_grad(w_, data, idx, st.temp, st.reg, want_grad=g))
               if st.loss == "soft" else (lambda w_, idx, g=True: gain_loss_grad(w_, data, idx, want_grad=g)))
    w = initial(st.seed) if init is None else tie_suits(np.array(init, np.float64))
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    b1, b2, eps = 0.9, 0.999, 1e-8
    t = 0
    report = {"settings": asdict(st), "groups": int(len(data.n)), "candidates": int(data.n.sum()),
              "held_out": int(n_hold), "epochs": []}

    def held():
        if n_hold == 0:
            return float("nan"), float("nan"), float("nan")
        return grad_of(w, hold, False)

    l0, c0, a0 = held()
    report["start"] = {"held_out_loss": float(l0), "held_out_agreement": float(a0), "held_out_gain": float(c0)}
    for ep in range(st.epochs):
        perm = rng.permutation(train)
        tot, nb = 0.0, 0
        for b in range(0, len(perm), st.batch):
            idx = np.sort(perm[b:b + st.batch])
            loss, g, _ = grad_of(w, idx)
            t += 1
            m = b1 * m + (1 - b1) * g
            v = b2 * v + (1 - b2) * g * g
            w = tie_suits(w - st.lr * (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps))
            tot += loss
            nb += 1
        hl, hc, ha = held()
        row = {"epoch": ep + 1, "train_loss": float(tot / max(nb, 1)), "held_out_loss": float(hl),
               "held_out_agreement": float(ha), "held_out_gain": float(hc)}
        report["epochs"].append(row)
        if on_epoch is not None:
            on_epoch(ep + 1, w.copy())
        say(f"fit: epoch {ep + 1}/{st.epochs}: train loss {row['train_loss']:.4f}, held-out loss {hl:.4f}, "
            f"held-out agreement with the best target {ha:.1%}, raw gain of the student's choice "
            f"{hc:+.3f} points")
    return w, report
