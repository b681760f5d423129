"""The teacher's data: rounds played by improve(base), every choice labelled, as Parquet shards.

``label_rounds`` plays rounds ``start .. start + n - 1`` of a seed with the
numba teacher (``policies.network.teacher_round``) and returns two tables: *groups*
(one row a labelled choice: round, turn, seat, stage 0 action / 1 draw, the
number of candidates, which was played, whether it was an exploration move,
and the seat's ``S_DIM`` information-set features ``s0..``) and *candidates*
(one row a candidate: its group, move, gain over the base's move, the gain's
standard error and its ``C_DIM`` features ``c0..``).  The base's move is
candidate 0 of its group, with gain 0.

``write_shards`` splits the rounds into shards of ``shard`` rounds, each two
Parquet files in ``out`` (``groups-KKKKK.parquet``, ``candidates-KKKKK.parquet``),
skipping the shards already there (a stopped run resumes), on ``workers``
processes, with a progress line.  A shard is a function of (rules, base,
seed, its rounds, the settings) alone, whatever the workers.
"""
from __future__ import annotations

import io
import math
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from lostcards.errors import LostcardsError
from lostcards.policies.network import C_DIM, S_DIM

DEFAULT_K = 64


@dataclass(frozen=True)
class TeacherSettings:
    """What decides the teacher's labels (besides the rules, the base and the rounds)."""

    k: int = DEFAULT_K           # determinizations a choice, shared by every candidate
    z: float = 2.0               # improve's threshold (standard errors)
    explore: float = 0.12        # share of choices sampled from softmax(gain / temp)
    temp: float = 2.0            # points
    reference: str = ""          # the network's reference policy (its move is a feature): required
    others: str = ""             # the other side's policy in the play-outs ("": the base), as improve's
    depth: int = 0               # play-out turns the own side plays the base, then `others` (0: throughout)
    luck: float = 0.0            # times the deck's luck taken off each play-out's return (0: off)

    def check(self):
        if not self.reference:
            raise LostcardsError("the teacher needs the network's reference policy (TeacherSettings.reference: "
                                 "expert for student, blueprint for learned)")
        if not 2 <= self.k <= 256:
            raise LostcardsError(f"teacher k={self.k} is not allowed: an integer in 2..256")
        if not (0.0 <= self.explore <= 1.0) or not (self.temp > 0) or not (self.z >= 0):
            raise LostcardsError(f"teacher explore={self.explore}, temp={self.temp}, z={self.z}: explore in 0..1, "
                                 "temp > 0, z >= 0")
        if not (isinstance(self.depth, int) and 0 <= self.depth <= 200):
            raise LostcardsError(f"teacher depth={self.depth!r} is not allowed: an integer in 0..200")
        if not (isinstance(self.luck, (int, float)) and 0.0 <= self.luck <= 4.0):
            raise LostcardsError(f"teacher luck={self.luck!r} is not allowed: a number in 0..4")


def base_policy(base):
    """A numba Policy from a spec or Policy (the teacher's base and play-out policy)."""
    from lostcards.policies import resolve
    b = resolve(base)
    if b.kernel is None:
        raise LostcardsError(f"the teacher needs a numba base policy; {b.spec!r} has none")
    return b


def label_rounds(rules, base, seed: int, start: int, n: int, settings: TeacherSettings = TeacherSettings()):
    """(groups, candidates) DataFrames of rounds start..start+n-1 (module docstring)."""
    from lostcards.engine.deal import rules_block
    from lostcards.engine.intrinsics import decide_address, policy_address
    from lostcards.engine.layout import STATE_WORDS
    from lostcards.policies.network import C_MAX, G_FIELDS, K_MAX, MAX_GROUPS, teacher_round
    settings.check()
    b = base_policy(base)
    ref = base_policy(settings.reference)
    rb = rules_block(rules)
    bparams = np.ascontiguousarray(b.params, np.float64)
    rparams = np.ascontiguousarray(ref.params, np.float64)
    pol_at, dec_at = policy_address(b.kernel), decide_address(b.kernel)
    o = base_policy(settings.others) if settings.others else b
    oparams = np.ascontiguousarray(o.params, np.float64)
    oth_at = decide_address(o.kernel)
    ref_at = policy_address(ref.kernel)
    k = settings.k
    dets = np.zeros(K_MAX * STATE_WORDS, np.int64)
    vals = np.zeros(C_MAX * k, np.float64)
    meta = np.zeros(MAX_GROUPS * G_FIELDS, np.int64)
    s = np.zeros(MAX_GROUPS * S_DIM, np.float64)
    rows = MAX_GROUPS * C_MAX
    c = np.zeros(rows * C_DIM, np.float64)
    gain, se = np.zeros(rows), np.zeros(rows)
    move = np.zeros(rows, np.int64)
    margin = np.zeros(1)
    gs, cs = [], []
    g_total = 0
    for r in range(start, start + n):
        first = r % rules.players
        ng, nr, err = teacher_round(rb, seed, r, first, k, settings.z, settings.explore, settings.temp, pol_at,
                                    dec_at, bparams, ref_at, rparams, float(settings.luck), oth_at, oparams,
                                    settings.depth, dets, vals, meta, s, c, gain, se, move, margin)
        if err != 0:
            raise LostcardsError(f"the teacher made an illegal move in round {r} of seed {seed} (code {err})")
        m = meta[:ng * G_FIELDS].reshape(ng, G_FIELDS)
        gdf = pd.DataFrame({"group": np.arange(g_total, g_total + ng), "round": m[:, 0], "turn": m[:, 1],
                            "seat": m[:, 2].astype(np.int8), "stage": m[:, 3].astype(np.int8),
                            "n": m[:, 4].astype(np.int16), "played": m[:, 5].astype(np.int16),
                            "explored": m[:, 7].astype(bool), "margin": np.full(ng, margin[0], np.float32)})
        sf = s[:ng * S_DIM].reshape(ng, S_DIM).astype(np.float32)
        gdf = pd.concat([gdf, pd.DataFrame(sf, columns=[f"s{i}" for i in range(S_DIM)])], axis=1)
        grp = np.repeat(np.arange(g_total, g_total + ng), m[:, 4])
        cdf = pd.DataFrame({"group": grp, "move": move[:nr], "gain": gain[:nr].astype(np.float32),
                            "se": se[:nr].astype(np.float32)})
        cf = c[:nr * C_DIM].reshape(nr, C_DIM).astype(np.float32)
        cdf = pd.concat([cdf, pd.DataFrame(cf, columns=[f"c{i}" for i in range(C_DIM)])], axis=1)
        gs.append(gdf)
        cs.append(cdf)
        g_total += ng
    groups = pd.concat(gs, ignore_index=True) if gs else pd.DataFrame()
    cands = pd.concat(cs, ignore_index=True) if cs else pd.DataFrame()
    return groups, cands


def _parquet(df: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    df.to_parquet(buf, index=False)
    return buf.getvalue()


def shard_paths(out: Path, i: int) -> tuple[Path, Path]:
    return out / f"groups-{i:05d}.parquet", out / f"candidates-{i:05d}.parquet"


def _one_shard(job):
    rules, base, seed, start, n, settings, out, i = job
    from lostcards.run.batchdir import write_bytes_atomic
    t0 = time.process_time()
    g, c = label_rounds(rules, base, seed, start, n, settings)
    g["group"] += i * 10**7                 # groups numbered apart shard by shard
    c["group"] += i * 10**7
    gp, cp = shard_paths(Path(out), i)
    write_bytes_atomic(_parquet(c), cp)
    write_bytes_atomic(_parquet(g), gp)     # the groups file last: its presence marks the shard done
    return i, n, len(g), time.process_time() - t0


def write_shards(out, rules, base, seed: int, rounds: int, shard: int = 25,
                 settings: TeacherSettings = TeacherSettings(), workers: int = 1, say=print) -> dict:
    """Label rounds 0..rounds-1 of `seed` into Parquet shards in `out` (module docstring); returns
    {"rounds", "groups", "cpu_s" (this run's CPU seconds), "shards"}."""
    from lostcards.run.progress import Progress
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    base_policy(base)
    settings.check()
    n_shards = math.ceil(rounds / shard)
    todo = [(rules, base, seed, i * shard, min(shard, rounds - i * shard), settings, str(out), i)
            for i in range(n_shards) if not shard_paths(out, i)[0].is_file()]
    prog = Progress(every=10.0)
    prog.start(rounds, rounds - sum(j[4] for j in todo))
    groups = 0
    cpu = 0.0
    if workers > 1 and len(todo) > 1:
        import multiprocessing as mp
        label_rounds(rules, base, seed, 0, 1, TeacherSettings(k=2, reference=settings.reference,
                                                              others=settings.others))  # compiled once
        with mp.get_context("fork").Pool(min(workers, len(todo))) as pool:
            for _, n, ng, t in pool.imap_unordered(_one_shard, todo):
                groups += ng
                cpu += t
                prog(n)
    else:
        for job in todo:
            _, n, ng, t = _one_shard(job)
            groups += ng
            cpu += t
            prog(n)
    prog.close()
    return {"rounds": rounds, "groups_this_run": groups, "cpu_s": cpu, "shards": n_shards}


def read_shards(folders) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(groups, candidates) of every shard in `folders` (a folder or a list), in shard order."""
    if isinstance(folders, (str, os.PathLike)):
        folders = [folders]
    gs, cs = [], []
    for k, f in enumerate(folders):
        for gp in sorted(Path(f).glob("groups-*.parquet")):
            cp = gp.with_name(gp.name.replace("groups-", "candidates-"))
            g, c = pd.read_parquet(gp), pd.read_parquet(cp)
            g["group"] += k * 10**12
            c["group"] += k * 10**12
            gs.append(g)
            cs.append(c)
    if not gs:
        raise LostcardsError(f"no teacher shards in {', '.join(map(str, folders))}")
    return pd.concat(gs, ignore_index=True), pd.concat(cs, ignore_index=True)


def settings_doc(settings: TeacherSettings) -> dict:
    return asdict(settings)
