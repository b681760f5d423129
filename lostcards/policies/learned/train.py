"""Self-play training of the learned blueprint: a natural evolution strategy gated against the previous generation.

The method is the evolution strategy of Salimans, Ho, Chen, Sidor and
Sutskever, "Evolution Strategies as a Scalable Alternative to Reinforcement
Learning" (2017): a Gaussian search distribution ``N(mu, sigma^2 I)`` over the
weight vector, antithetic pairs ``mu +/- sigma eps``, fitness shaped by centred
ranks, and Adam on the estimated gradient.  The fitness is self-play only: a
perturbed blueprint's mean margin on duplicate deals against the current
*champion* (the previous accepted generation) and the ``pool - 1`` champions
before it (a small league, as in fictitious self-play: against the champion
alone, two passive blueprints that never open a suit tie 0-0 and every
perturbation scores the same).  Each generation then plays the
new ``mu`` against the champion on ``gate`` duplicate deals per ruleset
(fresh deals) and accepts it as the next champion only when it is significantly
better: the mean margin's one-sided 95% lower bound (mean - 1.645 se) is above
0.  A rejected ``mu`` stays the search's centre; the champion stays the
opponent.  Generation 0 is all-zero weights: every option ties, so it plays
uniformly at random among the legal moves.

Reference opponents (``--reference``, e.g. ``expert``) are only measured, after
each generation, for the learning curve; they never enter the fitness, the
gate or any choice.  This module does not import any other policy.

Every number comes from ``seed``: the directions of generation g from
``numpy.random.default_rng([seed, g])``, the deals from the seeds
``seed * 4 + k`` (k = 0: fitness, 1: gate, 2: the reference), each generation
its own rounds, so a run is the same whatever the threads, and a stopped run
resumes (``state.json``) where it stopped.
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lostcards.errors import BadArgument
from lostcards.policies.learned import load_weights, policy_of
from lostcards.policies.learned.blueprint import FEATURES, N_WEIGHTS
from lostcards.rules.ruleset import rules as make_rules
from lostcards.stats import duplicate_margins

Z_GATE = 1.645          # one-sided 95%
FORMAT = "lostcards-learned/1"


@dataclass
class Settings:
    generations: int = 40
    seed: int = 0
    rulesets: tuple = ("expeditions/2",)
    pairs: int = 8           # antithetic pairs a generation
    pool: int = 4            # the champion and the champions before it, as the fitness's opponents
    deals: int = 300         # duplicate deals per candidate and ruleset
    gate: int = 4000         # duplicate deals per ruleset for the gate
    sigma: float = 0.3
    lr: float = 0.1
    reference: tuple = ()    # policies only measured (the learning curve)
    ref_deals: int = 1000
    threads: int | None = None
    init: str | None = None  # a weights file to start from (default: zeros)


def parse_rulesets(text: str) -> tuple:
    """'expeditions/2,lost-cities/2,expeditions/4' -> the same names, checked (BadArgument otherwise)."""
    out = []
    for item in filter(None, (t.strip() for t in text.split(","))):
        preset, _, p = item.partition("/")
        try:
            players = int(p) if p else 2
            r = make_rules(preset, players=players)
        except (ValueError, Exception) as e:   # noqa: BLE001 - RulesError or a bad int: one line
            raise BadArgument(f"--rules {item!r}: {e}") from None
        if r.players == 1:
            raise BadArgument(f"--rules {item!r}: self-play needs an opponent (2 or 4 players)")
        out.append(f"{preset}/{players}")
    if not out:
        raise BadArgument("--rules names no ruleset (e.g. expeditions/2,lost-cities/2,expeditions/4)")
    return tuple(out)


def _rules(name: str):
    preset, _, p = name.partition("/")
    return make_rules(preset, players=int(p))


def duplicate(rules, a, b, deals: int, seed: int, start: int, threads) -> np.ndarray:
    """A's margin over B on each of `deals` duplicate deals (both seatings of rounds start..)."""
    from lostcards.run.runner import play
    g1 = play(rules, a, b, rounds=deals, seed=seed, start=start, first=-1, threads=threads)
    g2 = play(rules, b, a, rounds=deals, seed=seed, start=start, first=-1, threads=threads)
    s1, s2 = g1.scores, g2.scores
    return duplicate_margins(s1[:, 0], s1[:, 1], s2[:, 1], s2[:, 0])


def _mean_se(x: np.ndarray) -> tuple:
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(x.size)) if x.size > 1 else 0.0


def _centred_ranks(f: np.ndarray) -> np.ndarray:
    r = np.empty(f.size)
    r[np.argsort(f, kind="stable")] = np.arange(f.size)
    return r / (f.size - 1) - 0.5 if f.size > 1 else np.zeros(1)


def _save_json(path: Path, data) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    tmp.replace(path)


def weights_doc(w, command: str, generation: int, settings: Settings) -> dict:
    return {"format": FORMAT, "command": command, "generation": generation,
            "rulesets": list(settings.rulesets), "seed": settings.seed,
            "weights": {f: round(float(v), 6) for f, v in zip(FEATURES, w)}}


CURVE_HEAD = ["generation", "accepted", "champion", "margin_vs_previous", "se_vs_previous", "gate_deals"]


def train(settings: Settings, out: Path, command: str = "", say=print) -> np.ndarray:
    """Run (or resume) the training into `out`; returns the final champion's weights."""
    out.mkdir(parents=True, exist_ok=True)
    st = settings
    rulesets = [_rules(n) for n in st.rulesets]
    refs = list(st.reference)
    state_path = out / "state.json"
    if state_path.exists():
        state = json.loads(state_path.read_text())
        if state.get("settings") != _settings_doc(st):
            raise BadArgument(f"{out} holds a run with other settings (state.json); use another --out")
        mu = np.array(state["mu"])
        champ = np.array(state["champion"])
        m_adam, v_adam = np.array(state["adam_m"]), np.array(state["adam_v"])
        gen0 = state["generation"] + 1
        champ_gen = state["champion_generation"]
        league = [np.array(w) for w in state["league"]]
        say(f"resuming at generation {gen0} (champion: generation {champ_gen})")
    else:
        champ = load_weights(st.init) if st.init else np.zeros(N_WEIGHTS)
        mu = champ.copy()
        m_adam, v_adam = np.zeros(N_WEIGHTS), np.zeros(N_WEIGHTS)
        gen0, champ_gen = 1, 0
        league = [champ.copy()]
        _save_json(out / "gen_000.json", weights_doc(champ, command, 0, st))
        head = CURVE_HEAD + [f"vs_{r}" for r in refs] + [f"se_vs_{r}" for r in refs] + ["seconds"]
        (out / "curve.csv").write_text(",".join(head) + "\n")
        if refs:
            row = _reference_row(champ, refs, rulesets, st, 0)
            _append(out / "curve.csv", [0, 1, 0, "", "", 0] + row + [0.0])
    for g in range(gen0, st.generations + 1):
        t0 = time.perf_counter()
        rng = np.random.default_rng([st.seed, g])
        eps = rng.standard_normal((st.pairs, N_WEIGHTS))
        champ_pol = policy_of(champ)
        opponents = [policy_of(w) for w in league[-st.pool:]]
        fit = np.zeros(2 * st.pairs)
        for k in range(st.pairs):
            for j, sign in enumerate((1.0, -1.0)):
                cand = policy_of(mu + sign * st.sigma * eps[k])
                tot = 0.0
                for ri, r in enumerate(rulesets):
                    for opp in opponents:
                        x = duplicate(r, cand, opp, st.deals, st.seed * 4,
                                      (g * len(rulesets) + ri) * st.deals, st.threads)
                        tot += x.mean()
                fit[2 * k + j] = tot / (len(rulesets) * len(opponents))
        ranks = _centred_ranks(fit)
        grad = ((ranks[0::2] - ranks[1::2])[:, None] * eps).sum(0) / (2 * st.pairs * st.sigma)
        # Adam (Kingma and Ba, 2015), ascending the shaped fitness
        m_adam = 0.9 * m_adam + 0.1 * grad
        v_adam = 0.999 * v_adam + 0.001 * grad * grad
        mh = m_adam / (1 - 0.9 ** g)
        vh = v_adam / (1 - 0.999 ** g)
        mu = mu + st.lr * mh / (np.sqrt(vh) + 1e-8)
        # the gate: mu against the champion on fresh duplicate deals, every ruleset
        means, ses = [], []
        for ri, r in enumerate(rulesets):
            x = duplicate(r, policy_of(mu), champ_pol, st.gate, st.seed * 4 + 1,
                          (g * len(rulesets) + ri) * st.gate, st.threads)
            m, se = _mean_se(x)
            means.append(m)
            ses.append(se)
        gm = float(np.mean(means))
        gse = float(math.sqrt(sum(s * s for s in ses)) / len(ses))
        accepted = gm - Z_GATE * gse > 0
        prev_gen = champ_gen
        if accepted:
            champ = mu.copy()
            champ_gen = g
            league.append(champ.copy())
        _save_json(out / f"gen_{g:03d}.json", weights_doc(champ, command, champ_gen, st))
        row = _reference_row(champ, refs, rulesets, st, g) if refs else []
        secs = time.perf_counter() - t0
        _append(out / "curve.csv", [g, int(accepted), champ_gen, f"{gm:.3f}", f"{gse:.3f}",
                                    st.gate * len(rulesets)] + row + [f"{secs:.1f}"])
        ref_txt = "".join(f"; champion vs {n} {row[i]:+.1f} +/- {1.96 * row[len(refs) + i]:.1f}"
                          for i, n in enumerate(refs))
        say(f"generation {g}/{st.generations}: vs generation {prev_gen} "
            f"{gm:+.2f} +/- {1.96 * gse:.2f} ({st.gate:,} deals x {len(rulesets)}) "
            f"{'accepted' if accepted else 'rejected'}; champion = generation {champ_gen}{ref_txt}; {secs:.0f} s")
        _save_json(state_path, {"settings": _settings_doc(st), "generation": g, "mu": mu.tolist(),
                                "champion": champ.tolist(), "champion_generation": champ_gen,
                                "league": [w.tolist() for w in league[-st.pool:]],
                                "adam_m": m_adam.tolist(), "adam_v": v_adam.tolist()})
    _save_json(out / "weights.json", weights_doc(champ, command, champ_gen, st))
    if refs or (out / "curve.csv").exists():
        plot_curve(out / "curve.csv", out / "curve.png")
    return champ


def _settings_doc(st: Settings) -> dict:
    d = dict(st.__dict__)
    d.pop("generations")
    d.pop("threads")
    d["rulesets"] = list(st.rulesets)
    d["reference"] = list(st.reference)
    return d


def _reference_row(champ, refs, rulesets, st, g) -> list:
    """The champion's margin over each reference policy, on the first ruleset (measured only)."""
    ms, ses = [], []
    for ref in refs:
        x = duplicate(rulesets[0], policy_of(champ), ref, st.ref_deals, st.seed * 4 + 2, g * st.ref_deals,
                      st.threads)
        m, se = _mean_se(x)
        ms.append(round(m, 3))
        ses.append(round(se, 3))
    return ms + ses


def _append(path: Path, row) -> None:
    with path.open("a") as f:
        f.write(",".join(str(v) for v in row) + "\n")


def plot_curve(csv: Path, png: Path) -> None:
    """The learning curve: each generation's gate margin against the previous champion and,
    for reference, the champion's margin against each reference policy."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd
    df = pd.read_csv(csv)
    refs = [c for c in df.columns if c.startswith("vs_")]
    fig, axes = plt.subplots(2 if refs else 1, 1, figsize=(7, 6.5 if refs else 3.8), sharex=True, squeeze=False)
    ax = axes[0, 0]
    d = df[df.generation > 0]
    ax.errorbar(d.generation, d.margin_vs_previous, yerr=1.96 * d.se_vs_previous, fmt="o", ms=3,
                label="new weights vs the previous generation (the gate, 95%)")
    acc = d[d.accepted == 1]
    ax.plot(acc.generation, acc.margin_vs_previous, "o", mfc="none", ms=7, color="C2", label="accepted")
    ax.axhline(0, color="grey", lw=0.5)
    ax.set_yscale("symlog", linthresh=1.0)
    ax.set_ylabel("margin, points a round")
    ax.legend(fontsize=8)
    ax.set_title("learned blueprint: self-play learning curve")
    for c in refs:
        bx = axes[1, 0]
        bx.errorbar(df.generation, df[c], yerr=1.96 * df["se_" + c], fmt="-o", ms=2, lw=1,
                    label=f"champion vs {c[3:]} (measured only, 95%)")
        bx.axhline(0, color="grey", lw=0.5)
        bx.set_ylim(max(-60, float(df[c].min()) - 5), max(5, float(df[c].max()) + 5))
        bx.set_ylabel("margin, points a round")
        bx.legend(fontsize=8)
    axes[-1, 0].set_xlabel("generation")
    fig.tight_layout()
    fig.savefig(png, dpi=120)
    plt.close(fig)
